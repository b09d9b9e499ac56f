#pragma once
// How gtest prints agrid's value types in failure messages: coordinates to float precision.

#include <ostream>

#include "agrid/agrid.h"

namespace agrid {

// gtest finds these by argument-dependent lookup, so they live in the library's namespace.

/// "{x, y, z}" with nine significant digits, enough to tell adjacent floats apart.
void PrintTo(const Vec3& v, std::ostream* os);
/// "Box{min, max}".
void PrintTo(const Box& b, std::ostream* os);
/// "(first, second)".
void PrintTo(const Pair& p, std::ostream* os);
/// "Segment{from -> to, extent box}".
void PrintTo(const Segment& s, std::ostream* os);
/// The configuration's name (agrid::test::name).
void PrintTo(const Config& c, std::ostream* os);

}  // namespace agrid
