#include "support/test_support.h"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>

#include "oracle/oracle.h"

namespace agrid {

void PrintTo(const Vec3& v, std::ostream* os) {
  std::ostringstream s;
  s.precision(9);
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

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float f(double v) { return static_cast<float>(v); }

// A float in [lo, hi] from a double computation, clamped so it stays finite.
float finite_f(double v) {
  return f(std::clamp(v, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX)));
}

Box make_box(double cx, double cy, double cz, double hx, double hy, double hz) {
  // Rounding to float is monotone, so min <= max survives it.
  return Box{{f(cx - hx), f(cy - hy), f(cz - hz)}, {f(cx + hx), f(cy + hy), f(cz + hz)}};
}

double axis_of(const Vec3& v, int axis) { return static_cast<double>(v[axis]); }

Vec3 vec(double x, double y, double z) { return Vec3{finite_f(x), finite_f(y), finite_f(z)}; }

std::vector<const Box*> near_valid_boxes(std::span<const Box> boxes) {
  std::vector<const Box*> out;
  for (const Box& x : boxes) {
    if (!oracle::valid(x)) continue;
    bool near = true;
    for (int a = 0; a < 3; ++a) {
      near = near && std::fabs(x.min[a]) < 1e6f && std::fabs(x.max[a]) < 1e6f;
    }
    if (near) out.push_back(&x);
  }
  return out;
}

Vec3 random_point(Rng& rng, const Box& b, double grow) {
  double c[3];
  for (int a = 0; a < 3; ++a) {
    const double lo = axis_of(b.min, a);
    const double hi = axis_of(b.max, a);
    const double ext = std::max(hi - lo, 1e-3);
    c[a] = rng.uniform(lo - grow * ext, hi + grow * ext);
  }
  return vec(c[0], c[1], c[2]);
}

void set_axis(Vec3& v, int axis, float value) {
  if (axis == 0) v.x = value;
  if (axis == 1) v.y = value;
  if (axis == 2) v.z = value;
}

}  // namespace

Box core_bounds(std::span<const Box> boxes) {
  Box b{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
  bool any = false;
  for (const Box& x : boxes) {
    if (!oracle::valid(x)) continue;
    bool near = true;
    for (int a = 0; a < 3; ++a) {
      near = near && std::fabs(x.min[a]) < 1e6f && std::fabs(x.max[a]) < 1e6f;
    }
    if (!near) continue;
    any = true;
    b.min = {std::min(b.min.x, x.min.x), std::min(b.min.y, x.min.y), std::min(b.min.z, x.min.z)};
    b.max = {std::max(b.max.x, x.max.x), std::max(b.max.y, x.max.y), std::max(b.max.z, x.max.z)};
  }
  if (!any) return Box{{0, 0, 0}, {1, 1, 1}};
  return b;
}

std::string_view name(Density density) {
  switch (density) {
    case Density::kVerySparse: return "very_sparse";
    case Density::kSparse: return "sparse";
    case Density::kMedium: return "medium";
    case Density::kDense: return "dense";
    case Density::kVeryDense: return "very_dense";
  }
  return "?";
}

std::vector<Box> random_scene(std::uint32_t count, Density density, std::uint64_t seed) {
  Rng rng(seed * 1000003u + count * 31u + static_cast<std::uint64_t>(density));
  // Typical box size as a multiple of the mean centre spacing.
  double k = 1.0;
  switch (density) {
    case Density::kVerySparse: k = 0.03; break;
    case Density::kSparse: k = 0.3; break;
    case Density::kMedium: k = 1.0; break;
    case Density::kDense: k = 2.0; break;
    case Density::kVeryDense: k = 4.5; break;
  }
  // Different seeds put the scene at different offsets (float precision varies with them).
  const double origins[] = {0.0, -500.0, 12345.0, -70000.0};
  const double origin = origins[rng.below(4)];
  const double world = 1000.0;
  const double spacing = world / std::cbrt(static_cast<double>(std::max(count, 1u)));
  const double typical = 0.5 * spacing * k;
  const double lattice = spacing * 0.25;

  std::vector<Box> boxes;
  boxes.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const double c[3] = {origin + rng.uniform(0, world), origin + rng.uniform(0, world),
                         origin + rng.uniform(0, world)};
    double h[3];
    const double kind = rng.uniform();
    if (kind < 0.004) {  // a large fraction of the scene
      for (double& x : h) x = world * rng.uniform(0.03, 0.25);
    } else if (kind < 0.03) {  // a point
      for (double& x : h) x = 0.0;
    } else if (kind < 0.15) {  // tiny
      for (double& x : h) x = typical * 1e-3 * rng.uniform();
    } else if (kind < 0.19) {  // a rod along one axis
      const std::uint32_t axis = rng.below(3);
      for (double& x : h) x = typical * 0.1 * rng.uniform();
      h[axis] = world * rng.uniform(0.02, 0.15);
    } else {  // typical, a little anisotropic
      for (double& x : h) x = typical * std::exp(rng.uniform(-1.5, 0.5));
    }
    if (rng.chance(0.12)) {
      // Snap to a lattice: many boxes then share face coordinates exactly, and touch.
      double lo[3];
      double hi[3];
      for (int a = 0; a < 3; ++a) {
        const double m1 = std::floor((c[a] - h[a] - origin) / lattice);
        const double m2 = std::max(m1, std::ceil((c[a] + h[a] - origin) / lattice));
        lo[a] = origin + m1 * lattice;
        hi[a] = origin + m2 * lattice;
      }
      boxes.push_back(Box{{f(lo[0]), f(lo[1]), f(lo[2])}, {f(hi[0]), f(hi[1]), f(hi[2])}});
    } else {
      boxes.push_back(make_box(c[0], c[1], c[2], h[0], h[1], h[2]));
    }
  }
  return boxes;
}

