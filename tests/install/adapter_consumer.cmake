# The body of an adapter's consumer project (bullet_consumer, fcl_consumer): builds its main.cpp in
# the C++ standard asked (CONSUMER_CXX_STANDARD), against only the installed package,
# find_package(agrid <major.minor> CONFIG REQUIRED COMPONENTS ${AGRID_COMPONENT}), whose version
# must be AGRID_EXPECTED_VERSION and whose agrid_TSAN_SUPPRESSIONS must name the installed
# suppressions (README, "ThreadSanitizer").
set(CMAKE_CXX_STANDARD ${CONSUMER_CXX_STANDARD})
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

# Asks for the major.minor the package is: its version file must accept that.
string(REGEX MATCH "^[0-9]+\\.[0-9]+" wanted "${AGRID_EXPECTED_VERSION}")
find_package(agrid ${wanted} CONFIG REQUIRED COMPONENTS ${AGRID_COMPONENT})
if(NOT agrid_VERSION VERSION_EQUAL AGRID_EXPECTED_VERSION)
  message(FATAL_ERROR "found agrid ${agrid_VERSION}, expected ${AGRID_EXPECTED_VERSION}")
endif()
file(READ "${agrid_TSAN_SUPPRESSIONS}" suppressions)
if(NOT suppressions MATCHES "called_from_lib:libtbb")
  message(FATAL_ERROR "agrid_TSAN_SUPPRESSIONS (${agrid_TSAN_SUPPRESSIONS}) holds no oneTBB suppression")
endif()

add_executable(consumer main.cpp)
target_compile_options(consumer PRIVATE -Wall -Wextra -Wpedantic)
target_compile_definitions(consumer PRIVATE EXPECTED_VERSION="${agrid_VERSION}")
target_link_libraries(consumer agrid::${AGRID_COMPONENT})
