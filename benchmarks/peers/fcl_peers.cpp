// fcl-dynamic-tree, fcl-sap, fcl-interval-tree, fcl-spatial-hash: FCL 0.7's broadphase managers
// (DynamicAABBTree, SaP, IntervalTree, SpatialHashing CollisionManager) over one
// fcl::CollisionObject per valid box, an fcl::Box with the box's extents at its centre, the box
// index in the object's user data. prepare() makes the objects (a user's world exists before a
// frame); find_pairs times a fresh manager: registerObjects, setup, collide with a callback that
// records each pair, and the manager's teardown.
//
// FCL traps, each handled here rather than refused:
// - An object's AABB is centre ± half side in double, which rounds (and may shrink, losing a pair)
//   when a box's min and max differ greatly in magnitude; an infinite side gives a NaN centre.
//   Infinite coordinates become ±kFar, and each object's AABB is set to its box exactly.
// - SaP and the interval tree sort endpoints by value alone, so a max equal to another box's min
//   lands on either side of it and a touching pair may be lost (a flat box may even end before it
//   starts). Each AABB's max is raised by one double ulp: no float lies in between, so the
//   overlaps of float boxes are unchanged, but no max ties a min any more.
// - The spatial hash gives a box the cells [floor, ceil) of its bounds over the cell size, so a box
//   whose max lies on a cell boundary misses the cell where a touching box starts, and a flat box
//   on a boundary gets no cell at all; and it hands the callback every object sharing a hash
//   bucket, overlapping or not. Its AABBs are hashed a little larger (kHashGrowth) and its callback
//   tests the boxes, as the narrowphase an FCL user runs there would.
// - Costs: SaP's registration walks a linked list of endpoints from each box's min to its max
//   (and on to the end of the list from a box holding no other box's min), a cache miss a step;
//   the interval tree sweeps the axis of least extent (its axis test compares negated extents)
//   over a std::set of open boxes; the hash has 1000 buckets unless told (one per box here).
//   estimated_seconds() counts each one's work on the boxes, so that hours are skipped.

#include <fcl/broadphase/broadphase_SaP.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_interval_tree.h>
#include <fcl/broadphase/broadphase_spatialhash.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "agrid/agrid.h"
#include "peers_impl.h"