Box finite_bounds(std::span<const Box> boxes) {
  Box b{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
  bool any = false;
  for (const Box& x : boxes) {
    if (!oracle::valid(x)) continue;
    for (int a = 0; a < 3; ++a) {
      for (float v : {x.min[a], x.max[a]}) {
        if (!std::isfinite(v)) continue;
        any = true;
        if (v < b.min[a]) set_axis(b.min, a, v);
        if (v > b.max[a]) set_axis(b.max, a, v);
      }
    }
  }
  if (!any) return Box{{0, 0, 0}, {1, 1, 1}};
  for (int a = 0; a < 3; ++a) {
    if (!(b.min[a] <= b.max[a])) {
      set_axis(b.min, a, 0.0f);
      set_axis(b.max, a, 1.0f);
    }
  }
  return b;
}

std::vector<Box> query_boxes(std::span<const Box> scene, std::uint32_t random_count,
                             std::uint64_t seed) {
  Rng rng(seed * 7919u + 17u);
  const Box core = core_bounds(scene);
  const auto near = near_valid_boxes(scene);
  double ext[3];
  for (int a = 0; a < 3; ++a) ext[a] = std::max(axis_of(core.max, a) - axis_of(core.min, a), 1e-3);
  std::vector<Box> q;

  for (std::uint32_t i = 0; i < random_count; ++i) {
    const Vec3 c = random_point(rng, core, 0.2);
    double h[3];
    const double scale = std::exp(rng.uniform(std::log(1e-5), std::log(0.5)));
    for (int a = 0; a < 3; ++a) h[a] = ext[a] * scale * rng.uniform(0.3, 1.0);
    q.push_back(make_box(c.x, c.y, c.z, h[0], h[1], h[2]));
  }
  // Huge and infinite.
  q.push_back(Box{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}});
  q.push_back(Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, FLT_MAX}});
  q.push_back(Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}});
  q.push_back(Box{{-kInf, -kInf, -kInf}, {core.min.x + f(ext[0] / 2), kInf, kInf}});
  q.push_back(Box{{core.min.x + f(ext[0] / 3), -kInf, core.min.z}, {kInf, kInf, core.max.z}});
  q.push_back(Box{{-1e18f, -1e18f, -1e18f}, {1e18f, core.min.y + f(ext[1] / 4), 1e18f}});
  q.push_back(core);
  // Zero-size: random points.
  for (int i = 0; i < 10; ++i) {
    const Vec3 p = random_point(rng, core, 0.05);
    q.push_back(Box{p, p});
  }
  // Exactly touching scene boxes: at corners, on faces, as flat slabs through a face.
  for (int i = 0; i < 20 && !near.empty(); ++i) {
    const Box& b = *near[rng.below(static_cast<std::uint32_t>(near.size()))];
    q.push_back(Box{b.max, b.max});
    q.push_back(Box{b.min, b.min});
    q.push_back(Box{{b.max.x, b.min.y, b.min.z}, {b.max.x + 1.0f, b.max.y, b.max.z}});
    q.push_back(Box{{b.min.x, b.min.y, b.min.z - 2.0f}, {b.max.x, b.max.y, b.min.z}});
    q.push_back(Box{{b.min.x, -kInf, -kInf}, {b.min.x, kInf, kInf}});
    q.push_back(Box{{b.max.x, b.max.y, b.max.z}, {b.max.x + 5.0f, b.max.y + 5.0f, b.max.z + 5.0f}});
    // Just clear of the face: one ulp beyond.
    const float beyond = std::nextafter(b.max.y, kInf);
    q.push_back(Box{{b.min.x, beyond, b.min.z}, {b.max.x, beyond + 1.0f, b.max.z}});
  }
  // Outside everything near the scene, and far away.
  q.push_back(Box{{core.max.x + 10.0f, core.min.y, core.min.z}, {core.max.x + 20.0f, core.max.y, core.max.z}});
  q.push_back(Box{{1e7f, 1e7f, 1e7f}, {2e7f, 2e7f, 2e7f}});
  q.push_back(Box{{-3e9f, -3e9f, -3e9f}, {-2e9f, -2e9f, -2e9f}});
  q.push_back(Box{{1e30f, 1e30f, 1e30f}, {kInf, kInf, kInf}});
  // Invalid: these overlap nothing.
  q.push_back(Box{{kNaN, 0, 0}, {1, 1, 1}});
  q.push_back(Box{{-kInf, -kInf, -kInf}, {kInf, kNaN, kInf}});
  q.push_back(Box{{1, 0, 0}, {0, 1, 1}});
  q.push_back(Box{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}});
  q.push_back(Box{core.max, core.min});
  return q;
}

