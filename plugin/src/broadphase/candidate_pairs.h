#pragma once
// CandidatePairs: the pairs of resting objects whose fat boxes overlap, kept from update to
// update with whether their exact boxes overlap now, and listed per object so that a change to
// one object visits only its own candidates.

#include <cstdint>
#include <limits>
#include <vector>

#include "common/pair_key.h"
#include "common/slack_growth.h"

namespace agrid::detail {

/// A candidate record's id (an index into CandidatePairs' records), or none: a list's end, an
/// empty list, the end of the free list.
class CandidateId {
 public:
  /// None.
  constexpr CandidateId() noexcept = default;
  constexpr explicit CandidateId(std::uint32_t index) noexcept : index_(index) {}
  [[nodiscard]] static constexpr CandidateId none() noexcept { return CandidateId(); }
  [[nodiscard]] constexpr bool is_none() const noexcept { return index_ == kNoneIndex; }
  /// The index into the records (not none).
  [[nodiscard]] constexpr std::uint32_t index() const noexcept { return index_; }
  friend constexpr bool operator==(CandidateId, CandidateId) noexcept = default;

  /// The most records there can be: the highest index is none.
  static constexpr std::uint32_t kMaxRecords = std::numeric_limits<std::uint32_t>::max();

 private:
  static constexpr std::uint32_t kNoneIndex = kMaxRecords;
  std::uint32_t index_ = kNoneIndex;
};

/// Records of candidate pairs (first < second), each in two doubly linked lists, one per member,
/// so that adding and removing a record costs O(1) and an object's records are walked without a
/// search. A record's members, forward links and state are 20 bytes in one array, which both a
/// walk of one object's list (one miss a record) and a pass over all records (retest_where)
/// read; the backward links, used only to add and remove, are apart. (Members and state alone,
/// 9 bytes, made the pass faster but the walk of a list two misses a record: frozen-500k +15-25%.) Invariant (problem()): each live record
/// is in exactly its two members' lists, the links agree both ways, and `hits()` counts the live
/// records marked hit.
class CandidatePairs {
 public:
  /// Makes room for handles below `objects` (more than now).
  void resize(std::uint32_t objects);

  /// Forgets the handles from `objects` on (none has a record), giving memory back when the rest
  /// are far below capacity (slack_growth.h).
  void forget_from(std::uint32_t objects);

  /// Gives memory back when the live records are far_below() the room held (slack_growth.h): they
  /// are renumbered compactly, in the same order. O(records), when it happens.
  void give_back();

  /// Adds the candidate (a, b), a != b, with whether it is a hit; returns its record.
  CandidateId add(std::uint32_t a, std::uint32_t b, bool hit);

  /// Removes a live record.
  void remove(CandidateId record);

  /// The first record of `object`'s list, or none.
  [[nodiscard]] CandidateId first(std::uint32_t object) const noexcept { return head_[object]; }

  /// The record after `record` in `object`'s list (object is one of its members), or none.
  [[nodiscard]] CandidateId next(CandidateId record, std::uint32_t object) const noexcept {
    return at(record).next[side(record, object)];
  }

  /// Asks the processor to fetch a record soon (a hint: nothing changes).
  void prefetch(CandidateId record) const noexcept { __builtin_prefetch(records_.data() + record.index()); }
  /// The pair's members, first < second.
  [[nodiscard]] std::uint32_t first_member(CandidateId record) const noexcept { return at(record).first; }
  [[nodiscard]] std::uint32_t second_member(CandidateId record) const noexcept { return at(record).second; }
  [[nodiscard]] std::uint64_t key(CandidateId record) const noexcept { return pair_key(at(record).first, at(record).second); }

  [[nodiscard]] bool hit(CandidateId record) const noexcept { return (at(record).state & kHit) != 0; }
  /// Sets whether the pair's exact boxes overlap.
  void set_hit(CandidateId record, bool hit) noexcept {
    hits_ = hits_ - this->hit(record) + hit;
    at(record).state = hit ? kLive | kHit : kLive;
  }

