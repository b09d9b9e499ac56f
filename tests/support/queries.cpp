#include "support/queries.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "agrid_scenes/adversarial.h"
#include "support/coordinates.h"
#include "support/random_scenes.h"
#include "support/scene_bounds.h"

namespace agrid::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// The scene's ordinary boxes (in_core), to touch and graze.
std::vector<const Box*> core_boxes(std::span<const Box> boxes) {
  std::vector<const Box*> out;
  for (const Box& x : boxes) {
    if (in_core(x)) out.push_back(&x);
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

}  // namespace

std::vector<Box> query_boxes(std::span<const Box> scene, std::uint32_t random_count,
                             std::uint64_t seed) {
  Rng rng(seed * 7919u + 17u);
  const Box core = core_bounds(scene);
  const auto near = core_boxes(scene);
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
  for (const Box& b : scenes::invalid_boxes()) q.push_back(b);
  q.push_back(Box{core.max, core.min});
  return q;
}

std::vector<Segment> query_segments(std::span<const Box> scene, std::uint32_t random_count,
                                    std::uint64_t seed) {
  Rng rng(seed * 104729u + 5u);
  const Box core = core_bounds(scene);
  const auto near = core_boxes(scene);
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
      const Vec3 b{finite_f(a.x + rng.uniform(-1.0, 1.0) * ext[0] * len),
                   finite_f(a.y + rng.uniform(-1.0, 1.0) * ext[1] * len),
                   finite_f(a.z + rng.uniform(-1.0, 1.0) * ext[2] * len)};
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

}  // namespace agrid::test