std::vector<Segment> query_segments(std::span<const Box> scene, std::uint32_t random_count,
                                    std::uint64_t seed) {
  Rng rng(seed * 104729u + 5u);
  const Box core = core_bounds(scene);
  const auto near = near_valid_boxes(scene);
  double lo[3];
  double hi[3];
  double ext[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = axis_of(core.min, a);
    hi[a] = axis_of(core.max, a);
    ext[a] = std::max(hi[a] - lo[a], 1e-3);
  }
  const Box ray{};  // a plain ray: extent {0,0,0}-{0,0,0}
  std::vector<Segment> s;

  // Random rays, short and long.
  for (std::uint32_t i = 0; i < random_count; ++i) {
    const Vec3 a = random_point(rng, core, 0.3);
    if (rng.chance(0.5)) {
      s.push_back(Segment{a, random_point(rng, core, 0.3), ray});
    } else {
      const double len = std::exp(rng.uniform(std::log(1e-4), std::log(0.2)));
      const Vec3 b{finite_f(a.x + rng.uniform(-1, 1) * ext[0] * len),
                   finite_f(a.y + rng.uniform(-1, 1) * ext[1] * len),
                   finite_f(a.z + rng.uniform(-1, 1) * ext[2] * len)};
      s.push_back(Segment{a, b, ray});
    }
  }
  // Zero-length: random points and box corners.
  for (int i = 0; i < 8; ++i) {
    const Vec3 p = random_point(rng, core, 0.05);
    s.push_back(Segment{p, p, ray});
  }
  for (int i = 0; i < 8 && !near.empty(); ++i) {
    const Box& b = *near[rng.below(static_cast<std::uint32_t>(near.size()))];
    s.push_back(Segment{b.max, b.max, ray});
    s.push_back(Segment{b.min, b.min, ray});
  }
  // Axis-aligned rays across the whole scene at random positions.
  for (int i = 0; i < 12; ++i) {
    const int axis = static_cast<int>(rng.below(3));
    Vec3 a = random_point(rng, core, 0.0);
    Vec3 b = a;
    set_axis(a, axis, finite_f(lo[axis] - 0.1 * ext[axis]));
    set_axis(b, axis, finite_f(hi[axis] + 0.1 * ext[axis]));
    if (rng.chance(0.5)) std::swap(a, b);
    s.push_back(Segment{a, b, ray});
  }
  // Rays exactly along box faces and edges.
  for (int i = 0; i < 16 && !near.empty(); ++i) {
    const Box& box = *near[rng.below(static_cast<std::uint32_t>(near.size()))];
    const int axis = static_cast<int>(rng.below(3));
    Vec3 a = rng.chance(0.5) ? box.max : box.min;
    if (rng.chance(0.5)) set_axis(a, (axis + 1) % 3, box.min[(axis + 1) % 3]);
    Vec3 b = a;
    set_axis(a, axis, finite_f(lo[axis] - 1.0));
    set_axis(b, axis, finite_f(hi[axis] + 1.0));
    s.push_back(Segment{a, b, ray});
    // Ending exactly on the face, from outside.
    Vec3 c = a;
    set_axis(c, axis, box.min[axis]);
    s.push_back(Segment{a, c, ray});
  }
  // Rays along likely cell boundaries. A grid fitted to the scene splits a box in 4^level equal
  // parts per axis; which box is a guess, so try three: the core bounds per axis, the cube on
  // the core's min corner, and the cube on the box centres' min corner (a root fitted to the
  // centres, as for scenes of points).
  double frame_lo[3][3];
  double frame_size[3][3];
  {
    double centre_lo[3] = {lo[0], lo[1], lo[2]};
    double centre_hi[3] = {hi[0], hi[1], hi[2]};
    if (!near.empty()) {
      for (int ax = 0; ax < 3; ++ax) {
        centre_lo[ax] = std::numeric_limits<double>::infinity();
        centre_hi[ax] = -std::numeric_limits<double>::infinity();
      }
      for (const Box* x : near) {
        for (int ax = 0; ax < 3; ++ax) {
          const double mid = 0.5 * axis_of(x->min, ax) + 0.5 * axis_of(x->max, ax);
          centre_lo[ax] = std::min(centre_lo[ax], mid);
          centre_hi[ax] = std::max(centre_hi[ax], mid);
        }
      }
    }
    const double cube = std::max({ext[0], ext[1], ext[2]});
    const double centre_cube = std::max({centre_hi[0] - centre_lo[0], centre_hi[1] - centre_lo[1],
                                         centre_hi[2] - centre_lo[2], 1e-3});
    for (int ax = 0; ax < 3; ++ax) {
      frame_lo[0][ax] = lo[ax];
      frame_size[0][ax] = ext[ax];
      frame_lo[1][ax] = lo[ax];
      frame_size[1][ax] = cube;
      frame_lo[2][ax] = centre_lo[ax];
      frame_size[2][ax] = centre_cube;
    }
  }
  for (int i = 0; i < 48; ++i) {
    const int frame = i % 3;
    const double* flo = frame_lo[frame];
    const double* fsize = frame_size[frame];
    const int level = 1 + static_cast<int>(rng.below(5));
    const double parts = std::pow(4.0, level);
    // A lattice line within the core (cube frames reach beyond it on the shorter axes).
    const auto line = [&](int ax) {
      const double reach = std::min(parts, std::ceil(ext[ax] / fsize[ax] * parts));
      return f(flo[ax] + fsize[ax] * std::floor(rng.uniform(0, reach + 1)) / parts);
    };
    const int axis = static_cast<int>(rng.below(3));
    const int o1 = (axis + 1) % 3;
    const int o2 = (axis + 2) % 3;
    Vec3 a{};
    set_axis(a, o1, line(o1));
    set_axis(a, o2, line(o2));
    Vec3 b = a;
    set_axis(a, axis, finite_f(lo[axis] - 0.5 * ext[axis]));
    set_axis(b, axis, finite_f(hi[axis] + 0.5 * ext[axis]));
    s.push_back(Segment{a, b, ray});
    // And a diagonal from one lattice point to another.
    Vec3 c{};
    Vec3 d{};
    for (int ax = 0; ax < 3; ++ax) {
      set_axis(c, ax, line(ax));
      set_axis(d, ax, line(ax));
    }
    s.push_back(Segment{c, d, ray});
  }
  // Diagonals across the whole scene, corner to corner, and beyond the corners.
  s.push_back(Segment{core.min, core.max, ray});
  s.push_back(Segment{core.max, core.min, ray});
  s.push_back(Segment{{core.min.x, core.max.y, core.min.z}, {core.max.x, core.min.y, core.max.z}, ray});
  s.push_back(Segment{{core.max.x, core.min.y, core.max.z}, {core.min.x, core.max.y, core.min.z}, ray});
  s.push_back(Segment{vec(lo[0] - ext[0], lo[1] - ext[1], lo[2] - ext[2]),
                      vec(hi[0] + ext[0], hi[1] + ext[1], hi[2] + ext[2]), ray});
  // Long rays from far outside through the scene, and rays entirely far away.
  const Vec3 mid = vec((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
  s.push_back(Segment{{-1e6f, mid.y, mid.z}, {1e6f, mid.y, mid.z}, ray});
  s.push_back(Segment{{mid.x, -1e18f, mid.z}, {mid.x, 1e18f, mid.z}, ray});
  s.push_back(Segment{{-FLT_MAX, mid.y, mid.z}, {FLT_MAX, mid.y, mid.z}, ray});
  s.push_back(Segment{{-1e9f, -1e9f, -1e9f}, {1e9f, 1e9f, 1e9f}, ray});
  s.push_back(Segment{{1e7f, 1e7f, 1e7f}, {2e7f, 2e7f, 2e7f}, ray});
  s.push_back(Segment{{-1e30f, 0, 0}, {-1e29f, 5, 5}, ray});
  s.push_back(Segment{{mid.x, mid.y, 1e18f}, {mid.x, mid.y, 1e18f}, ray});
  // Swept boxes: symmetric extents, extents not containing the origin, point extents off it.
  for (std::uint32_t i = 0; i < random_count / 2 + 4; ++i) {
    const Vec3 a = random_point(rng, core, 0.3);
    const Vec3 b = rng.chance(0.2) ? a : random_point(rng, core, 0.3);
    double e_lo[3];
    double e_hi[3];
    const double size = std::exp(rng.uniform(std::log(1e-4), std::log(0.1)));
    const int kind = static_cast<int>(rng.below(3));
    for (int ax = 0; ax < 3; ++ax) {
      const double h = ext[ax] * size * rng.uniform(0.2, 1.0);
      if (kind == 0) {
        e_lo[ax] = -h;
        e_hi[ax] = h;
      } else if (kind == 1) {  // entirely on one side of the origin
        const double off = ext[ax] * size * rng.uniform(0.5, 3.0) * (rng.chance(0.5) ? 1 : -1);
        e_lo[ax] = off - h / 2;
        e_hi[ax] = off + h / 2;
        if (e_lo[ax] <= 0 && e_hi[ax] >= 0) e_lo[ax] = e_hi[ax] = off;
      } else {  // a point off the origin
        e_lo[ax] = e_hi[ax] = ext[ax] * size * rng.uniform(-2.0, 2.0);
      }
    }
    s.push_back(Segment{a, b, Box{vec(e_lo[0], e_lo[1], e_lo[2]), vec(e_hi[0], e_hi[1], e_hi[2])}});
  }
  // Swept along a box face: a unit cube extent sliding with its face flush on the box's face.
  for (int i = 0; i < 6 && !near.empty(); ++i) {
    const Box& box = *near[rng.below(static_cast<std::uint32_t>(near.size()))];
    const Box cube{{0, 0, 0}, {1, 1, 1}};
    // The cube's min y equals the box's max y all along the way.
    s.push_back(Segment{{f(lo[0] - 2), box.max.y, box.min.z}, {f(hi[0] + 2), box.max.y, box.min.z}, cube});
  }
  // Invalid segments: they hit nothing.
  s.push_back(Segment{{kNaN, 0, 0}, {1, 1, 1}, ray});
  s.push_back(Segment{core.min, {core.max.x, kNaN, core.max.z}, ray});
  s.push_back(Segment{{-kInf, mid.y, mid.z}, {kInf, mid.y, mid.z}, ray});
  s.push_back(Segment{core.min, {kInf, core.max.y, core.max.z}, ray});
  s.push_back(Segment{core.min, core.max, Box{{1, 1, 1}, {0, 0, 0}}});
  s.push_back(Segment{core.min, core.max, Box{{0, 0, kNaN}, {1, 1, 1}}});
  s.push_back(Segment{core.min, core.max, Box{{-kInf, 0, 0}, {1, 1, 1}}});
  s.push_back(Segment{core.min, core.max, Box{{0, 0, 0}, {1, kInf, 1}}});
  return s;
}

std::vector<Box> invalid_box_kinds() {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float snan = std::numeric_limits<float>::signaling_NaN();
  const float nnan = -qnan;
  std::vector<Box> out;
  const Box unit{{0, 0, 0}, {1, 1, 1}};
  // One NaN in each of the six coordinates, of each NaN flavour.
  for (float nan : {qnan, snan, nnan}) {
    for (int a = 0; a < 3; ++a) {
      Box b = unit;
      set_axis(b.min, a, nan);
      out.push_back(b);
      b = unit;
      set_axis(b.max, a, nan);
      out.push_back(b);
    }
  }
  out.push_back(Box{{qnan, qnan, qnan}, {qnan, qnan, qnan}});
  out.push_back(Box{{-kInf, -kInf, -kInf}, {kInf, kInf, qnan}});
  out.push_back(Box{{qnan, -kInf, -kInf}, {kInf, kInf, kInf}});
  out.push_back(Box{{-1e18f, qnan, -1e18f}, {1e18f, 0, 1e18f}});
  // Inverted on one axis: by a lot, by one ulp, infinite ends.
  for (int a = 0; a < 3; ++a) {
    Box b = unit;
    set_axis(b.min, a, 2.0f);
    out.push_back(b);
    b = unit;
    set_axis(b.min, a, std::nextafter(1.0f, 2.0f));
    out.push_back(b);
    b = Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}};
    set_axis(b.min, a, kInf);
    set_axis(b.max, a, -kInf);
    out.push_back(b);
    b = unit;
    set_axis(b.min, a, kInf);
    out.push_back(b);
    b = unit;
    set_axis(b.max, a, -kInf);
    out.push_back(b);
  }
  out.push_back(Box{{1, 1, 1}, {0, 0, 0}});
  out.push_back(Box{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}});
  out.push_back(Box{{FLT_MAX, 0, 0}, {-FLT_MAX, 1, 1}});
  out.push_back(Box{{1e18f, -1e18f, -1e18f}, {-1e18f, 1e18f, 1e18f}});
  out.push_back(Box{{std::numeric_limits<float>::denorm_min(), 0, 0}, {0, 1, 1}});
  out.push_back(Box{{0.0f, 0, 0}, {-std::numeric_limits<float>::denorm_min(), 1, 1}});
  // Mixtures: inverted and NaN at once, inverted with a plane-sized box.
  out.push_back(Box{{5, qnan, 0}, {4, 1, 1}});
  out.push_back(Box{{-1e18f, -1e18f, 1e18f}, {1e18f, 1e18f, -1e18f}});
  return out;
}