namespace agrid::peers {
namespace {

using Object = fcl::CollisionObject<double>;

/// Stands for an infinite coordinate: far past any float (FLT_MAX is 3.4e38), so that order is
/// kept, yet finite, so that FCL's centres, sizes and volumes (kFar^3 = 1e300) stay numbers.
constexpr double kFar = 1e100;
/// Coordinates past this magnitude keep a box out of the spatial hash's scene limit (FCL compares
/// boxes outside the limit with the boxes on its border instead): a limit stretched to the 1e30
/// of the adversarial scenes would need 1e30 cells per axis. Floats at 1e6 are 1/16 apart.
constexpr double kSceneLimit = 1e6;
/// The hash's cell edge over the median longest edge of the boxes: cells about the size of a
/// typical box, each box in 1 to 8 cells.
constexpr double kCellPerMedianEdge = 1.0;
/// Cells per box, on average, beyond which the hash's cells grow: a box of the median size
/// touches 1 to 8.
constexpr double kMaxCellsPerBox = 64.0;
/// The cell edge when the median box is a point (the cap below still bounds the cell count).
constexpr double kPointCell = 1.0;
/// A box longer than this many cells is left out of the scene limit's extent (FCL hashes it into
/// the cells it covers inside the limit all the same).
constexpr double kHugeInCells = 32.0;
/// Most cells per axis of the scene limit: with more, cells grow, so that FCL's 32-bit cell keys
/// (x + y w + z w^2) stay distinct (1024^3 = 2^30); a few far boxes can make cells larger than
/// the boxes (article scenes: teapots at 9000, cells of 8.8).
constexpr double kMaxCellsPerAxis = 1024.0;
/// The hash sees each AABB's max raised by this fraction of a cell, so that a max on a cell
/// boundary reaches the cell above (FCL's cells are half-open there); the callback tests the boxes.
constexpr double kHashGrowth = 1.0 / 1024.0;
// The estimates' constants, fitted to CPU times measured on the project's machine (wall times ran
// up to twice as long while it was shared), on the benchmark scenes up to plane-cluster-562k:
/// SaP, per box (its allocations and maps): 3 us (article-20k-sparse, 0.065 s).
constexpr double kSapSecondsPerBox = 3.0e-6;
/// SaP, per step of its registration walk, at its slowest (a cache miss a step): box-pruning-100k,
/// 6.1e8 steps, 27 s; plane-cluster-562k, 8.4e8 steps, 35 s.
constexpr double kSapSecondsPerStep = 4.4e-8;
/// Interval tree, per box (three interval trees, maps and a std::set): 3.3 us; per candidate of
/// its sweep: 9 ns; per pair (each goes into a std::set of pairs first): 5.7 us. Fitted on the
/// density chart's 100k boxes in cubes of 150, 100 and 70 (2.6e8, 3.9e8, 5.6e8 candidates;
/// 0.73, 2.4, 6.8 million pairs; 6.7, 17.5, 44 s); box-pruning-100k (3.0e8, 1.1e6): 9.7 s.
constexpr double kIntervalSecondsPerBox = 3.3e-6;
constexpr double kIntervalSecondsPerCandidate = 9.0e-9;
constexpr double kIntervalSecondsPerPair = 5.7e-6;
/// Spatial hash, per box: 1.9 us; per candidate (an object and a box out of cache, a std::set
/// insertion): 0.40 us. uniform-1M, 1.45e7 candidates, 7.7 s; paper-1M-dense, 4.1e7, 18.3 s.
constexpr double kHashSecondsPerBox = 1.9e-6;
constexpr double kHashSecondsPerCandidate = 4.0e-7;

/// Which FCL broadphase manager.
enum class Manager { dynamic_tree, sap, interval_tree, spatial_hash };

/// A float coordinate in double, ±kFar for an infinity.
double widen(float c) { return std::isinf(c) ? std::copysign(kFar, c) : static_cast<double>(c); }

/// How many of the boxes are valid (FCL is given an object for each).
std::size_t count_valid(std::span<const Box> boxes) {
  return static_cast<std::size_t>(std::count_if(boxes.begin(), boxes.end(), [](const Box& b) { return is_valid(b); }));
}

/// The AABB FCL is given for a box: the box with ±kFar for infinities, its max one ulp higher
/// (and `growth` more).
fcl::AABB<double> aabb_of(const Box& b, double growth) {
  fcl::AABB<double> a;
  for (int k = 0; k < 3; ++k) {
    a.min_[k] = widen(b.min[k]);
    a.max_[k] = std::nextafter(widen(b.max[k]) + growth, HUGE_VAL);
  }
  return a;
}

/// An fcl::Box at a box's centre, whose AABB is set to aabb_of() (FCL's own rounds; see the top).
class BoxObject final : public Object {
 public:
  BoxObject(const Box& b, std::uint32_t index, double growth) : Object(geometry(b), placement(b)) {
    aabb = aabb_of(b, growth);
    setUserData(reinterpret_cast<void*>(static_cast<std::uintptr_t>(index)));
  }

  /// The box's index among the boxes.
  [[nodiscard]] static std::uint32_t index_of(const Object* o) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o->getUserData()));
  }

 private:
  /// An fcl::Box with the box's extents (kFar-wide where infinite).
  static std::shared_ptr<fcl::Box<double>> geometry(const Box& b) {
    return std::make_shared<fcl::Box<double>>(widen(b.max.x) - widen(b.min.x), widen(b.max.y) - widen(b.min.y),
                                              widen(b.max.z) - widen(b.min.z));
  }

  /// A translation to the box's centre.
  static fcl::Transform3d placement(const Box& b) {
    fcl::Transform3d t = fcl::Transform3d::Identity();
    for (int k = 0; k < 3; ++k) t.translation()[k] = 0.5 * widen(b.min[k]) + 0.5 * widen(b.max[k]);
    return t;
  }
};

/// The spatial hash's parameters, chosen from the boxes.
struct HashLayout {
  double cell = 1.0;
  fcl::Vector3d lo = fcl::Vector3d::Zero();  ///< The scene limit.
  fcl::Vector3d hi = fcl::Vector3d::Zero();
};

/// The box's longest edge as FCL sees it (kFar-wide for an infinite box).
double longest_edge(const Box& b) {
  return std::max({widen(b.max.x) - widen(b.min.x), widen(b.max.y) - widen(b.min.y), widen(b.max.z) - widen(b.min.z)});
}

