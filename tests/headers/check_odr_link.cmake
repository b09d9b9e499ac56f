# Compiles SOURCE with COMPILER as C++17 and as C++20 (-DAGRID_STANDARD=17, 20), with -flto, and
# links the two with -flto -Werror=odr, in WORK_DIR. SOURCE holds a class that the two standards
# define differently: the link must fail with GCC's "violates the C++ One Definition Rule", the
# proof that agrid_test_one_definition's link can fail.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(objects)
foreach(standard 17 20)
  set(object "${WORK_DIR}/cxx${standard}.o")
  execute_process(COMMAND "${COMPILER}" -std=c++${standard} -flto -DAGRID_STANDARD=${standard} -c "${SOURCE}"
                          -o "${object}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 60)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "compiling ${SOURCE} as C++${standard} failed (${result}):\n${output}")
  endif()
  list(APPEND objects "${object}")
endforeach()
execute_process(COMMAND "${COMPILER}" -flto -Werror=odr ${objects} -o "${WORK_DIR}/program"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 60)
if(result EQUAL 0 OR NOT output MATCHES "violates the C\\+\\+ One Definition Rule")
  message(FATAL_ERROR "the link of C++17 and C++20 units that define a class differently should fail "
                      "with GCC's ODR error; got (exit ${result}):\n${output}")
endif()
message(STATUS "the link failed, as it should:\n${output}")