std::vector<Box> extreme_boxes(const Box& bounds) {
  const float denorm = std::numeric_limits<float>::denorm_min();
  const float min_normal = std::numeric_limits<float>::min();
  const float mx = finite_f((axis_of(bounds.min, 0) + axis_of(bounds.max, 0)) * 0.5);
  const float my = finite_f((axis_of(bounds.min, 1) + axis_of(bounds.max, 1)) * 0.5);
  const float mz = finite_f((axis_of(bounds.min, 2) + axis_of(bounds.max, 2)) * 0.5);
  std::vector<Box> out;
  out.push_back(Box{{-kInf, -kInf, -kInf}, {kInf, kInf, kInf}});
  out.push_back(Box{{-kInf, -kInf, -kInf}, {kInf, my, kInf}});             // half-space y <= my
  out.push_back(Box{{-1e18f, -1e18f, -1e18f}, {1e18f, bounds.min.y, 1e18f}});  // ground plane
  out.push_back(Box{{mx, -1e18f, -1e18f}, {1e18f, 1e18f, 1e18f}});
  out.push_back(Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, mz}});
  out.push_back(Box{{mx, my, -kInf}, {mx, my, kInf}});                     // an infinite line
  out.push_back(Box{{mx, my, mz}, {kInf, kInf, kInf}});                    // an octant
  out.push_back(Box{{kInf, kInf, kInf}, {kInf, kInf, kInf}});              // points at infinity
  out.push_back(Box{{-kInf, -kInf, -kInf}, {-kInf, -kInf, -kInf}});
  out.push_back(Box{{kInf, 0, 0}, {kInf, kInf, kInf}});
  out.push_back(Box{{FLT_MAX, FLT_MAX, FLT_MAX}, {FLT_MAX, FLT_MAX, FLT_MAX}});
  out.push_back(Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}});
  out.push_back(Box{{1e18f, 1e18f, 1e18f}, {kInf, kInf, kInf}});
  // Denormal and tiny coordinates around the origin; boxes meeting exactly at 0 and -0.
  out.push_back(Box{{-denorm, -denorm, -denorm}, {denorm, denorm, denorm}});
  out.push_back(Box{{0.0f, 0.0f, 0.0f}, {min_normal, min_normal, min_normal}});
  out.push_back(Box{{-1e-40f, -1e-40f, -1e-40f}, {-0.0f, -0.0f, -0.0f}});
  out.push_back(Box{{denorm, denorm, denorm}, {2 * denorm, 2 * denorm, 2 * denorm}});
  out.push_back(Box{{-1e-38f, 0, 0}, {-denorm, 1, 1}});
  // Far offsets, where float spacing is large.
  out.push_back(Box{{1e7f, 1e7f, 1e7f}, {1e7f + 1, 1e7f + 1, 1e7f + 1}});
  out.push_back(Box{{1e7f + 1, 1e7f, 1e7f}, {1e7f + 2, 1e7f + 1, 1e7f + 1}});  // touches the previous
  out.push_back(Box{{-1e7f, -1e7f, -1e7f}, {-1e7f, -1e7f, -1e7f}});
  out.push_back(Box{{3e30f, -3e30f, 0}, {3e30f, -3e30f, 1}});
  out.push_back(Box{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}});
  return out;
}

