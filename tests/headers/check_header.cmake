# Compiles a file holding only `#include <HEADER>` with COMPILER at -std=c++STANDARD (warnings as
# errors, -Wpedantic), include directories INCLUDE_DIRS (separated by |), in WORK_DIR.
# NEEDS_CXX20 false: it must compile with no output. True: it must fail with exactly one error,
# the header's own "#error <HEADER> needs C++20; ...", and nothing else before it.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY "${WORK_DIR}")
set(source "${WORK_DIR}/include_alone.cpp")
file(WRITE "${source}" "#include <${HEADER}>\n")
string(REPLACE "|" ";" INCLUDE_DIRS "${INCLUDE_DIRS}")
set(includes)
foreach(dir IN LISTS INCLUDE_DIRS)
  list(APPEND includes "-I${dir}")
endforeach()
execute_process(
  COMMAND "${COMPILER}" -std=c++${STANDARD} -fsyntax-only -Wall -Wextra -Wpedantic -Werror ${includes} "${source}"
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 60)
if(NOT NEEDS_CXX20)
  if(NOT result EQUAL 0 OR NOT output STREQUAL "")
    message(FATAL_ERROR "<${HEADER}> as C++${STANDARD}: expected to compile cleanly, got (${result}):\n${output}\n"
                        "If it needs C++20, start it with the guard the other C++20 headers have.")
  endif()
  message(STATUS "<${HEADER}> compiles as C++${STANDARD}")
  return()
endif()
# The message holds a semicolon, which would split a CMake list.
string(REPLACE ";" "," flat "${output}")
string(REGEX MATCHALL "error:[^\n]*" errors "${flat}")
list(LENGTH errors count)
set(first "")
if(count GREATER 0)
  list(GET errors 0 first)
endif()
if(result EQUAL 0 OR NOT count EQUAL 1 OR NOT first MATCHES "${HEADER} needs C\\+\\+20, ")
  message(FATAL_ERROR "<${HEADER}> as C++${STANDARD}: expected one error, its own '${HEADER} needs C++20', "
                      "got ${count} (exit ${result}):\n${output}")
endif()
message(STATUS "<${HEADER}> as C++${STANDARD}: ${first}")
