// The catalogue of hard input. Each entry is a kind of box that broke, or could break, a
// broadphase: the tests run every algorithm on all of them against brute force.

#include "agrid_scenes/adversarial.h"

#include <algorithm>
#include <cmath>

namespace agrid::scenes {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();
/// A denormal well above the smallest one.
constexpr float kDenormal = 1e-40f;
/// A float just above the denormals' range.
constexpr float kNearMinNormal = 1e-38f;
/// Bullet's BT_LARGE_FLOAT: a static plane's AABB reaches this far on every axis.
constexpr float kBulletLarge = 1e18f;
/// Far beyond any scene and still finite: differences and products of such coordinates overflow.
constexpr float kFar = 1e30f;
/// Farther still, for a lone point.
constexpr float kFarther = 3e30f;
/// Where a float's step is 1: sizes below one round away.
constexpr float kCoarse = 1e7f;
/// Half the side of an enormous but ordinary box.
constexpr float kEnormous = 1e6f;
/// A chain of boxes out at kFar: kChainSize long and kChainStep apart, so that neighbours overlap.
constexpr int kChainLength = 4;
constexpr double kChainStep = 5e23;
constexpr double kChainSize = 1e24;

Box cube(float lo, float hi) { return {{lo, lo, lo}, {hi, hi, hi}}; }

void set_axis(Vec3& v, int axis, float value) {
  if (axis == 0) v.x = value;
  if (axis == 1) v.y = value;
  if (axis == 2) v.z = value;
}

/// a + b in double, rounded once and kept finite.
float finite_sum(double a, double b) {
  return static_cast<float>(std::clamp(a + b, -static_cast<double>(FLT_MAX), static_cast<double>(FLT_MAX)));
}

/// The midpoint of a and b per axis, finite.
Vec3 midpoint(const Vec3& a, const Vec3& b) {
  const auto mid = [](float u, float v) { return finite_sum(0.5 * static_cast<double>(u), 0.5 * static_cast<double>(v)); };
  return {mid(a.x, b.x), mid(a.y, b.y), mid(a.z, b.z)};
}

}  // namespace

