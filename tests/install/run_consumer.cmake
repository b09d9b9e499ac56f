# Driven by the install.consumer test (see CMakeLists.txt) with cmake -P.
# Inputs: AGRID_BUILD_DIR, WORK_DIR, CONSUMER_SOURCE_DIR, CONFIG, GENERATOR,
# CXX_COMPILER, CXX_FLAGS, SANITIZE, TBB_DIR. Every step that fails fails the test.
cmake_minimum_required(VERSION 3.25)

foreach(var AGRID_BUILD_DIR WORK_DIR CONSUMER_SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")

# Start fresh so that nothing from an earlier run (or an older install) is picked up.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Runs one step; on failure prints its output and fails the test.
function(run_step name)
  list(JOIN ARGN " " command_line)
  message(STATUS "install.consumer: ${name}: ${command_line}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "install.consumer: step '${name}' failed (${result}):\n${output}")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

# (a) Install the build tree into the prefix.
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run_step(install "${CMAKE_COMMAND}" --install "${AGRID_BUILD_DIR}" --prefix "${prefix}" ${config_args})

# Every installed file must be inside the prefix: an absolute DESTINATION would escape it.
string(REGEX MATCHALL "-- (Installing|Up-to-date): [^\n]*" installed "${step_output}")
if(NOT installed)
  message(FATAL_ERROR "install.consumer: the install step installed nothing:\n${step_output}")
endif()
foreach(line IN LISTS installed)
  string(REGEX REPLACE "^-- (Installing|Up-to-date): " "" path "${line}")
  cmake_path(IS_PREFIX prefix "${path}" NORMALIZE inside)
  if(NOT inside)
    message(FATAL_ERROR "install.consumer: installed outside the prefix ${prefix}: ${path}")
  endif()
endforeach()

# (b) Configure the consumer against the installed package only.
set(configure_args
  -S "${CONSUMER_SOURCE_DIR}"
  -B "${consumer_build}"
  -G "${GENERATOR}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
if(CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
# A sanitized agrid is a static library full of sanitizer calls: its consumer must link the runtimes.
set(flags "${CXX_FLAGS}")
if(SANITIZE)
  string(APPEND flags " -fsanitize=address,undefined -fno-omit-frame-pointer")
  list(APPEND configure_args "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
string(STRIP "${flags}" flags)
if(flags)
  list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${flags}")
endif()
# TBB is found the way the agrid build found it.
if(TBB_DIR)
  list(APPEND configure_args "-DTBB_DIR=${TBB_DIR}")
endif()
run_step(configure "${CMAKE_COMMAND}" ${configure_args})

# The package must come from the prefix, not from some other agrid on the machine.
file(STRINGS "${consumer_build}/CMakeCache.txt" agrid_dir_line REGEX "^agrid_DIR:")
string(REGEX REPLACE "^agrid_DIR:[A-Z]+=" "" agrid_dir "${agrid_dir_line}")
cmake_path(IS_PREFIX prefix "${agrid_dir}" NORMALIZE from_prefix)
if(NOT from_prefix)
  message(FATAL_ERROR "install.consumer: agrid was found in '${agrid_dir}', not under ${prefix}")
endif()

# (c) Build it.
run_step(build "${CMAKE_COMMAND}" --build "${consumer_build}" ${config_args})

# (d) Run it; it checks its own result.
if(CONFIG AND EXISTS "${consumer_build}/${CONFIG}/consumer")
  set(consumer_exe "${consumer_build}/${CONFIG}/consumer")
else()
  set(consumer_exe "${consumer_build}/consumer")
endif()
run_step(run "${consumer_exe}")
string(STRIP "${step_output}" step_output)
message(STATUS "install.consumer: ${step_output}")
message(STATUS "install.consumer: passed")
