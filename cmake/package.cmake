# Debian packages of agrid (cpack -G DEB in the build tree), one per install component
# (cmake/install.cmake, adapters/python/CMakeLists.txt), each with its own files:
#   libagrid-dev         (dev)            the core library, headers, CMake package, agrid.pc
#   libagrid-bullet-dev  (bullet)         the Bullet adapters, their headers, export sets and .pc files
#   libagrid-fcl-dev     (fcl)            the FCL adapter, its header, export set and .pc file
#   python3-agrid        (python_debian)  the Python package, in Debian's /usr/lib/python3/dist-packages
# Each adapter is a package of its own so that a user of the core alone does not pull in Bullet
# or FCL: the CMake package already treats a missing adapter as a missing component.

set(AGRID_PACKAGE_MAINTAINER "agrid maintainers <maintainers@users.noreply.a-seed-dc24617f.example>"
    CACHE STRING "The Maintainer field of agrid's Debian packages (Name <email>)")

set(CPACK_PACKAGE_NAME ${PROJECT_NAME})
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "${AGRID_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
# <name>_<version>_<architecture>.deb; the architecture is dpkg's (CPack asks dpkg
# --print-architecture), since the libraries and the module are built for this machine.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# libagrid-bullet-dev and libagrid-fcl-dev depend on the libagrid-dev of the same version
# (CPACK_COMPONENT_*_DEPENDS).
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libagrid-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# agridConfig.cmake finds TBB, and agrid.pc requires tbb: both come with libtbb-dev.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libtbb-dev")
set(CPACK_COMPONENT_DEV_DESCRIPTION "${PROJECT_DESCRIPTION} (C++20), static library and headers
agrid finds every overlapping pair of axis-aligned boxes, exactly, with a sparse linear
adaptive grid, and on all cores through oneTBB with its tree of grids. This package holds
the static library, its headers, the CMake package (find_package(agrid CONFIG)) and the
pkg-config file agrid.")

if(TARGET agrid_bullet)
  list(APPEND CPACK_COMPONENTS_ALL bullet)
  set(CPACK_DEBIAN_BULLET_PACKAGE_NAME libagrid-bullet-dev)
  set(CPACK_DEBIAN_BULLET_PACKAGE_SECTION libdevel)
  set(CPACK_COMPONENT_BULLET_DEPENDS dev)
  # The package's config finds Bullet through pkg-config (Debian's BulletConfig.cmake is broken
  # as shipped); libbullet-dev has both bullet.pc and bullet-float64.pc.
  set(CPACK_DEBIAN_BULLET_PACKAGE_DEPENDS "libbullet-dev, pkg-config")
  set(CPACK_COMPONENT_BULLET_DESCRIPTION "btAdaptiveGridBroadphase: agrid behind Bullet's btBroadphaseInterface
A Bullet world swaps its broadphase for agrid's with one line and keeps its narrowphase,
solver and queries. Static libraries for Bullet and for double-precision Bullet, the
header (C++11 and later), the CMake components bullet and bullet_float64 of
find_package(agrid), and the pkg-config files agrid-bullet and agrid-bullet-float64.")
endif()

if(TARGET agrid_fcl)
  list(APPEND CPACK_COMPONENTS_ALL fcl)
  set(CPACK_DEBIAN_FCL_PACKAGE_NAME libagrid-fcl-dev)
  set(CPACK_DEBIAN_FCL_PACKAGE_SECTION libdevel)
  set(CPACK_COMPONENT_FCL_DEPENDS dev)
  # The package's config finds FCL through its own CMake package, and agrid-fcl.pc requires
  # fcl.pc: libfcl-dev has both (and depends on the -dev packages of ccd, Eigen and octomap they
  # need in turn). The library is compiled against the headers of this FCL's minor version
  # (0.7: FCL 0.x changes its API and ABI between minor versions, as its soname says).
  string(REGEX MATCH "^[0-9]+" fcl_major "${fcl_VERSION}")
  string(REGEX REPLACE "^[0-9]+\\.([0-9]+).*" "\\1" fcl_minor "${fcl_VERSION}")
  math(EXPR fcl_next_minor "${fcl_minor} + 1")
  set(CPACK_DEBIAN_FCL_PACKAGE_DEPENDS
      "libfcl-dev (>= ${fcl_major}.${fcl_minor}~), libfcl-dev (<< ${fcl_major}.${fcl_next_minor}~)")
  set(CPACK_COMPONENT_FCL_DESCRIPTION "agrid::fcl::Manager: agrid as an FCL 0.7 broadphase collision manager
An FCL program swaps fcl::DynamicAABBTreeCollisionManager<S> for agrid::fcl::Manager<S>
(S = float or double) with one line and keeps its narrowphase: every pair whose AABBs
overlap, each once, in an order independent of the thread count. The static library,
its header (C++14 and later), the CMake component fcl of find_package(agrid) and the
pkg-config file agrid-fcl.")
endif()

if(TARGET agrid_python)
  list(APPEND CPACK_COMPONENTS_ALL python_debian)
  set(CPACK_DEBIAN_PYTHON_DEBIAN_PACKAGE_NAME python3-agrid)
  set(CPACK_DEBIAN_PYTHON_DEBIAN_PACKAGE_SECTION python)
  # The module is built for one python3 version (its file name says which), as Debian's own
  # extension packages depend. The libraries it links (libtbb12, libstdc++6, ...) come from
  # dpkg-shlibdeps.
  string(REGEX MATCH "^[0-9]+" python_major ${AGRID_PYTHON_VERSION})
  string(REGEX MATCH "[0-9]+$" python_minor ${AGRID_PYTHON_VERSION})
  math(EXPR python_next_minor "${python_minor} + 1")
  set(CPACK_DEBIAN_PYTHON_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${AGRID_PYTHON_VERSION}~), python3 (<< ${python_major}.${python_next_minor}), python3-numpy")
  set(CPACK_DEBIAN_PYTHON_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_COMPONENT_PYTHON_DEBIAN_DESCRIPTION "${PROJECT_DESCRIPTION}, for Python 3
import agrid: find_all_pairs, Grid and Broadphase over NumPy arrays of boxes, with the GIL
released; the native module, its type stubs and the package around it.")
endif()

include(CPack)
