# The API reference: target agrid_docs runs doxygen over the public headers and docs/*.md
# (docs/Doxyfile.in), writing HTML to <build>/docs/html. Not part of `all`: the ctest case
# docs.api_reference_builds_without_warnings builds it, and fails on any doxygen warning.

find_package(Doxygen)
if(NOT DOXYGEN_FOUND)
  message(FATAL_ERROR "AGRID_BUILD_DOCS needs doxygen for the API reference: scripts/setup-deps "
                      "installs it (Debian's doxygen), or configure with -DAGRID_BUILD_DOCS=OFF")
endif()

set(AGRID_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs)
configure_file(docs/Doxyfile.in ${AGRID_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)

add_custom_target(agrid_docs
  COMMAND Doxygen::doxygen ${AGRID_DOCS_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "API reference: ${AGRID_DOCS_OUTPUT_DIR}/html/index.html"
  VERBATIM)