/// The median longest edge of the valid boxes with finite edges, 0 if none.
double median_edge(std::span<const Box> boxes) {
  std::vector<double> edges;
  for (const Box& b : boxes) {
    if (is_valid(b) && longest_edge(b) < kFar) edges.push_back(longest_edge(b));
  }
  if (edges.empty()) return 0.0;
  const auto middle = edges.begin() + static_cast<std::ptrdiff_t>(edges.size() / 2);
  std::nth_element(edges.begin(), middle, edges.end());
  return *middle;
}

/// True iff the box is inside kSceneLimit and at most kHugeInCells cells long.
bool ordinary(const Box& b, double cell) {
  for (int k = 0; k < 3; ++k) {
    if (!(std::abs(b.min[k]) <= kSceneLimit && std::abs(b.max[k]) <= kSceneLimit)) return false;
  }
  return longest_edge(b) <= kHugeInCells * cell;
}

/// A scene limit around the ordinary boxes for cells of edge `cell` (more if it would exceed
/// kMaxCellsPerAxis), its max half a cell past a cell boundary: a box clipped flat to it still
/// gets a cell.
HashLayout hash_layout(std::span<const Box> boxes, double cell) {
  HashLayout l;
  fcl::Vector3d lo = fcl::Vector3d::Constant(HUGE_VAL);
  fcl::Vector3d hi = fcl::Vector3d::Constant(-HUGE_VAL);
  for (const Box& b : boxes) {
    if (!is_valid(b) || !ordinary(b, cell)) continue;
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], static_cast<double>(b.min[k]));
      hi[k] = std::max(hi[k], static_cast<double>(b.max[k]));
    }
  }
  if (!(lo[0] <= hi[0])) lo = hi = fcl::Vector3d::Zero();  // no ordinary box
  l.cell = std::max(cell, (hi - lo).maxCoeff() / kMaxCellsPerAxis);
  l.lo = lo;
  for (int k = 0; k < 3; ++k) l.hi[k] = lo[k] + (std::ceil((hi[k] - lo[k]) / l.cell) + 0.5) * l.cell;
  return l;
}

/// The cells [first, end) on each axis that FCL's hash gives a box (its grown AABB clipped to the
/// scene limit, [floor, ceil) over the cell edge); false for a box outside the limit, which FCL
/// compares with the boxes on the limit's border instead.
bool cell_range(const Box& b, const HashLayout& l, int first[3], int end[3]) {
  const fcl::AABB<double> a = aabb_of(b, kHashGrowth * l.cell);
  for (int k = 0; k < 3; ++k) {
    const double from = std::max(a.min_[k], l.lo[k]);
    const double to = std::min(a.max_[k], l.hi[k]);
    if (from > to) return false;
    first[k] = static_cast<int>(std::floor((from - l.lo[k]) / l.cell));
    end[k] = static_cast<int>(std::ceil((to - l.lo[k]) / l.cell));
  }
  return true;
}

/// The cells FCL's hash puts the boxes in, all told.
double cell_copies(std::span<const Box> boxes, const HashLayout& l) {
  double copies = 0;
  int first[3];
  int end[3];
  for (const Box& b : boxes) {
    if (!is_valid(b) || !cell_range(b, l, first, end)) continue;
    copies += static_cast<double>(end[0] - first[0]) * (end[1] - first[1]) * (end[2] - first[2]);
  }
  return copies;
}

/// Cells of the median box's size, doubled until the boxes fill at most kMaxCellsPerBox cells
/// each on average (a few boxes spanning a large part of the scene would fill millions).
HashLayout choose_hash_layout(std::span<const Box> boxes) {
  double cell = kCellPerMedianEdge * median_edge(boxes);
  if (!(cell > 0.0)) cell = kPointCell;
  const auto valid = static_cast<double>(count_valid(boxes));
  HashLayout l = hash_layout(boxes, cell);
  while (cell_copies(boxes, l) > kMaxCellsPerBox * valid) l = hash_layout(boxes, 2.0 * l.cell);
  return l;
}

/// The candidates FCL's hash hands its callback, about: each box meets every entry of the
/// buckets of its cells, so the sum over buckets of their entries squared. Hashes the boxes as
/// FCL does (key x + y w + z w w of each cell, modulo one bucket per box).
double hash_candidates(std::span<const Box> boxes, const HashLayout& l, std::size_t buckets) {
  std::uint32_t width[3];
  for (int k = 0; k < 3; ++k) width[k] = static_cast<std::uint32_t>(std::ceil((l.hi[k] - l.lo[k]) / l.cell));
  std::vector<std::uint32_t> entries(std::max<std::size_t>(1, buckets));
  int first[3];
  int end[3];
  for (const Box& b : boxes) {
    if (!is_valid(b) || !cell_range(b, l, first, end)) continue;
    for (int x = first[0]; x < end[0]; ++x) {
      for (int y = first[1]; y < end[1]; ++y) {
        for (int z = first[2]; z < end[2]; ++z) {
          const std::uint32_t key = static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(y) * width[0] +
                                    static_cast<std::uint32_t>(z) * width[0] * width[1];
          ++entries[key % entries.size()];
        }
      }
    }
  }
  double candidates = 0;
  for (const std::uint32_t e : entries) candidates += static_cast<double>(e) * e;
  return candidates;
}

