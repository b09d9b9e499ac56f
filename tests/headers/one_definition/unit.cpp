// One translation unit of agrid_test_one_definition, compiled once per standard (11, 14, 17 and
// 20; AGRID_STANDARD says which): a pointer to every class of the public headers that compile as
// C++11. The program is linked with -flto -Werror=odr, so GCC compares the units' definitions of
// each class and fails the build where a standard changes one.

#include <agrid/box.h>
#include <agrid/config.h>
#include <agrid/float_rounding.h>
#include <agrid/segment.h>
#include <agrid/stats.h>
#if AGRID_WITH_BULLET
#include <agrid/bullet/btAdaptiveGridBroadphase.h>
#include <agrid/bullet/btAdaptiveGridBroadphaseStats.h>
#endif

#define AGRID_JOIN2(a, b) a##b
#define AGRID_JOIN(a, b) AGRID_JOIN2(a, b)

// External names, one set a standard, so that the link keeps every unit's types.
namespace AGRID_JOIN(cxx, AGRID_STANDARD) {
agrid::Vec3* vec3 = nullptr;
agrid::Box* box = nullptr;
agrid::Kernel* kernel = nullptr;
agrid::Config* config = nullptr;
agrid::Segment* segment = nullptr;
agrid::GridStats* grid_stats = nullptr;
#if AGRID_WITH_BULLET
btAdaptiveGridBroadphase* broadphase = nullptr;
btAdaptiveGridBroadphaseStats* broadphase_stats = nullptr;
#endif
}  // namespace AGRID_JOIN(cxx, AGRID_STANDARD)