Mixed mix_in(std::span<const Box> good, std::span<const Box> bad, std::uint64_t seed) {
  Rng rng(seed * 6364136223846793005ull + 1442695040888963407ull);
  Mixed m;
  m.boxes.reserve(good.size() + bad.size());
  m.position_of_good.reserve(good.size());
  std::size_t g = 0;
  std::size_t b = 0;
  while (g < good.size() || b < bad.size()) {
    const std::size_t left = (good.size() - g) + (bad.size() - b);
    const bool take_bad = b < bad.size() && rng.uniform() * static_cast<double>(left) <
                                               static_cast<double>(bad.size() - b);
    if (take_bad) {
      m.boxes.push_back(bad[b++]);
    } else {
      m.position_of_good.push_back(static_cast<std::uint32_t>(m.boxes.size()));
      m.boxes.push_back(good[g++]);
    }
  }
  return m;
}

Config make_config(std::uint32_t leaf_capacity, std::uint32_t big_span, std::uint32_t sweep_threshold,
                   float max_staying_share, float max_copies_per_box) {
  Config c;
  c.leaf_capacity = leaf_capacity;
  c.big_span = big_span;
  c.sweep_threshold = sweep_threshold;
  c.max_staying_share = max_staying_share;
  c.max_copies_per_box = max_copies_per_box;
  return c;
}