/// Where the callback puts the pairs, and whether it tests the boxes first.
struct Collector {
  std::span<const Box> boxes;
  std::vector<Pair>* out;
  bool test_boxes;
};

/// FCL's callback: records the pair (after testing the boxes, for the hash) and goes on.
bool record(Object* a, Object* b, void* data) {
  auto& c = *static_cast<Collector*>(data);
  const std::uint32_t i = BoxObject::index_of(a);
  const std::uint32_t j = BoxObject::index_of(b);
  if (!c.test_boxes || overlaps(c.boxes[i], c.boxes[j])) c.out->push_back({std::min(i, j), std::max(i, j)});
  return false;  // never stop early
}

/// The endpoints of the valid boxes' FCL AABBs on one axis in FCL's order: (value, 1 for a max),
/// with `owner` the ordinal of each one's box among the valid boxes.
std::vector<std::pair<double, int>> sorted_endpoints(std::span<const Box> boxes, int axis, std::vector<std::uint32_t>& owner) {
  std::vector<std::pair<double, int>> ends;
  for (const Box& b : boxes) {
    if (!is_valid(b)) continue;
    const fcl::AABB<double> a = aabb_of(b, 0.0);
    ends.push_back({a.min_[axis], 0});
    ends.push_back({a.max_[axis], 1});
  }
  std::vector<std::size_t> order(ends.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return ends[p] < ends[q]; });
  std::vector<std::pair<double, int>> sorted(ends.size());
  owner.resize(ends.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    sorted[k] = ends[order[k]];
    owner[k] = static_cast<std::uint32_t>(order[k] / 2);
  }
  return sorted;
}

/// The axis of largest (SaP) or least (interval tree) extent of the FCL AABBs.
int extreme_axis(std::span<const Box> boxes, bool largest) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
  double hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (const Box& b : boxes) {
    if (!is_valid(b)) continue;
    const fcl::AABB<double> a = aabb_of(b, 0.0);
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], a.min_[k]);
      hi[k] = std::max(hi[k], a.max_[k]);
    }
  }
  int best = 0;
  for (int k = 1; k < 3; ++k) {
    const double e = hi[k] - lo[k];
    const double b = hi[best] - lo[best];
    if (largest ? e > b : e < b) best = k;
  }
  return best;
}

/// Steps of SaP's registration walk: from each box's min to its max, and from the max of each box
/// holding no other box's min to the end of the list.
double sap_steps(std::span<const Box> boxes) {
  std::vector<std::uint32_t> owner;
  const auto ends = sorted_endpoints(boxes, extreme_axis(boxes, true), owner);
  std::vector<std::size_t> start(ends.size() / 2);
  double steps = 0;
  std::size_t last_min = 0;  // position of the latest min seen
  for (std::size_t k = 0; k < ends.size(); ++k) {
    if (ends[k].second == 0) {
      start[owner[k]] = k;
      last_min = k;
      continue;
    }
    steps += static_cast<double>(k - start[owner[k]]);
    if (last_min == start[owner[k]]) steps += static_cast<double>(ends.size() - k - 1);  // no min inside
  }
  return steps;
}

/// Candidates of the interval tree's sweep: at each min, the boxes still open on the axis.
double interval_candidates(std::span<const Box> boxes) {
  std::vector<std::uint32_t> owner;
  const auto ends = sorted_endpoints(boxes, extreme_axis(boxes, false), owner);
  double open = 0;
  double candidates = 0;
  for (const auto& e : ends) {
    if (e.second == 0) {
      candidates += open;
      open += 1;
    } else {
      open -= 1;
    }
  }
  return candidates;
}

