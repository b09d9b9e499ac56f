#include "candidate_pairs.h"

#include <algorithm>
#include <stdexcept>

#include "agrid_assert.h"
#include "slack_growth.h"

namespace agrid::detail {

std::uint32_t CandidatePairs::add(std::uint32_t a, std::uint32_t b, bool hit) {
  AGRID_ASSERT(a != b && a < head_.size() && b < head_.size());
  std::uint32_t record = free_;
  if (record != kNone) {
    free_ = links_[record].next[0];
  } else {
    if (state_.size() >= kNone) throw std::length_error("agrid::Broadphase: at most 2^32 - 1 candidate pairs");
    record = static_cast<std::uint32_t>(state_.size());
    grow_for_one(members_);
    grow_for_one(links_);
    grow_for_one(state_);
    members_.emplace_back();
    links_.emplace_back();
    state_.push_back(kFree);
  }
  members_[record] = {std::min(a, b), std::max(a, b)};
  state_[record] = hit ? kLive | kHit : kLive;
  link(record, 0);
  link(record, 1);
  ++live_;
  hits_ += hit;
  return record;
}

void CandidatePairs::remove(std::uint32_t record) {
  AGRID_ASSERT(record < state_.size() && state_[record] != kFree);
  unlink(record, 0);
  unlink(record, 1);
  --live_;
  hits_ -= hit(record);
  state_[record] = kFree;
  links_[record].next[0] = free_;
  free_ = record;
}

void CandidatePairs::resize(std::uint32_t objects) {
  // Out of line: inlined into Broadphase::create it used up inlining GCC allows broadphase.cpp,
  // whose hot calls then stopped being inlined (measured: set_box's push_back).
  grow_for_one(head_);
  head_.resize(objects, kNone);
}

void CandidatePairs::forget_from(std::uint32_t objects) {
  if (objects >= head_.size()) return;
  AGRID_ASSERT(std::all_of(head_.begin() + objects, head_.end(), [](std::uint32_t r) { return r == kNone; }));
  head_.resize(objects);
  shrink_if_far_below(head_, objects);
}

void CandidatePairs::give_back() {
  const std::size_t bytes = members_.capacity() * sizeof(Members) + links_.capacity() * sizeof(Links) + state_.capacity();
  if (far_below(live_, state_.capacity(), bytes)) compact();
}

void CandidatePairs::compact() {
  std::vector<std::uint32_t> renumbered(state_.size(), kNone);
  std::vector<Members> kept_members;
  std::vector<Links> kept_links;
  std::vector<std::uint8_t> kept_state;
  kept_members.reserve(shrunk_capacity(live_));
  kept_links.reserve(shrunk_capacity(live_));
  kept_state.reserve(shrunk_capacity(live_));
  for (std::uint32_t r = 0; r < state_.size(); ++r) {
    if (state_[r] == kFree) continue;
    renumbered[r] = static_cast<std::uint32_t>(kept_state.size());
    kept_members.push_back(members_[r]);
    kept_links.push_back(links_[r]);
    kept_state.push_back(state_[r]);
  }
  // A live record links only live ones (a free record's next[0] is the free list, dropped here).
  const auto moved = [&](std::uint32_t r) { return r == kNone ? kNone : renumbered[r]; };
  for (Links& l : kept_links) {
    for (int s = 0; s < 2; ++s) {
      l.next[s] = moved(l.next[s]);
      l.prev[s] = moved(l.prev[s]);
    }
  }
  for (std::uint32_t& head : head_) head = moved(head);
  members_.swap(kept_members);
  links_.swap(kept_links);
  state_.swap(kept_state);
  free_ = kNone;
}

void CandidatePairs::link(std::uint32_t record, int s) {
  const std::uint32_t object = member(record, s);
  const std::uint32_t old_head = head_[object];
  links_[record].prev[s] = kNone;
  links_[record].next[s] = old_head;
  if (old_head != kNone) links_[old_head].prev[side(old_head, object)] = record;
  head_[object] = record;
}

void CandidatePairs::unlink(std::uint32_t record, int s) {
  const std::uint32_t object = member(record, s);
  const Links& l = links_[record];
  if (l.prev[s] == kNone) {
    head_[object] = l.next[s];
  } else {
    links_[l.prev[s]].next[side(l.prev[s], object)] = l.next[s];
  }
  if (l.next[s] != kNone) links_[l.next[s]].prev[side(l.next[s], object)] = l.prev[s];
}

const char* CandidatePairs::problem() const {
  if (members_.size() != state_.size() || links_.size() != state_.size()) return "CandidatePairs: the arrays disagree in size";
  std::uint32_t live = 0;
  std::uint32_t hits = 0;
  for (std::uint32_t r = 0; r < state_.size(); ++r) {
    if (state_[r] == kFree) continue;
    if (state_[r] != kLive && state_[r] != (kLive | kHit)) return "CandidatePairs: a record's state is unknown";
    ++live;
    hits += hit(r);
    if (!(members_[r].first < members_[r].second)) return "CandidatePairs: a record's members are not first < second";
  }
  if (live != live_ || hits != hits_) return "CandidatePairs: counts disagree with the records";
  // Each list, walked from its head, links back and forth and holds only its object's records;
  // together the lists hold every live record twice.
  std::uint64_t listed = 0;
  for (std::uint32_t object = 0; object < head_.size(); ++object) {
    std::uint32_t previous = kNone;
    for (std::uint32_t r = head_[object]; r != kNone; r = next(r, object)) {
      if (state_[r] == kFree) return "CandidatePairs: a list holds a free record";
      if (members_[r].first != object && members_[r].second != object) return "CandidatePairs: a list holds another's record";
      if (links_[r].prev[side(r, object)] != previous) return "CandidatePairs: a prev link is wrong";
      previous = r;
      if (++listed > 2ull * live_) return "CandidatePairs: the lists hold more than every record twice";
    }
  }
  return listed == 2ull * live_ ? nullptr : "CandidatePairs: a record is missing from its lists";
}

}  // namespace agrid::detail
