# Driven by the install.* tests (see CMakeLists.txt) with cmake -P: builds and runs a consumer
# that takes agrid one way, with nothing from agrid's build tree but what that way gives.
# Inputs: TAKE (package, pkgconfig, add_subdirectory, fetchcontent, python or deb), WORK_DIR,
# CONSUMER_SOURCE_DIR, GENERATOR, CXX_COMPILER, CXX_FLAGS, CONFIG, SANITIZE, TBB_DIR,
# CONSUMER_CXX_STANDARD, AGRID_EXPECTED_VERSION; AGRID_BUILD_DIR (installed: package, pkgconfig,
# python, deb) or AGRID_SOURCE_DIR (built inside the consumer: add_subdirectory, fetchcontent);
# AGRID_COMPONENT (package, deb), PC_MODULE (pkgconfig), PYTHON and PYTHON_DIR (python, deb);
# for a way that must be refused (package), EXPECT_CONFIGURE_ERROR, a regular expression the failed
# configure's output must match (its white space made single spaces), and CONSUMER_CMAKE_ARGS;
# for deb, the packages' Debian layout: PACKAGES (names), DEPENDS_<name> (what each must depend
# on) and PYTHON_DEBIAN_DIR. Every step that fails fails the test.
cmake_minimum_required(VERSION 3.25)