std::vector<Config> all_config_combinations() {
  const Config d;
  const std::pair<float, float> splitting[] = {
      {d.max_staying_share, d.max_copies_per_box}, {0.0f, 1.0f}, {1.0f, 8.0f}};
  std::vector<Config> out;
  for (std::uint32_t lc : {1u, 2u, 16u, 1000u}) {
    for (std::uint32_t bs : {1u, 2u}) {
      for (std::uint32_t st : {2u, 64u, 100000u}) {
        for (const auto& [share, copies] : splitting) out.push_back(make_config(lc, bs, st, share, copies));
      }
    }
  }
  return out;
}

std::vector<Config> some_configs() {
  return {Config{},
          make_config(1, 1, 2),
          make_config(2, 2, 64, 0.0f, 1.0f),
          make_config(1000, 2, 100000, 1.0f, 8.0f),
          make_config(16, 1, 2, 1.0f, 1.0f),
          make_config(1, 2, 2, 0.0f, 8.0f)};
}

std::string name(const Config& config) {
  std::string s("lc");
  s += std::to_string(config.leaf_capacity);
  s += "_bs";
  s += std::to_string(config.big_span);
  s += "_st";
  s += std::to_string(config.sweep_threshold);
  const auto hundredths = [](float v) {
    return std::isfinite(v) ? std::to_string(std::lround(static_cast<double>(v) * 100)) : std::string("nonfinite");
  };
  s += "_sh";
  s += hundredths(config.max_staying_share);
  s += "_cp";
  s += hundredths(config.max_copies_per_box);
  return s;
}

