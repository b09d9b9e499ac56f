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
    free_ = records_[record].next[0];
  } else {
    if (records_.size() >= kNone) throw std::length_error("agrid::Broadphase: at most 2^32 - 1 candidate pairs");
    record = static_cast<std::uint32_t>(records_.size());
    grow_for_one(records_);
    records_.emplace_back();
  }
  Record& r = records_[record];
  r.members[0] = std::min(a, b);
  r.members[1] = std::max(a, b);
  r.hit = hit;
  r.live = true;
  link(record, 0);
  link(record, 1);
  ++live_;
  hits_ += hit;
  return record;
}

void CandidatePairs::remove(std::uint32_t record) {
  AGRID_ASSERT(record < records_.size() && records_[record].live);
  unlink(record, 0);
  unlink(record, 1);
  Record& r = records_[record];
  --live_;
  hits_ -= r.hit;
  r.live = false;
  r.hit = false;
  r.next[0] = free_;
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
  if (far_below(live_, records_.capacity(), records_.capacity() * sizeof(Record))) compact();
}

void CandidatePairs::compact() {
  std::vector<std::uint32_t> renumbered(records_.size(), kNone);
  std::vector<Record> kept;
  kept.reserve(shrunk_capacity(live_));
  for (std::uint32_t r = 0; r < records_.size(); ++r) {
    if (!records_[r].live) continue;
    renumbered[r] = static_cast<std::uint32_t>(kept.size());
    kept.push_back(records_[r]);
  }
  // A live record links only live ones (a free record's next[0] is the free list, dropped here).
  const auto moved = [&](std::uint32_t r) { return r == kNone ? kNone : renumbered[r]; };
  for (Record& r : kept) {
    for (int side = 0; side < 2; ++side) {
      r.next[side] = moved(r.next[side]);
      r.prev[side] = moved(r.prev[side]);
    }
  }
  for (std::uint32_t& head : head_) head = moved(head);
  records_.swap(kept);
  free_ = kNone;
}

void CandidatePairs::link(std::uint32_t record, int side) {
  Record& r = records_[record];
  const std::uint32_t object = r.members[side];
  const std::uint32_t old_head = head_[object];
  r.prev[side] = kNone;
  r.next[side] = old_head;
  if (old_head != kNone) {
    Record& h = records_[old_head];
    h.prev[h.members[1] == object ? 1 : 0] = record;
  }
  head_[object] = record;
}

void CandidatePairs::unlink(std::uint32_t record, int side) {
  const Record& r = records_[record];
  const std::uint32_t object = r.members[side];
  if (r.prev[side] == kNone) {
    head_[object] = r.next[side];
  } else {
    Record& p = records_[r.prev[side]];
    p.next[p.members[1] == object ? 1 : 0] = r.next[side];
  }
  if (r.next[side] != kNone) {
    Record& n = records_[r.next[side]];
    n.prev[n.members[1] == object ? 1 : 0] = r.prev[side];
  }
}

const char* CandidatePairs::problem() const {
  std::uint32_t live = 0;
  std::uint32_t hits = 0;
  for (const Record& r : records_) {
    if (!r.live) continue;
    ++live;
    hits += r.hit;
    if (!(r.members[0] < r.members[1])) return "CandidatePairs: a record's members are not first < second";
  }
  if (live != live_ || hits != hits_) return "CandidatePairs: counts disagree with the records";
  // Each list, walked from its head, links back and forth and holds only its object's records;
  // together the lists hold every live record twice.
  std::uint64_t listed = 0;
  for (std::uint32_t object = 0; object < head_.size(); ++object) {
    std::uint32_t previous = kNone;
    for (std::uint32_t r = head_[object]; r != kNone; r = next(r, object)) {
      const Record& rec = records_[r];
      if (!rec.live) return "CandidatePairs: a list holds a free record";
      if (rec.members[0] != object && rec.members[1] != object) return "CandidatePairs: a list holds another's record";
      if (rec.prev[rec.members[1] == object ? 1 : 0] != previous) return "CandidatePairs: a prev link is wrong";
      previous = r;
      if (++listed > 2ull * live_) return "CandidatePairs: the lists hold more than every record twice";
    }
  }
  return listed == 2ull * live_ ? nullptr : "CandidatePairs: a record is missing from its lists";
}

}  // namespace agrid::detail
