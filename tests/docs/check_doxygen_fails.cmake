# Runs DOXYGEN with the API reference's configuration (DOXYFILE, made from docs/Doxyfile.in) over
# HEADER alone, in WORK_DIR: HEADER has an undocumented declaration, so doxygen must fail and say
# so. The proof that docs.api_reference_builds_without_warnings can fail with this doxygen.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(READ "${DOXYFILE}" config)
# A later assignment wins in a Doxyfile.
string(APPEND config "\nINPUT = ${HEADER}\nOUTPUT_DIRECTORY = ${WORK_DIR}\nUSE_MDFILE_AS_MAINPAGE =\n")
file(WRITE "${WORK_DIR}/Doxyfile" "${config}")
execute_process(COMMAND "${DOXYGEN}" "${WORK_DIR}/Doxyfile" WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 120)
if(result EQUAL 0 OR NOT output MATCHES "agrid::Undocumented is not documented")
  message(FATAL_ERROR "doxygen should fail on ${HEADER}'s undocumented struct; got (exit ${result}):\n${output}")
endif()
message(STATUS "doxygen failed, as it should:\n${output}")