namespace {

std::string describe(const Pair& p, std::span<const Box> boxes) {
  std::ostringstream os;
  PrintTo(p, &os);
  if (p.first < boxes.size() && p.second < boxes.size()) {
    os << " ";
    PrintTo(boxes[p.first], &os);
    os << " ";
    PrintTo(boxes[p.second], &os);
  }
  return os.str();
}

std::string describe(std::uint32_t i, std::span<const Box> boxes) {
  std::ostringstream os;
  os << i;
  if (i < boxes.size()) {
    os << " ";
    PrintTo(boxes[i], &os);
  }
  return os.str();
}

template <class T>
::testing::AssertionResult same_sequence(const char* what, const std::vector<T>& expected,
                                         const std::vector<T>& actual, std::span<const Box> boxes) {
  if (expected == actual) return ::testing::AssertionSuccess();
  auto r = ::testing::AssertionFailure();
  r << what << " differ: expected " << expected.size() << ", got " << actual.size() << ".";
  const std::size_t common = std::min(expected.size(), actual.size());
  std::size_t first = 0;
  while (first < common && expected[first] == actual[first]) ++first;
  r << " First difference at position " << first << ".";
  if (!std::is_sorted(actual.begin(), actual.end())) r << " The result is NOT sorted.";
  if (std::adjacent_find(actual.begin(), actual.end()) != actual.end()) {
    r << " The result has adjacent duplicates.";
  }
  std::vector<T> e = expected;
  std::vector<T> a = actual;
  std::sort(e.begin(), e.end());
  std::sort(a.begin(), a.end());
  std::vector<T> missing;
  std::vector<T> extra;
  std::set_difference(e.begin(), e.end(), a.begin(), a.end(), std::back_inserter(missing));
  std::set_difference(a.begin(), a.end(), e.begin(), e.end(), std::back_inserter(extra));
  r << "\n  missing " << missing.size() << ", extra " << extra.size();
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 8); ++i) {
    r << "\n  missing " << describe(missing[i], boxes);
  }
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 8); ++i) {
    r << "\n  extra   " << describe(extra[i], boxes);
  }
  return r;
}

}  // namespace

