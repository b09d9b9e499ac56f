#include "broadphase/moving_set.h"

#include <algorithm>
#include <iterator>

#include "common/agrid_assert.h"
#include "common/box_ops.h"
#include "common/pair_key.h"
#include "common/parallel_for.h"
#include "common/slack_growth.h"

namespace agrid::detail {
namespace {

/// Moving objects queried against the resting tree per unit of parallel work (large enough that
/// a unit outweighs handing it to a thread).
constexpr std::uint32_t kQueriesPerWork = 256;

/// The moving set's query tree is refitted this many times, then built afresh: moving boxes
/// drift from the groups a build made, and the bounds of a refitted tree spread (measured:
/// docs/benchmarks.md, the rays of bench-7).
constexpr std::uint32_t kQueryTreeRefits = 8;

/// A refit pays while fewer than 1/kQueryTreeChurnShare of the leaves come or go: each is an
/// insert or a removal, O(depth), into a tree whose shape no longer fits them.
constexpr std::size_t kQueryTreeChurnShare = 4;

}  // namespace

void MovingSet::start_update(std::size_t live) {
  query_tree_current_.store(false, std::memory_order_relaxed);  // refitted or built when next asked
  // The pair finder holds room for the most boxes it was given: after a busy update over the
  // whole world (its first), or once the world shrank, a world where few move gives it back at
  // once (the finder's own rule would wait for its recent calls).
  finder_.shrink_to(std::min(live, paired_recently_.value()));
}

void MovingSet::update_members(const ObjectTable& table, std::span<const Handle> entering) {
  // Last update's moving objects that still move, and those that entered, in ascending handles.
  AGRID_ASSERT(std::is_sorted(entering.begin(), entering.end()));
  std::erase_if(moving_, [&](Handle h) { return table.place(h) != Place::moving; });
  next_moving_.clear();
  std::merge(moving_.begin(), moving_.end(), entering.begin(), entering.end(), std::back_inserter(next_moving_));
  std::swap(moving_, next_moving_);
}

void MovingSet::find_pairs(const ObjectTable& table, const RestingSet& resting, PairDiff& diff) {
  // A few moving objects query the resting tree one by one; many are paired with the resting
  // objects by one grid over both, which costs less than their queries.
  std::vector<std::uint64_t>& keys = diff.next_moving_keys();
  const BoxTree& resting_tree = resting.tree();
  filters_decide_ = !table.filters_pass_all();
  const bool query = static_cast<std::uint64_t>(moving_.size()) * config_.resting_query_cost < resting_tree.leaves();
  pairing_ = query ? Pairing::tree_queries : Pairing::one_grid;
  if (query) {
    pair_with_tree_queries(table, resting, keys);
  } else {
    pair_in_one_grid(table, keys);
    near_current_ = false;  // the near lists were not carried through this update's joins
  }
  paired_recently_.note(query ? moving_.size() : table.size());
}

void MovingSet::pair_with_tree_queries(const ObjectTable& table, const RestingSet& resting,
                                       std::vector<std::uint64_t>& keys) {
  // Moving x moving: the grid's pairs come sorted and the moving handles ascending, so the keys
  // come sorted.
  grid_boxes_.clear();
  for (const Handle h : moving_) grid_boxes_.push_back(table.box(h));
  find_grid_pairs(grid_boxes_);
  for (const auto [i, j] : grid_pairs_) {
    const Handle a = moving_[i];
    const Handle b = moving_[j];
    if (passes_filters(table, a, b)) keys.push_back(pair_key(a, b));
  }
  // Moving x resting: each moving object's near list (the resting objects whose fat boxes meet
  // its own), in fixed units of work, then its box tested against each.
  const bool lists_hold = near_current_ && !resting.joined_in_bulk();
  const std::size_t units = resting.tree().leaves() == 0 ? 0 : (moving_.size() + kQueriesPerWork - 1) / kQueriesPerWork;
  if (unit_keys_.size() < units) unit_keys_.resize(units);
  if (unit_near_.size() < units) unit_near_.resize(units);
  const auto query_unit = [&](std::size_t u) {
    std::vector<std::uint64_t>& out = unit_keys_[u];
    NearLists& near = unit_near_[u];
    out.clear();
    near.clear();
    const std::size_t end = std::min(moving_.size(), (u + 1) * kQueriesPerWork);
    for (std::size_t k = u * kQueriesPerWork; k < end; ++k) {
      const Handle a = moving_[k];
      const Box& box = table.box(a);
      if (!is_valid(box)) continue;
      const std::size_t first = near.start(a);
      find_near(table, resting, lists_hold, a, near);
      for (std::size_t n = first; n < near.handles.size(); ++n) {
        const Handle b = near.handles[n];
        if (boxes_meet(box, table.box(b)) && passes_filters(table, a, b)) out.push_back(pair_key(a, b));
      }
    }
  };
  for_each_unit(units, query_unit);
  resting_keys_.clear();
  near_.clear();
  for (std::size_t u = 0; u < units; ++u) {
    resting_keys_.insert(resting_keys_.end(), unit_keys_[u].begin(), unit_keys_[u].end());
    near_.append(unit_near_[u]);
  }
  near_current_ = true;
  std::sort(resting_keys_.begin(), resting_keys_.end());
  merge_in(keys, resting_keys_);
}

bool MovingSet::NearLists::find(Handle a, std::span<const Handle>* list) const noexcept {
  const auto it = std::lower_bound(members.begin(), members.end(), a);
  if (it == members.end() || *it != a) return false;
  const auto i = static_cast<std::size_t>(it - members.begin());
  const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : handles.size();
  *list = std::span<const Handle>(handles).subspan(starts[i], end - starts[i]);
  return true;
}

void MovingSet::NearLists::append(const NearLists& other) {
  AGRID_ASSERT(members.empty() || other.members.empty() || members.back() < other.members.front());
  const auto base = static_cast<std::uint32_t>(handles.size());
  members.insert(members.end(), other.members.begin(), other.members.end());
  for (const std::uint32_t start : other.starts) starts.push_back(base + start);
  handles.insert(handles.end(), other.handles.begin(), other.handles.end());
}

void MovingSet::find_near(const ObjectTable& table, const RestingSet& resting, bool lists_hold, Handle a,
                          NearLists& out) const {
  // Its last list holds every leaf that met its fat box then, unless the fat box was set afresh
  // since (it left it): the leaves still there, and those that joined in this update whose fat
  // boxes meet its own, make this update's list (a leaf that left and joined again may come
  // twice: sorted out). Else the resting tree is queried with its fat box.
  const Motion& m = table.motion(a);
  std::span<const Handle> last;
  const bool kept = lists_hold && m.fat_set_at != table.now() - 1 && near_.find(a, &last);
  const BoxTree& tree = resting.tree();
  const std::size_t first = out.handles.size();
  if (!kept) {
    tree.query(m.fat, [&](std::uint32_t b) {
      out.handles.push_back(b);
      return true;
    });
    return;
  }
  for (const Handle b : last) {
    if (tree.contains(b)) out.handles.push_back(b);
  }
  const std::size_t still = out.handles.size();
  const std::span<const Handle> joined = resting.joined_handles();
  resting.joined_tree().query(m.fat, [&](std::uint32_t j) {
    out.handles.push_back(joined[j]);
    return true;
  });
  if (out.handles.size() != still) {
    std::sort(out.handles.begin() + static_cast<std::ptrdiff_t>(first), out.handles.end());
    out.handles.erase(std::unique(out.handles.begin() + static_cast<std::ptrdiff_t>(first), out.handles.end()), out.handles.end());
  }
}

void MovingSet::pair_in_one_grid(const ObjectTable& table, std::vector<std::uint64_t>& keys) {
  // Every live object moves or rests now, and every resting one with a valid box is a leaf of the
  // resting tree; a removed one's box is absent. So the grid pairs the box column itself, read in
  // place: its indices are the handles, its pairs come sorted, and so do their keys, with no
  // gather, sort or merge. Those with a moving member are kept: none where nothing moves (all
  // removed, say, the table still as long as before).
  if (moving_.empty()) return;
  grid_moving_.assign(table.size(), 0);
  for (const Handle h : moving_) grid_moving_[h] = 1;
  const std::span<const Box> boxes = table.boxes();
  if (boxes.size() <= kDirectPairsMaxBoxes) {
    // Few: all against all, straight to keys, only pairs with a moving member (about moving x
    // all tests).
    direct_pairs_.find_keys(boxes, {}, grid_moving_, config_.kernel, keys);
    if (filters_decide_) {
      std::erase_if(keys, [&](std::uint64_t key) { return !passes_filters(table, pair_of(key).first, pair_of(key).second); });
    }
    return;
  }
  find_grid_pairs(boxes);
  const std::uint8_t* const moving = grid_moving_.data();
  for (const auto [a, b] : grid_pairs_) {
    if (!(moving[a] | moving[b])) continue;  // resting x resting: kept as candidates
    if (passes_filters(table, a, b)) keys.push_back(pair_key(a, b));
  }
}

void MovingSet::find_grid_pairs(std::span<const Box> boxes) {
  finder_.find_pairs(boxes, grid_pairs_);
}

const BoxTree& MovingSet::query_tree(const ObjectTable& table) const {
  if (query_tree_current_.load(std::memory_order_acquire)) return query_tree_;
  const std::lock_guard<std::mutex> lock(query_tree_mutex_);
  if (!query_tree_current_.load(std::memory_order_relaxed)) {
    if (query_refits_ < kQueryTreeRefits && refit_query_tree(table)) {
      ++query_refits_;
    } else {
      build_query_tree(table);
    }
    query_tree_current_.store(true, std::memory_order_release);
    AGRID_ASSERT_NO_PROBLEM(query_tree_problem(table));  // the refitted tree holds every member's box
  }
  return query_tree_;
}

void MovingSet::build_query_tree(const ObjectTable& table) const {
  query_entries_.clear();
  query_leaves_.clear();
  for (const Handle h : moving_) {
    if (!is_valid(table.box(h))) continue;
    query_entries_.push_back({table.box(h), h});
    query_leaves_.push_back(h);
  }
  query_tree_.build(query_entries_);
  query_refits_ = 0;
}

bool MovingSet::refit_query_tree(const ObjectTable& table) const {
  // The members with a valid box now, against the leaves: both ascending, merged once.
  query_next_leaves_.clear();
  for (const Handle h : moving_) {
    if (is_valid(table.box(h))) query_next_leaves_.push_back(h);
  }
  std::size_t gone = 0;
  std::size_t came = 0;
  auto old_leaf = query_leaves_.begin();
  for (const Handle h : query_next_leaves_) {
    for (; old_leaf != query_leaves_.end() && *old_leaf < h; ++old_leaf) ++gone;
    if (old_leaf != query_leaves_.end() && *old_leaf == h) {
      ++old_leaf;
    } else {
      ++came;
    }
  }
  gone += static_cast<std::size_t>(query_leaves_.end() - old_leaf);
  if ((gone + came) * kQueryTreeChurnShare > query_leaves_.size()) return false;
  // The leaves that stay take their boxes, those that left go, then the bounds are refitted
  // (the removals refit above them from stale bounds: the refit makes all exact), then the new
  // ones come in, down the refitted bounds.
  old_leaf = query_leaves_.begin();
  query_entries_.clear();
  for (const Handle h : query_next_leaves_) {
    for (; old_leaf != query_leaves_.end() && *old_leaf < h; ++old_leaf) query_tree_.remove(*old_leaf);
    if (old_leaf != query_leaves_.end() && *old_leaf == h) {
      query_tree_.set_leaf_box(h, table.box(h));
      ++old_leaf;
    } else {
      query_entries_.push_back({table.box(h), h});
    }
  }
  for (; old_leaf != query_leaves_.end(); ++old_leaf) query_tree_.remove(*old_leaf);
  query_tree_.refit();
  for (const BoxTree::Entry& e : query_entries_) query_tree_.insert(e.object, e.box);
  std::swap(query_leaves_, query_next_leaves_);
  return true;
}

void MovingSet::give_back(const WorldSize& world) {
  // The boxes paired lately, not the world: after a busy update over the whole world the lists
  // for the pair finders' boxes are given back once few move.
  const std::size_t paired = std::min(world.objects, paired_recently_.value());
  shrink_if_far_below(moving_, paired);
  shrink_if_far_below(next_moving_, paired);
  shrink_if_far_below(grid_boxes_, paired);
  shrink_if_far_below(grid_moving_, paired);
  std::size_t unit_used = 0;
  for (const std::vector<std::uint64_t>& unit : unit_keys_) unit_used = std::max(unit_used, unit.size());
  keys_recently_.note(std::max({grid_pairs_.size(), resting_keys_.size(), unit_used}));
  const std::size_t keys = world.keys(keys_recently_);
  shrink_if_far_below(grid_pairs_, keys);
  // A unit of tree queries is kept for each kQueriesPerWork objects paired lately.
  const std::size_t units = (paired + kQueriesPerWork - 1) / kQueriesPerWork;
  std::size_t unit_bytes = heap_bytes(unit_keys_);
  for (const std::vector<std::uint64_t>& unit : unit_keys_) unit_bytes += heap_bytes(unit);
  if (far_below(units, unit_keys_.size(), unit_bytes)) unit_keys_.resize(units);
  shrink_if_far_below(unit_keys_, units);
  for (std::vector<std::uint64_t>& unit : unit_keys_) shrink_if_far_below(unit, keys);
  shrink_if_far_below(resting_keys_, keys);
  if (unit_near_.size() > unit_keys_.size()) unit_near_.resize(unit_keys_.size());
  shrink_if_far_below(unit_near_, unit_keys_.size());
  for (NearLists& lists : unit_near_) lists.give_back();
  near_.give_back();
  // The query tree is rebuilt from nothing when asked: when the moving sets of late are far
  // smaller than it has room for, it is dropped (kept otherwise, so a queried world of a steady
  // size allocates nothing a step).
  if (far_below(paired, query_tree_.leaf_room(), query_tree_.bytes_held())) {
    query_tree_ = BoxTree();
    query_leaves_.clear();
    query_tree_current_.store(false, std::memory_order_relaxed);
  }
  shrink_if_far_below(query_entries_, moving_.size());
  shrink_if_far_below(query_leaves_, moving_.size());
  shrink_if_far_below(query_next_leaves_, moving_.size());
}

std::size_t MovingSet::bytes_held() const noexcept {
  std::size_t unit_bytes = heap_bytes(unit_keys_) + heap_bytes(unit_near_) + near_.bytes_held();
  for (const std::vector<std::uint64_t>& keys : unit_keys_) unit_bytes += heap_bytes(keys);
  for (const NearLists& lists : unit_near_) unit_bytes += lists.bytes_held();
  return heap_bytes(moving_) + heap_bytes(next_moving_) + heap_bytes(grid_boxes_) +
         heap_bytes(grid_moving_) + heap_bytes(grid_pairs_) + unit_bytes + heap_bytes(resting_keys_) +
         finder_.bytes_held() + direct_pairs_.bytes_held() + query_tree_.bytes_held() +
         heap_bytes(query_entries_) + heap_bytes(query_leaves_) + heap_bytes(query_next_leaves_);
}

const char* MovingSet::problem(const ObjectTable& table, const RestingSet& resting) const {
  if (!ascends_strictly(moving_)) {
    return "MovingSet: the members do not ascend, or repeat";
  }
  for (const Handle h : moving_) {
    if (h >= table.size() || !table.alive(h) || table.place(h) != Place::moving) {
      return "MovingSet: a member is not a live moving object";
    }
  }
  std::size_t placed_moving = 0;
  for (Handle h = 0; h < table.size(); ++h) placed_moving += table.alive(h) && table.place(h) == Place::moving;
  if (placed_moving != moving_.size()) return "MovingSet: a moving object is not a member";
  if (near_current_) {
    if (!ascends_strictly(near_.members)) return "MovingSet: the near lists' members do not ascend, or repeat";
    for (std::size_t i = 0; i < near_.members.size(); ++i) {
      const Handle a = near_.members[i];
      if (!std::binary_search(moving_.begin(), moving_.end(), a)) return "MovingSet: a near list is not a member's";
      std::span<const Handle> list;
      if (!near_.find(a, &list)) return "MovingSet: a near list's member cannot be found";
      const char* missing = nullptr;
      resting.tree().query(table.motion(a).fat, [&](std::uint32_t b) {
        if (std::find(list.begin(), list.end(), b) == list.end()) missing = "MovingSet: a near list misses a resting object";
        return missing == nullptr;
      });
      if (missing != nullptr) return missing;
    }
  }
  if (query_tree_current_.load(std::memory_order_acquire)) return query_tree_problem(table);
  return nullptr;
}

const char* MovingSet::query_tree_problem(const ObjectTable& table) const {
  if (const char* p = query_tree_.problem()) return p;
  // Its leaves are the members with a valid box (removed since the update too: queries skip
  // them), each with its box as it was when the tree was brought up to date.
  std::size_t valid = 0;
  for (const Handle h : moving_) {
    if (!is_valid(table.box(h))) continue;
    ++valid;
    if (!query_tree_.contains(h) || !same_box(query_tree_.box(h), table.box(h))) {
      return "MovingSet: the query tree does not hold a member's box";
    }
  }
  if (valid != query_tree_.leaves()) return "MovingSet: the query tree holds an object that does not move";
  return nullptr;
}

}  // namespace agrid::detail