foreach(var TAKE WORK_DIR CONSUMER_SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: ${var} is not set")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
if(TAKE STREQUAL "deb")
  # The packages install into /usr: their files are unpacked into root/usr.
  set(deb_root "${WORK_DIR}/root")
  set(prefix "${deb_root}/usr")
endif()
set(consumer_build "${WORK_DIR}/build")

# Start fresh so that nothing from an earlier run (or an older install) is picked up.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Runs one step; on failure prints its output and fails the test.
function(run_step name)
  list(JOIN ARGN " " command_line)
  message(STATUS "install.${TAKE}: ${name}: ${command_line}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "install.${TAKE}: step '${name}' failed (${result}):\n${output}")
  endif()
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

# Installs agrid's build tree into <into> (default: the prefix); every installed file must be
# inside it (an absolute DESTINATION would escape it). Sets installed_files in the caller: their
# paths relative to <into>.
function(install_agrid)
  set(into "${prefix}")
  if(ARGC GREATER 0)
    set(into "${ARGV0}")
  endif()
  run_step(install "${CMAKE_COMMAND}" --install "${AGRID_BUILD_DIR}" --prefix "${into}" ${config_args})
  string(REGEX MATCHALL "-- (Installing|Up-to-date): [^\n]*" installed "${step_output}")
  if(NOT installed)
    message(FATAL_ERROR "install.${TAKE}: the install step installed nothing:\n${step_output}")
  endif()
  set(relative_paths)
  foreach(line IN LISTS installed)
    string(REGEX REPLACE "^-- (Installing|Up-to-date): " "" path "${line}")
    cmake_path(IS_PREFIX into "${path}" NORMALIZE inside)
    if(NOT inside)
      message(FATAL_ERROR "install.${TAKE}: installed outside the prefix ${into}: ${path}")
    endif()
    cmake_path(RELATIVE_PATH path BASE_DIRECTORY "${into}")
    list(APPEND relative_paths "${path}")
  endforeach()
  set(installed_files "${relative_paths}" PARENT_SCOPE)
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/deb_packages.cmake")

# A sanitized agrid is a static library full of sanitizer calls: its consumer must link the
# runtimes. (A subproject builds its own agrid, unsanitized.)
set(flags "${CXX_FLAGS}")
set(link_flags "")
if(SANITIZE AND NOT TAKE MATCHES "^(add_subdirectory|fetchcontent)$")
  if(SANITIZE STREQUAL "thread")
    set(sanitizers thread)
  else()
    set(sanitizers address,undefined)
  endif()
  string(APPEND flags " -fsanitize=${sanitizers} -fno-omit-frame-pointer")
  set(link_flags "-fsanitize=${sanitizers}")
endif()
string(STRIP "${flags}" flags)

# Imports the Python package from <python path> under the prefix alone, module included, and
# finds one pair with it.
function(import_agrid python_path)
  set(ENV{PYTHONPATH} "${prefix}/${python_path}")
  # Lines, not semicolons: CMake would split the argument at them.
  string(JOIN "\n" script
    "import agrid, agrid._agrid, numpy as np"
    "for m in (agrid, agrid._agrid): assert m.__file__.startswith('${prefix}/'), m.__file__"
    "p = agrid.find_all_pairs(np.zeros((2, 3)), np.ones((2, 3)))"
    "assert p.tolist() == [[0, 1]], p"
    "print('consumer: ok, agrid imported from', agrid.__file__)")
  run_step(run "${PYTHON}" -c "${script}")
  string(STRIP "${step_output}" step_output)
  message(STATUS "install.${TAKE}: ${step_output}")
endfunction()

set(consumer_exe "${consumer_build}/consumer")
if(TAKE STREQUAL "python")
  # The Python package, installed: imported from the prefix's Python path alone.
  install_agrid()
  import_agrid("${PYTHON_DIR}")
  return()
elseif(TAKE STREQUAL "pkgconfig")
  # A Makefile user: pkg-config gives the flags, the compiler is called directly.
  install_agrid()
  file(MAKE_DIRECTORY "${consumer_build}")
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  run_step(pkg-config pkg-config --cflags "${PC_MODULE}")
  string(STRIP "${step_output}" pc_cflags)
  run_step(pkg-config pkg-config --libs "${PC_MODULE}")
  string(STRIP "${step_output}" pc_libs)
  # The ThreadSanitizer suppressions a user's TSan run takes, installed where the .pc file says.
  run_step(pkg-config pkg-config --variable=tsan_suppressions "${PC_MODULE}")
  string(STRIP "${step_output}" suppressions)
  if(NOT EXISTS "${suppressions}")
    message(FATAL_ERROR "install.${TAKE}: ${PC_MODULE}.pc's tsan_suppressions (${suppressions}) does not exist")
  endif()
  separate_arguments(pc_cflags UNIX_COMMAND "${pc_cflags}")
  separate_arguments(pc_libs UNIX_COMMAND "${pc_libs}")
  separate_arguments(extra_flags UNIX_COMMAND "${flags} ${link_flags}")
  # The standard after the module's flags, since the last -std wins: Debian's fcl.pc, which
  # agrid-fcl.pc requires, gives -std=c++11, and the consumer is built in the standard asked.
  run_step(build "${CXX_COMPILER}" ${pc_cflags} -std=c++${CONSUMER_CXX_STANDARD} -Wall -Wextra -Wpedantic ${extra_flags}
           "-DEXPECTED_VERSION=\"${AGRID_EXPECTED_VERSION}\"" "${CONSUMER_SOURCE_DIR}/main.cpp" -o "${consumer_exe}"
           ${pc_libs})
else()
  set(configure_args
    -S "${CONSUMER_SOURCE_DIR}"
    -B "${consumer_build}"
    -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCONSUMER_CXX_STANDARD=${CONSUMER_CXX_STANDARD}"
    "-DAGRID_EXPECTED_VERSION=${AGRID_EXPECTED_VERSION}")
  if(TAKE STREQUAL "package")
    install_agrid()
    list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix}" "-DAGRID_COMPONENT=${AGRID_COMPONENT}")
  elseif(TAKE STREQUAL "deb")
    unpack_deb_packages()
    if(PYTHON_DEBIAN_DIR)
      import_agrid("${PYTHON_DEBIAN_DIR}")
    endif()
    # Nothing but the unpacked root: not an agrid in /usr/local, not one a build tree registered.
    list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix}" "-DAGRID_COMPONENT=${AGRID_COMPONENT}"
         -DCMAKE_IGNORE_PREFIX_PATH=/usr/local -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  else()
    list(APPEND configure_args "-DAGRID_SOURCE_DIR=${AGRID_SOURCE_DIR}" "-DAGRID_TAKE=${TAKE}")
  endif()
  if(CONFIG)
    list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
  endif()
  if(flags)
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS=${flags}")
  endif()
  if(link_flags)
    list(APPEND configure_args "-DCMAKE_EXE_LINKER_FLAGS=${link_flags}")
  endif()
  # TBB is found the way the agrid build found it.
  if(TBB_DIR)
    list(APPEND configure_args "-DTBB_DIR=${TBB_DIR}")
  endif()
  if(DEFINED EXPECT_CONFIGURE_ERROR)
    # A way that must be refused: the configure fails, saying why.
    list(APPEND configure_args ${CONSUMER_CMAKE_ARGS})
    execute_process(COMMAND "${CMAKE_COMMAND}" ${configure_args} RESULT_VARIABLE result
                    OUTPUT_VARIABLE output ERROR_VARIABLE output)
    string(REGEX REPLACE "[ \t\r\n]+" " " output_on_one_line "${output}")
    if(result EQUAL 0 OR NOT output_on_one_line MATCHES "${EXPECT_CONFIGURE_ERROR}")
      message(FATAL_ERROR "install.${TAKE}: the consumer's configure was to fail with '${EXPECT_CONFIGURE_ERROR}', "
                          "and ended (${result}) with:\n${output}")
    endif()
    message(STATUS "install.${TAKE}: refused as expected, '${EXPECT_CONFIGURE_ERROR}'")
    message(STATUS "install.${TAKE}: passed")
    return()
  endif()
  run_step(configure "${CMAKE_COMMAND}" ${configure_args})

  if(TAKE MATCHES "^(package|deb)$")
    # The package must come from the prefix, not from some other agrid on the machine.
    file(STRINGS "${consumer_build}/CMakeCache.txt" agrid_dir_line REGEX "^agrid_DIR:")
    string(REGEX REPLACE "^agrid_DIR:[A-Z]+=" "" agrid_dir "${agrid_dir_line}")
    cmake_path(IS_PREFIX prefix "${agrid_dir}" NORMALIZE from_prefix)
    if(NOT from_prefix)
      message(FATAL_ERROR "install.${TAKE}: agrid was found in '${agrid_dir}', not under ${prefix}")
    endif()
  endif()
  run_step(build "${CMAKE_COMMAND}" --build "${consumer_build}" --parallel 2 ${config_args})
  if(CONFIG AND EXISTS "${consumer_build}/${CONFIG}/consumer")
    set(consumer_exe "${consumer_build}/${CONFIG}/consumer")
  endif()
  if(TAKE STREQUAL "deb")
    check_headers_from_root()
  endif()
endif()

# Run it; it checks its own result.
run_step(run "${consumer_exe}")
string(STRIP "${step_output}" step_output)
message(STATUS "install.${TAKE}: ${step_output}")
message(STATUS "install.${TAKE}: passed")
