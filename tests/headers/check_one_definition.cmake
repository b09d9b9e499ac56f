# Fails if HEADER branches on the language standard anywhere but in the guard the C++20 headers
# open with:
#   #if __cplusplus <= 201703L
#   #error "<agrid/...> needs C++20; ..."
#   #else
#   ... the whole header ...
#   #endif
# A class whose members depend on __cplusplus (or on _MSVC_LANG, or a __cpp_* feature macro) is
# two classes to a C++17 Bullet program and the C++20 library that share it: an ODR violation no
# compiler or linker reports. The guard defines nothing: below C++20 it stops the compile.
cmake_minimum_required(VERSION 3.25)
# One list element a line, empty lines kept; ';', '[' and ']' stand in for themselves since they
# would split or join CMake list elements.
file(READ "${HEADER}" text)
string(REPLACE ";" "<semicolon>" text "${text}")
string(REPLACE "[" "<open>" text "${text}")
string(REPLACE "]" "<close>" text "${text}")
string(REPLACE "\n" ";" lines "${text}")
set(number 0)
set(guard_line 0)
set(problems)
foreach(line IN LISTS lines)
  math(EXPR number "${number} + 1")
  if(guard_line GREATER 0)
    # The two lines after the guard's #if: its #error, then #else.
    math(EXPR after "${number} - ${guard_line}")
    if(after EQUAL 1 AND NOT line MATCHES "^#error \"[^\"]* needs C\\+\\+20")
      list(APPEND problems "${number}: the guard's #if is not followed by its #error \"... needs C++20 ...\"")
    elseif(after EQUAL 2 AND NOT line MATCHES "^#else[ \t]*(//.*)?$")
      list(APPEND problems "${number}: the guard's #error is not followed by #else")
    endif()
  endif()
  if(NOT line MATCHES "__cplusplus|_MSVC_LANG|__cpp_[a-z_]+")
    continue()
  endif()
  if(line MATCHES "^#if __cplusplus <= 201703L[ \t]*(//.*)?$" AND guard_line EQUAL 0)
    set(guard_line ${number})
    continue()
  endif()
  string(STRIP "${line}" shown)
  list(APPEND problems "${number}: ${shown}")
endforeach()
if(guard_line GREATER 0)
  math(EXPR last "${guard_line} + 2")
  if(number LESS last)
    list(APPEND problems "${guard_line}: the guard's #if ends the file")
  endif()
endif()
if(problems)
  list(JOIN problems "\n  " shown)
  string(REPLACE "<semicolon>" ";" shown "${shown}")
  string(REPLACE "<open>" "[" shown "${shown}")
  string(REPLACE "<close>" "]" shown "${shown}")
  message(FATAL_ERROR "${HEADER}: a branch on the language standard outside the C++20 guard, so a "
                      "class may differ between C++11 and C++20 code (one definition rule):\n  ${shown}\n"
                      "A public header defines each class the same in every standard it accepts.")
endif()
message(STATUS "${HEADER}: no branch on the language standard but the C++20 guard")
