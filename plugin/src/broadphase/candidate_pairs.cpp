#include "broadphase/candidate_pairs.h"

#include <algorithm>
#include <stdexcept>

#include "common/agrid_assert.h"
#include "common/slack_growth.h"

namespace agrid::detail {

CandidateId CandidatePairs::add(std::uint32_t a, std::uint32_t b, bool hit) {
  AGRID_ASSERT(a != b && a < head_.size() && b < head_.size());
  CandidateId record = free_;
  if (!record.is_none()) {
    free_ = at(record).next[0];
  } else {
    if (records_.size() >= CandidateId::kMaxRecords) throw std::length_error("agrid::Broadphase: at most 2^32 - 1 candidate pairs");
    record = CandidateId(static_cast<std::uint32_t>(records_.size()));
    grow_for_one(records_);
    grow_for_one(prev_);
    records_.emplace_back();
    prev_.emplace_back();
  }
  Record& r = at(record);
  r.first = std::min(a, b);
  r.second = std::max(a, b);
  r.state = hit ? kLive | kHit : kLive;
  link(record, 0);
  link(record, 1);
  ++live_;
  hits_ += hit;
  return record;
}

void CandidatePairs::remove(CandidateId record) {
  AGRID_ASSERT(record.index() < records_.size() && at(record).state != kFree);
  unlink(record, 0);
  unlink(record, 1);
  --live_;
  hits_ -= hit(record);
  at(record).state = kFree;
  at(record).next[0] = free_;
  free_ = record;
}

void CandidatePairs::resize(std::uint32_t objects) {
  // Out of line: inlined into Broadphase::create it used up inlining GCC allows broadphase.cpp,
  // whose hot calls then stopped being inlined (measured: set_box's push_back).
  grow_for_one(head_);
  head_.resize(objects, CandidateId::none());
}

void CandidatePairs::forget_from(std::uint32_t objects) {
  if (objects >= head_.size()) return;
  AGRID_ASSERT(std::all_of(head_.begin() + objects, head_.end(), [](CandidateId r) { return r.is_none(); }));
  head_.resize(objects);
  shrink_if_far_below(head_, objects);
}

void CandidatePairs::give_back() {
  const std::size_t bytes = records_.capacity() * sizeof(Record) + prev_.capacity() * sizeof(Prev);
  if (far_below(live_, records_.capacity(), bytes)) compact();
}

void CandidatePairs::compact() {
  std::vector<CandidateId> renumbered(records_.size());
  std::vector<Record> kept_records;
  std::vector<Prev> kept_prev;
  kept_records.reserve(shrunk_capacity(live_));
  kept_prev.reserve(shrunk_capacity(live_));
  for (std::uint32_t r = 0; r < records_.size(); ++r) {
    if (records_[r].state == kFree) continue;
    renumbered[r] = CandidateId(static_cast<std::uint32_t>(kept_records.size()));
    kept_records.push_back(records_[r]);
    kept_prev.push_back(prev_[r]);
  }
  // A live record links only live ones (a free record's next[0] is the free list, dropped here).
  const auto moved = [&](CandidateId r) { return r.is_none() ? r : renumbered[r.index()]; };
  for (std::size_t r = 0; r < kept_records.size(); ++r) {
    for (int s = 0; s < 2; ++s) {
      kept_records[r].next[s] = moved(kept_records[r].next[s]);
      kept_prev[r].prev[s] = moved(kept_prev[r].prev[s]);
    }
  }
  for (CandidateId& head : head_) head = moved(head);
  records_.swap(kept_records);
  prev_.swap(kept_prev);
  free_ = CandidateId::none();
}

void CandidatePairs::link(CandidateId record, int s) {
  const std::uint32_t object = member(record, s);
  const CandidateId old_head = head_[object];
  prev(record, s) = CandidateId::none();
  at(record).next[s] = old_head;
  if (!old_head.is_none()) prev(old_head, side(old_head, object)) = record;
  head_[object] = record;
}

void CandidatePairs::unlink(CandidateId record, int s) {
  const std::uint32_t object = member(record, s);
  const CandidateId before = prev(record, s);
  const CandidateId after = at(record).next[s];
  if (before.is_none()) {
    head_[object] = after;
  } else {
    at(before).next[side(before, object)] = after;
  }
  if (!after.is_none()) prev(after, side(after, object)) = before;
}

const char* CandidatePairs::problem() const {
  if (prev_.size() != records_.size()) return "CandidatePairs: the arrays disagree in size";
  std::uint32_t live = 0;
  std::uint32_t hits = 0;
  for (std::uint32_t r = 0; r < records_.size(); ++r) {
    if (records_[r].state == kFree) continue;
    if (records_[r].state != kLive && records_[r].state != (kLive | kHit)) return "CandidatePairs: a record's state is unknown";
    ++live;
    hits += hit(CandidateId(r));
    if (!(records_[r].first < records_[r].second)) return "CandidatePairs: a record's members are not first < second";
  }
  if (live != live_ || hits != hits_) return "CandidatePairs: counts disagree with the records";
  // Each list, walked from its head, links back and forth and holds only its object's records;
  // together the lists hold every live record twice.
  std::uint64_t listed = 0;
  for (std::uint32_t object = 0; object < head_.size(); ++object) {
    CandidateId previous;
    for (CandidateId r = head_[object]; !r.is_none(); r = next(r, object)) {
      if (r.index() >= records_.size()) return "CandidatePairs: a link is past the records";
      if (at(r).state == kFree) return "CandidatePairs: a list holds a free record";
      if (at(r).first != object && at(r).second != object) return "CandidatePairs: a list holds another's record";
      if (prev_[r.index()].prev[side(r, object)] != previous) return "CandidatePairs: a prev link is wrong";
      previous = r;
      if (++listed > 2ull * live_) return "CandidatePairs: the lists hold more than every record twice";
    }
  }
  return listed == 2ull * live_ ? nullptr : "CandidatePairs: a record is missing from its lists";
}

}  // namespace agrid::detail
