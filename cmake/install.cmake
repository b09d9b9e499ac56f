# Installation: headers, libraries, a relocatable CMake package (find_package(agrid <major.minor> CONFIG
# COMPONENTS bullet), or fcl) and pkg-config files (agrid, agrid-bullet, agrid-bullet-float64,
# agrid-fcl). Each file belongs to an install component, one per package cmake/package.cmake
# makes: dev (the core library), bullet (the Bullet adapters) and fcl (the FCL adapter); the
# Python package's are in adapters/python.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS agrid EXPORT agridTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY plugin/include/agrid DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${AGRID_VERSION_HEADER} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/agrid COMPONENT dev)
install(EXPORT agridTargets NAMESPACE agrid:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/agrid COMPONENT dev)

# One export set per Bullet adapter: the package's config finds that adapter's Bullet first.
# agrid_install_bullet_adapter(<target> <export set>)
function(agrid_install_bullet_adapter target export_set)
  install(TARGETS ${target} EXPORT ${export_set}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT bullet
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT bullet
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ${export_set} NAMESPACE agrid:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/agrid COMPONENT bullet)
endfunction()
if(TARGET agrid_bullet)
  install(DIRECTORY adapters/bullet/include/agrid DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT bullet)
  agrid_install_bullet_adapter(agrid_bullet agridBulletTargets)
endif()
if(TARGET agrid_bullet_float64)
  agrid_install_bullet_adapter(agrid_bullet_float64 agridBulletFloat64Targets)
endif()
# The FCL adapter, with an export set of its own: the package's config finds FCL only for it.
if(TARGET agrid_fcl)
  install(DIRECTORY adapters/fcl/include/agrid DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT fcl)
  install(TARGETS agrid_fcl EXPORT agridFclTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT fcl
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT fcl
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT agridFclTargets NAMESPACE agrid:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/agrid COMPONENT fcl)
endif()

# ThreadSanitizer's suppressions of oneTBB's false positives (tests/tsan.supp says why), for a
# program that uses agrid to run under TSAN_OPTIONS=suppressions=<this file>. The CMake package
# gives its path as agrid_TSAN_SUPPRESSIONS, the pkg-config files as tsan_suppressions.
set(AGRID_TSAN_SUPPRESSIONS_FILE ${CMAKE_INSTALL_DATADIR}/agrid/tsan.supp)
install(FILES tests/tsan.supp DESTINATION ${CMAKE_INSTALL_DATADIR}/agrid COMPONENT dev)

configure_package_config_file(cmake/agridConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/agridConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/agrid
  PATH_VARS AGRID_TSAN_SUPPRESSIONS_FILE)
# 0.x: a minor version may change the interface, so find_package(agrid 0.4) takes 0.4.x only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/agridConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/agridConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/agridConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/agrid COMPONENT dev)

# pkg-config files, relocatable: the prefix is found from where the .pc file lies.
set(AGRID_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH AGRID_PC_TO_PREFIX "/prefix/${AGRID_PKGCONFIG_DIR}" "/prefix")
string(REGEX REPLACE "/$" "" AGRID_PC_TO_PREFIX "${AGRID_PC_TO_PREFIX}")
# agrid_install_pkgconfig(<component> <name> <description> <Requires> <libraries, as -l flags>)
function(agrid_install_pkgconfig component name description requires libs)
  set(AGRID_PC_NAME ${name})
  set(AGRID_PC_DESCRIPTION ${description})
  set(AGRID_PC_REQUIRES ${requires})
  set(AGRID_PC_LIBS ${libs})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/agrid.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${name}.pc DESTINATION ${AGRID_PKGCONFIG_DIR} COMPONENT ${component})
endfunction()
# agrid is a static library by default: its users link oneTBB too (Requires, not
# Requires.private, so that a plain --libs gives everything).
agrid_install_pkgconfig(dev agrid "${PROJECT_DESCRIPTION} (C++20)" "tbb" "-lagrid")
if(TARGET agrid_bullet)
  agrid_install_pkgconfig(bullet agrid-bullet "btAdaptiveGridBroadphase for Bullet (C++11 and later)" "bullet tbb"
                          "-lagrid_bullet -lagrid")
endif()
if(TARGET agrid_bullet_float64)
  agrid_install_pkgconfig(bullet agrid-bullet-float64 "btAdaptiveGridBroadphase for double-precision Bullet (C++11 and later)"
                          "bullet-float64 tbb" "-lagrid_bullet_float64 -lagrid")
endif()
if(TARGET agrid_fcl)
  # Debian's fcl.pc requires ccd, eigen3 and octomap, and adds -std=c++11 to the flags.
  agrid_install_pkgconfig(fcl agrid-fcl "agrid::fcl::Manager, agrid as an FCL 0.7 broadphase manager (C++14 and later)"
                          "fcl tbb" "-lagrid_fcl -lagrid")
endif()
