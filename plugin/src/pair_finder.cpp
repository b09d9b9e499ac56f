#include "agrid/pair_finder.h"

#include <tbb/task_arena.h>

#include <algorithm>

#include "agrid/grid.h"
#include "agrid/tree.h"
#include "common/checked_config.h"
#include "common/recent_peak.h"
#include "common/slack_growth.h"
#include "grid/direct_pairs.h"

namespace agrid {

/// The three ways of pairing and what each was sized for. Invariant: a structure's `sized_for`
/// is the most boxes it was built over since it was made (its scratch holds room for about that
/// many); DirectPairs holds room for at most kDirectPairsMaxBoxes boxes and is never given back.
struct PairFinder::Impl {
  explicit Impl(const Config& given)
      : config(detail::checked(given)), grid(given), tree(given) {}

  /// The structure made afresh, its memory given back, if it was sized for far more than
  /// `boxes` boxes (slack_growth.h's rule).
  template <class Structure>
  void shrink_to(Structure& structure, std::size_t& sized_for, std::size_t boxes) {
    if (detail::far_below(boxes, sized_for, structure.stats().bytes_held)) {
      structure = Structure(config);
      sized_for = 0;
    }
  }

  template <class Structure>
  void find_with(Structure& structure, std::size_t& sized_for, std::span<const Box> boxes, std::vector<Pair>& out) {
    structure.build(boxes);
    sized_for = std::max(sized_for, boxes.size());
    structure.find_pairs(out);
  }

  Config config;
  Grid grid;
  Tree tree;
  detail::DirectPairs direct;
  std::size_t grid_sized_for = 0;
  std::size_t tree_sized_for = 0;
  detail::RecentPeak boxes_recently;  ///< The most boxes of the recent calls.
};

PairFinder::PairFinder(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
PairFinder::~PairFinder() = default;
PairFinder::PairFinder(PairFinder&&) noexcept = default;
PairFinder& PairFinder::operator=(PairFinder&&) noexcept = default;

void PairFinder::find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) {
  Impl& d = *impl_;
  d.boxes_recently.note(boxes.size());
  shrink_to(d.boxes_recently.value());
  if (boxes.size() < 2) {  // no pair; nothing to build
    out.clear();
  } else if (boxes.size() <= detail::kDirectPairsMaxBoxes) {
    d.direct.find_pairs(boxes, d.config.kernel, out);  // a grid's fixed costs would outweigh the tests
  } else if (boxes.size() >= d.config.tree_min_boxes && tbb::this_task_arena::max_concurrency() > 1) {
    d.find_with(d.tree, d.tree_sized_for, boxes, out);
  } else {
    d.find_with(d.grid, d.grid_sized_for, boxes, out);
  }
}

void PairFinder::shrink_to(std::size_t boxes) {
  Impl& d = *impl_;
  d.shrink_to(d.grid, d.grid_sized_for, boxes);
  d.shrink_to(d.tree, d.tree_sized_for, boxes);
}

const Config& PairFinder::config() const noexcept { return impl_->config; }

std::size_t PairFinder::bytes_held() const noexcept {
  return impl_->grid.stats().bytes_held + impl_->tree.stats().bytes_held + impl_->direct.bytes_held();
}

}  // namespace agrid