/// A new, empty manager of this kind (the hash laid out as given, a bucket per object).
std::unique_ptr<fcl::BroadPhaseCollisionManager<double>> make_manager(Manager kind, const HashLayout& layout,
                                                                      std::size_t objects) {
  switch (kind) {
    case Manager::dynamic_tree: return std::make_unique<fcl::DynamicAABBTreeCollisionManager<double>>();
    case Manager::sap: return std::make_unique<fcl::SaPCollisionManager<double>>();
    case Manager::interval_tree: return std::make_unique<fcl::IntervalTreeCollisionManager<double>>();
    case Manager::spatial_hash: break;
  }
  // One bucket per box: FCL's default of 1000 makes the hash quadratic on large scenes.
  const auto buckets = static_cast<unsigned int>(std::max<std::size_t>(1, objects));
  return std::make_unique<fcl::SpatialHashingCollisionManager<double>>(layout.cell, layout.lo, layout.hi, buckets);
}

/// True iff both spans hold the same boxes, bit for bit (so NaN boxes compare equal).
bool same_boxes(std::span<const Box> a, std::span<const Box> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

/// One of the four FCL peers: a fresh manager of one kind a call, over objects kept between calls.
class FclPeer final : public Peer {
 public:
  explicit FclPeer(Manager kind) : kind_(kind) {}

  [[nodiscard]] std::string_view name() const override {
    switch (kind_) {
      case Manager::dynamic_tree: return "fcl-dynamic-tree";
      case Manager::sap: return "fcl-sap";
      case Manager::interval_tree: return "fcl-interval-tree";
      case Manager::spatial_hash: break;
    }
    return "fcl-spatial-hash";
  }

  /// 0 for the dynamic tree (2.5 s at most: paper-1M-dense); the others count their work.
  [[nodiscard]] double estimated_seconds(std::span<const Box> boxes) const override {
    const auto valid = count_valid(boxes);
    const auto n = static_cast<double>(valid);
    switch (kind_) {
      case Manager::dynamic_tree: return 0.0;
      case Manager::sap: return kSapSecondsPerBox * n + kSapSecondsPerStep * sap_steps(boxes);
      case Manager::interval_tree: {
        // agrid counts the pairs (exactly, in milliseconds): they cost the tree the most when dense.
        const auto pairs = static_cast<double>(find_all_pairs(boxes).size());
        return kIntervalSecondsPerBox * n + kIntervalSecondsPerCandidate * interval_candidates(boxes) +
               kIntervalSecondsPerPair * pairs;
      }
      case Manager::spatial_hash: break;
    }
    return kHashSecondsPerBox * n + kHashSecondsPerCandidate * hash_candidates(boxes, choose_hash_layout(boxes), valid);
  }

  void prepare(std::span<const Box> boxes) override { make_objects(boxes); }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    if (!same_boxes(boxes, made_for_)) make_objects(boxes);
    out.clear();
    Collector collector{boxes, &out, kind_ == Manager::spatial_hash};
    {
      const auto manager = make_manager(kind_, layout_, pointers_.size());
      manager->registerObjects(pointers_);
      manager->setup();
      manager->collide(&collector, record);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

 private:
  /// An object per valid box (and, for the hash, its layout), for these boxes.
  void make_objects(std::span<const Box> boxes) {
    objects_.clear();
    pointers_.clear();
    if (kind_ == Manager::spatial_hash) layout_ = choose_hash_layout(boxes);
    const double growth = kind_ == Manager::spatial_hash ? kHashGrowth * layout_.cell : 0.0;
    for (std::uint32_t i = 0; i < boxes.size(); ++i) {
      if (!is_valid(boxes[i])) continue;
      objects_.push_back(std::make_unique<BoxObject>(boxes[i], i, growth));
      pointers_.push_back(objects_.back().get());
    }
    made_for_.assign(boxes.begin(), boxes.end());
  }

  Manager kind_;
  HashLayout layout_;
  std::vector<std::unique_ptr<BoxObject>> objects_;
  std::vector<Object*> pointers_;
  std::vector<Box> made_for_;  ///< The boxes objects_ were made for.
};

}  // namespace

std::unique_ptr<Peer> make_fcl_dynamic_tree() { return std::make_unique<FclPeer>(Manager::dynamic_tree); }
std::unique_ptr<Peer> make_fcl_sap() { return std::make_unique<FclPeer>(Manager::sap); }
std::unique_ptr<Peer> make_fcl_interval_tree() { return std::make_unique<FclPeer>(Manager::interval_tree); }
std::unique_ptr<Peer> make_fcl_spatial_hash() { return std::make_unique<FclPeer>(Manager::spatial_hash); }

}  // namespace agrid::peers