  /// Re-tests, in record order, every live record with a member `moved`: `meets(first, second)`
  /// is whether the pair's boxes overlap now, and `changed(record, hit)` is called for a record
  /// whose hit changes, before it is set. One tight pass for when many objects moved: no call
  /// per record, nothing fetched twice.
  template <class Moved, class Meets, class Changed>
  void retest_where(Moved&& moved, Meets&& meets, Changed&& changed) {
    Record* const records = records_.data();
    const auto end = static_cast<std::uint32_t>(records_.size());
    for (std::uint32_t r = 0; r < end; ++r) {
      Record& record = records[r];
      const std::uint32_t a = record.first;
      const std::uint32_t b = record.second;
      if (record.state == kFree) continue;
      // `|`, not `||`: one branch for the pair, not two.
      const bool a_moved = moved(a);
      const bool b_moved = moved(b);
      if (!(a_moved | b_moved)) continue;
      const bool hit = meets(a, b);
      const bool was = (record.state & kHit) != 0;
      if (hit == was) continue;
      changed(CandidateId(r), hit);
      hits_ = hits_ - was + hit;
      record.state = hit ? kLive | kHit : kLive;
    }
  }

  /// Live records marked hit.
  [[nodiscard]] std::uint32_t hits() const noexcept { return hits_; }
  /// Live records.
  [[nodiscard]] std::uint32_t size() const noexcept { return live_; }

  /// Calls `visit(record)` for every live record (in record order).
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::uint32_t r = 0; r < records_.size(); ++r) {
      if (records_[r].state != kFree) visit(CandidateId(r));
    }
  }

  /// Heap memory held.
  [[nodiscard]] std::size_t bytes_held() const noexcept {
    return records_.capacity() * sizeof(Record) + prev_.capacity() * sizeof(Prev) + head_.capacity() * sizeof(CandidateId);
  }

  /// Null if the invariant holds, else what is broken. O(records): for AGRID_ASSERT and tests.
  [[nodiscard]] const char* problem() const;

 private:
  struct Record {
    std::uint32_t first;
    std::uint32_t second;   ///< first < second
    CandidateId next[2];    ///< In each member's list (0: first's, 1: second's); next[0] is also the free list's link.
    std::uint8_t state;     ///< kFree, or kLive maybe with kHit.
  };
  static_assert(sizeof(CandidateId) == sizeof(std::uint32_t));
  struct Prev {
    CandidateId prev[2];  ///< In each member's list.
  };
  /// A record's state: free, or live and maybe hit.
  static constexpr std::uint8_t kFree = 0;
  static constexpr std::uint8_t kLive = 1;
  static constexpr std::uint8_t kHit = 2;

  [[nodiscard]] const Record& at(CandidateId record) const noexcept { return records_[record.index()]; }
  [[nodiscard]] Record& at(CandidateId record) noexcept { return records_[record.index()]; }
  [[nodiscard]] CandidateId& prev(CandidateId record, int side) noexcept { return prev_[record.index()].prev[side]; }
  /// Which of a record's lists is `object`'s: 0 for its first member, 1 for its second.
  [[nodiscard]] int side(CandidateId record, std::uint32_t object) const noexcept {
    return at(record).second == object ? 1 : 0;
  }
  [[nodiscard]] std::uint32_t member(CandidateId record, int side) const noexcept {
    return side == 0 ? at(record).first : at(record).second;
  }
  /// Copies the live records, in order, into arrays of shrunk_capacity() and relinks them.
  void compact();
  void link(CandidateId record, int side);
  void unlink(CandidateId record, int side);

  std::vector<Record> records_;
  std::vector<Prev> prev_;
  std::vector<CandidateId> head_;  ///< By object: its first record.
  CandidateId free_;
  std::uint32_t live_ = 0;
  std::uint32_t hits_ = 0;
};

}  // namespace agrid::detail
