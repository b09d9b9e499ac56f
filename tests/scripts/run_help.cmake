# Runs SCRIPT with ARGS (separated by |) and AGRID_BUILD_DIR=BUILD_DIR, with commands that install
# or build (apt-get, sudo, dpkg-query, cmake, make, ninja, compilers) replaced on PATH by ones that
# fail and say so; checks that it exits 0, prints EXPECT_TEXT, and called none of them.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" ARGS "${ARGS}")
set(fake_bin "${WORK_DIR}/forbidden-bin")
file(REMOVE_RECURSE "${fake_bin}")
file(MAKE_DIRECTORY "${fake_bin}")
foreach(command apt-get apt sudo dpkg-query dpkg cmake ctest make ninja c++ g++ gcc clang++ cc)
  file(WRITE "${fake_bin}/${command}" "#!/bin/sh\necho \"forbidden: ${command} $*\"\nexit 1\n")
  file(CHMOD "${fake_bin}/${command}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endforeach()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PATH=${fake_bin}:$ENV{PATH}" "AGRID_BUILD_DIR=${BUILD_DIR}" "${SCRIPT}" ${ARGS}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors TIMEOUT 60)
set(all "${output}${errors}")
if(all MATCHES "forbidden: [^\n]*" OR all MATCHES "setup-deps:[^\n]*")
  message(FATAL_ERROR "${SCRIPT} ${ARGS} installed or built something (${CMAKE_MATCH_0}):\n${all}")
endif()
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${SCRIPT} ${ARGS}: exit ${result}, expected 0\n${all}")
endif()
if(NOT all MATCHES "${EXPECT_TEXT}")
  message(FATAL_ERROR "${SCRIPT} ${ARGS}: output lacks '${EXPECT_TEXT}':\n${all}")
endif()
message(STATUS "${all}")
