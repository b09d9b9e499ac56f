# Runs SCRIPT with ARGS (separated by |) from a repository of its own in WORK_DIR: WORK_DIR/repo
# holds scripts/<name> (a link to SCRIPT) and, if BUILD_DIR is given, a link named PRESET_DIR (the
# preset's binaryDir, e.g. build) to BUILD_DIR; else no build at all, whatever the real checkout
# holds. Commands that install or build (apt-get, sudo, dpkg-query, cmake, make, ninja, compilers)
# are replaced on PATH by ones that fail and say so. Checks that it exits EXPECT_RESULT (default
# 0), prints EXPECT_TEXT, and called none of them.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" ARGS "${ARGS}")
if(NOT DEFINED EXPECT_RESULT)
  set(EXPECT_RESULT 0)
endif()
set(fake_bin "${WORK_DIR}/forbidden-bin")
set(repo "${WORK_DIR}/repo")
file(REMOVE_RECURSE "${fake_bin}" "${repo}")
file(MAKE_DIRECTORY "${fake_bin}" "${repo}/scripts")
foreach(command apt-get apt sudo dpkg-query dpkg cmake ctest make ninja c++ g++ gcc clang++ cc)
  file(WRITE "${fake_bin}/${command}" "#!/bin/sh\necho \"forbidden: ${command} $*\"\nexit 1\n")
  file(CHMOD "${fake_bin}/${command}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
cmake_path(GET SCRIPT FILENAME name)
file(CREATE_LINK "${SCRIPT}" "${repo}/scripts/${name}" SYMBOLIC)
if(BUILD_DIR)
  file(CREATE_LINK "${BUILD_DIR}" "${repo}/${PRESET_DIR}" SYMBOLIC)
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PATH=${fake_bin}:$ENV{PATH}" "${repo}/scripts/${name}" ${ARGS}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors TIMEOUT 60)
set(all "${output}${errors}")
if(all MATCHES "forbidden: [^\n]*" OR all MATCHES "setup-deps:[^\n]*")
  message(FATAL_ERROR "${name} ${ARGS} installed or built something (${CMAKE_MATCH_0}):\n${all}")
endif()
if(NOT result EQUAL EXPECT_RESULT)
  message(FATAL_ERROR "${name} ${ARGS}: exit ${result}, expected ${EXPECT_RESULT}\n${all}")
endif()
if(NOT all MATCHES "${EXPECT_TEXT}")
  message(FATAL_ERROR "${name} ${ARGS}: output lacks '${EXPECT_TEXT}':\n${all}")
endif()
message(STATUS "${all}")