::testing::AssertionResult same_pairs(const std::vector<Pair>& expected,
                                      const std::vector<Pair>& actual, std::span<const Box> boxes) {
  return same_sequence("pairs", expected, actual, boxes);
}

::testing::AssertionResult same_indices(const std::vector<std::uint32_t>& expected,
                                        const std::vector<std::uint32_t>& actual,
                                        std::span<const Box> boxes) {
  return same_sequence("indices", expected, actual, boxes);
}

::testing::AssertionResult no_duplicates(std::vector<std::uint32_t> indices) {
  std::sort(indices.begin(), indices.end());
  const auto dup = std::adjacent_find(indices.begin(), indices.end());
  if (dup == indices.end()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "index " << *dup << " reported more than once";
}

::testing::AssertionResult grid_pairs_match(Grid& grid, std::span<const Box> boxes,
                                            const std::vector<Pair>& expected) {
  // Pre-filled with junk: find_pairs must replace the contents, not append.
  std::vector<Pair> found(3, Pair{7, 9});
  grid.find_pairs(found);
  if (auto r = same_pairs(expected, found, boxes); !r) return r << "\n  (Grid::find_pairs)";
  std::vector<Pair> visited;
  visited.reserve(expected.size());
  grid.for_each_pair([&](Pair p) { visited.push_back(p); });
  if (auto r = same_pairs(expected, visited, boxes); !r) return r << "\n  (Grid::for_each_pair)";
  return ::testing::AssertionSuccess();
}

void in_arena(int threads, const std::function<void()>& work) {
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  arena.execute(work);
}

}  // namespace agrid::test