std::vector<Box> invalid_boxes() {
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
  out.push_back(cube(qnan, qnan));
  // A NaN in each coordinate of the box of all space.
  for (int a = 0; a < 3; ++a) {
    Box b = cube(-kInf, kInf);
    set_axis(b.min, a, qnan);
    out.push_back(b);
    b = cube(-kInf, kInf);
    set_axis(b.max, a, qnan);
    out.push_back(b);
  }
  out.push_back(Box{{-kBulletLarge, qnan, -kBulletLarge}, {kBulletLarge, 0, kBulletLarge}});
  // Inverted on one axis: by a lot, by one ulp, infinite ends.
  for (int a = 0; a < 3; ++a) {
    Box b = unit;
    set_axis(b.min, a, 2.0f);
    out.push_back(b);
    b = unit;
    set_axis(b.min, a, std::nextafter(1.0f, 2.0f));
    out.push_back(b);
    b = cube(-kInf, kInf);
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
  // Inverted on all axes, or between the largest or smallest magnitudes.
  out.push_back(cube(1, 0));
  out.push_back(cube(kInf, -kInf));
  out.push_back(Box{{FLT_MAX, 0, 0}, {-FLT_MAX, 1, 1}});
  out.push_back(Box{{kBulletLarge, -kBulletLarge, -kBulletLarge}, {-kBulletLarge, kBulletLarge, kBulletLarge}});
  out.push_back(Box{{kDenormMin, 0, 0}, {0, 1, 1}});
  out.push_back(Box{{0.0f, 0, 0}, {-kDenormMin, 1, 1}});
  // Mixtures: inverted and NaN at once, inverted with a plane-sized box.
  out.push_back(Box{{5, qnan, 0}, {4, 1, 1}});
  out.push_back(Box{{-kBulletLarge, -kBulletLarge, kBulletLarge}, {kBulletLarge, kBulletLarge, -kBulletLarge}});
  return out;
}

std::vector<Box> huge_boxes(const Box& bounds) {
  const Vec3 m = midpoint(bounds.min, bounds.max);
  const Vec3 q = midpoint(m, bounds.max);  // three quarters of the way across
  const Vec3& lo = bounds.min;
  std::vector<Box> out = {
      cube(-kInf, kInf),                                     // all of space
      Box{{-kInf, -kInf, -kInf}, {kInf, m.y, kInf}},         // the half-space y <= m.y
      Box{m, {kInf, kInf, kInf}},                            // an octant
      Box{{-kInf, m.y, -kInf}, {kInf, q.y, kInf}},           // an infinite slab
      Box{{m.x, m.y, -kInf}, {q.x, q.y, kInf}},              // an infinite rod
      Box{{m.x, m.y, -kInf}, {m.x, m.y, kInf}},              // an infinite line
      Box{{-kInf, lo.y, lo.z}, m},                           // infinite towards -x only
      Box{{lo.x, m.y, lo.z}, {m.x, kInf, m.z}},              // infinite towards +y only
      cube(-kBulletLarge, kBulletLarge),                     // Bullet's static plane, all of space
      Box{{-kBulletLarge, -kBulletLarge, -kBulletLarge}, {kBulletLarge, lo.y, kBulletLarge}},  // a ground plane
      Box{{m.x, -kBulletLarge, -kBulletLarge}, {kBulletLarge, kBulletLarge, kBulletLarge}},
      Box{{kBulletLarge, kBulletLarge, kBulletLarge}, {kInf, kInf, kInf}},  // an octant far out
      cube(-FLT_MAX, FLT_MAX),
      Box{{-FLT_MAX, -FLT_MAX, -FLT_MAX}, {FLT_MAX, FLT_MAX, m.z}},
      Box{{-FLT_MAX, lo.y, lo.z}, m},                        // out to -FLT_MAX on one side
      Box{{finite_sum(m.x, -kEnormous), finite_sum(m.y, -kEnormous), finite_sum(m.z, -kEnormous)},
          {finite_sum(m.x, kEnormous), finite_sum(m.y, kEnormous), finite_sum(m.z, kEnormous)}},
      cube(-kFar, kFar),
      Box{m, {kFar, kFar, kFar}},                            // out to 1e30
      Box{{-kFar, m.y, -kFar}, {kFar, q.y, kFar}},           // a plane 1e30 across
  };
  for (int k = 0; k < kChainLength; ++k) {  // overlapping neighbours out at 1e30
    const double min = static_cast<double>(kFar) + k * kChainStep;
    out.push_back(cube(static_cast<float>(min), static_cast<float>(min + kChainSize)));
  }
  out.push_back(Box{{kFar, m.y, m.z}, {kFar, q.y, q.z}});  // touches the face of [m, 1e30]^3
  out.push_back(Box{{-kFar, m.y, m.z}, {finite_sum(-kFar, 1.0), q.y, q.z}});  // size 1 rounds away in x
  return out;
}

std::vector<Box> tiny_and_far_boxes(const Box& bounds) {
  const Vec3 m = midpoint(bounds.min, bounds.max);
  const Vec3& lo = bounds.min;
  return {
      // Points and faces at infinity and at the largest floats.
      cube(kInf, kInf),
      cube(-kInf, -kInf),
      Box{{kInf, m.y, m.z}, {kInf, kInf, kInf}},
      Box{{-kInf, lo.y, lo.z}, {-kInf, m.y, m.z}},
      cube(FLT_MAX, FLT_MAX),
      cube(-FLT_MAX, -FLT_MAX),
      // Denormal and tiny coordinates around the origin; boxes meeting exactly at 0 and -0.
      cube(-kDenormMin, kDenormMin),
      cube(kDenormMin, kDenormMin),
      cube(kDenormMin, 2 * kDenormMin),
      cube(-kDenormMin, 0),
      cube(kDenormMin, FLT_MIN),
      cube(0.0f, FLT_MIN),
      cube(0.0f, kDenormal),
      cube(-kDenormal, -0.0f),
      cube(0.0f, -0.0f),  // valid: 0 <= -0
      Box{{-kNearMinNormal, 0, 0}, {-kDenormMin, 1, 1}},
      // Far offsets, where a float's step is 1 or more.
      cube(kCoarse, kCoarse + 1),
      Box{{kCoarse + 1, kCoarse, kCoarse}, {kCoarse + 2, kCoarse + 1, kCoarse + 1}},  // touches the previous
      cube(-kCoarse, -kCoarse),
      Box{{kFarther, -kFarther, 0}, {kFarther, -kFarther, 1}},
  };
}

std::vector<Box> extreme_boxes(const Box& bounds) {
  std::vector<Box> out = huge_boxes(bounds);
  const std::vector<Box> tiny = tiny_and_far_boxes(bounds);
  out.insert(out.end(), tiny.begin(), tiny.end());
  return out;
}

}  // namespace agrid::scenes
