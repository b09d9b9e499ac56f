#include "broadphase/candidate_pairs.h"

#include <algorithm>
#include <stdexcept>

#include "agrid_assert.h"
#include "slack_growth.h"

namespace agrid::detail {

std::uint32_t CandidatePairs::add(std::uint32_t a, std::uint32_t b, bool hit) {
  AGRID_ASSERT(a != b && a < head_.size() && b < head_.size());
  std::uint32_t record = free_;
  if (record != kNone) {
    free_ = records_[record].next[0];
  } else {
    if (records_.size() >= kNone) throw std::length_error("agrid::Broadphase: at most 2^32 - 1 candidate pairs");
    record = static_cast<std::uint32_t>(records_.size());
    grow_for_one(records_);
    grow_for_one(prev_);
    records_.emplace_back();
    prev_.emplace_back();
  }
  Record& r = records_[record];
  r.first = std::min(a, b);
  r.second = std::max(a, b);
  r.state = hit ? kLive | kHit : kLive;
  link(record, 0);
  link(record, 1);
  ++live_;
  hits_ += hit;
  return record;
}

void CandidatePairs::remove(std::uint32_t record) {
  AGRID_ASSERT(record < records_.size() && records_[record].state != kFree);
  unlink(record, 0);
  unlink(record, 1);
  --live_;
  hits_ -= hit(record);
  records_[record].state = kFree;
  records_[record].next[0] = free_;
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
  const std::size_t bytes = records_.capacity() * sizeof(Record) + prev_.capacity() * sizeof(Prev);
  if (far_below(live_, records_.capacity(), bytes)) compact();
}

void CandidatePairs::compact() {
  std::vector<std::uint32_t> renumbered(records_.size(), kNone);
  std::vector<Record> kept_records;
  std::vector<Prev> kept_prev;
  kept_records.reserve(shrunk_capacity(live_));
  kept_prev.reserve(shrunk_capacity(live_));
  for (std::uint32_t r = 0; r < records_.size(); ++r) {
    if (records_[r].state == kFree) continue;
    renumbered[r] = static_cast<std::uint32_t>(kept_records.size());
    kept_records.push_back(records_[r]);
    kept_prev.push_back(prev_[r]);
  }
  // A live record links only live ones (a free record's next[0] is the free list, dropped here).
  const auto moved = [&](std::uint32_t r) { return r == kNone ? kNone : renumbered[r]; };
  for (std::size_t r = 0; r < kept_records.size(); ++r) {
    for (int s = 0; s < 2; ++s) {
      kept_records[r].next[s] = moved(kept_records[r].next[s]);
      kept_prev[r].prev[s] = moved(kept_prev[r].prev[s]);
    }
  }
  for (std::uint32_t& head : head_) head = moved(head);
  records_.swap(kept_records);
  prev_.swap(kept_prev);
  free_ = kNone;
}

void CandidatePairs::link(std::uint32_t record, int s) {
  const std::uint32_t object = member(record, s);
  const std::uint32_t old_head = head_[object];
  prev_[record].prev[s] = kNone;
  records_[record].next[s] = old_head;
  if (old_head != kNone) prev_[old_head].prev[side(old_head, object)] = record;
  head_[object] = record;
}

void CandidatePairs::unlink(std::uint32_t record, int s) {
  const std::uint32_t object = member(record, s);
  const std::uint32_t prev = prev_[record].prev[s];
  const std::uint32_t next = records_[record].next[s];
  if (prev == kNone) {
    head_[object] = next;
  } else {
    records_[prev].next[side(prev, object)] = next;
  }
  if (next != kNone) prev_[next].prev[side(next, object)] = prev;
}

const char* CandidatePairs::problem() const {
  if (prev_.size() != records_.size()) return "CandidatePairs: the arrays disagree in size";
  std::uint32_t live = 0;
  std::uint32_t hits = 0;
  for (std::uint32_t r = 0; r < records_.size(); ++r) {
    if (records_[r].state == kFree) continue;
    if (records_[r].state != kLive && records_[r].state != (kLive | kHit)) return "CandidatePairs: a record's state is unknown";
    ++live;
    hits += hit(r);
    if (!(records_[r].first < records_[r].second)) return "CandidatePairs: a record's members are not first < second";
  }
  if (live != live_ || hits != hits_) return "CandidatePairs: counts disagree with the records";
  // Each list, walked from its head, links back and forth and holds only its object's records;
  // together the lists hold every live record twice.
  std::uint64_t listed = 0;
  for (std::uint32_t object = 0; object < head_.size(); ++object) {
    std::uint32_t previous = kNone;
    for (std::uint32_t r = head_[object]; r != kNone; r = next(r, object)) {
      if (records_[r].state == kFree) return "CandidatePairs: a list holds a free record";
      if (records_[r].first != object && records_[r].second != object) return "CandidatePairs: a list holds another's record";
      if (prev_[r].prev[side(r, object)] != previous) return "CandidatePairs: a prev link is wrong";
      previous = r;
      if (++listed > 2ull * live_) return "CandidatePairs: the lists hold more than every record twice";
    }
  }
  return listed == 2ull * live_ ? nullptr : "CandidatePairs: a record is missing from its lists";
}

}  // namespace agrid::detail
