#include "support/random_scenes.h"

#include <algorithm>
#include <cmath>

#include "support/coordinates.h"

namespace agrid::test {

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

}  // namespace agrid::test
