#include "support/printers.h"

#include <sstream>

#include "support/configs.h"

namespace agrid {

/// Digits that print every float distinctly.
constexpr int kFloatDigits = 9;

void PrintTo(const Vec3& v, std::ostream* os) {
  std::ostringstream s;
  s.precision(kFloatDigits);
  s << "{" << v.x << ", " << v.y << ", " << v.z << "}";
  *os << s.str();
}

void PrintTo(const Box& b, std::ostream* os) {
  *os << "Box{";
  PrintTo(b.min, os);
  *os << ", ";
  PrintTo(b.max, os);
  *os << "}";
}

void PrintTo(const Pair& p, std::ostream* os) { *os << "(" << p.first << ", " << p.second << ")"; }

void PrintTo(const Segment& s, std::ostream* os) {
  *os << "Segment{";
  PrintTo(s.from, os);
  *os << " -> ";
  PrintTo(s.to, os);
  *os << ", extent ";
  PrintTo(s.extent, os);
  *os << "}";
}

void PrintTo(const Config& c, std::ostream* os) { *os << agrid::test::name(c); }

}  // namespace agrid
