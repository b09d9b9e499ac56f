#pragma once
// The sweep of parallel-bisap (parallel_bisap.cpp): the boxes laid out in their two sorted
// orders, and the sweep of one chunk of the v-order, pruned by a SuccTree over the chunk's own
// universe of boxes.

#include <bit>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "succ_tree.h"

namespace agrid::peers::bisap {

/// A valid box, its coordinates by role: [0] on u, [1] on v, [2] on w.
struct Oriented {
  float lo[3];
  float hi[3];
  std::uint32_t id;  ///< Its index into the input.
};

/// A box's bounds as a listed member is tested, every test being "lane <= the probe's lane":
/// (min_v, -max_v, min_w, -max_w) against the probe's (max_v, -min_v, max_w, -min_w), four
/// tests in one compare.
struct alignas(16) Lanes {
  float lane[4];
};

/// The bits of the tests a member passes against a probe (see kStarted and kOpen).
[[nodiscard]] inline unsigned passed(const Lanes& member, const Lanes& probe) {
#if defined(__SSE2__)
  return static_cast<unsigned>(_mm_movemask_ps(_mm_cmple_ps(_mm_load_ps(member.lane), _mm_load_ps(probe.lane))));
#else
  unsigned bits = 0;
  for (unsigned i = 0; i < 4; ++i) bits |= static_cast<unsigned>(member.lane[i] <= probe.lane[i]) << i;
  return bits;
#endif
}

/// The member starts on v before the probe ends there (false for the frontier's boxes not yet
/// reached).
inline constexpr unsigned kStarted = 1;
/// The member has not ended on v before the probe starts there (false: it never meets a later
/// probe).
inline constexpr unsigned kOpen = 2;
/// The member overlaps the probe on w (both lanes).
inline constexpr unsigned kMeetsOnW = 4 | 8;
/// All four tests: the member and the probe overlap on v and w.
inline constexpr unsigned kMeets = kStarted | kOpen | kMeetsOnW;

/// One box as the sweep meets it, stored by v-position.
struct Probe {
  std::uint32_t pos_u;  ///< Its position in u-order.
  std::uint32_t end_u;  ///< One past the last u-position whose min on u is not past its max on u.
  std::uint32_t end_v;  ///< One past the last v-position whose min on v is not past its max on v.
  std::uint32_t id;     ///< Its index into the input.
  float min_v, max_v, min_w, max_w;
};

/// The valid boxes in both orders, read by every chunk's sweep.
struct Layout {
  std::vector<Oriented> boxes;       ///< By u-position (for direct scans of a u-window).
  std::vector<Probe> probes;         ///< By v-position.
  std::vector<float> reach;          ///< Largest max on v per kReachBlock probes.
  std::uint32_t frontier_reach = 0;  ///< How far past a probe the frontier may run.
  int id_bits = 1;                   ///< Bits of an input index in a pair key.
};

/// The number of ones in a word. Baseline x86-64 has no popcnt instruction, and std::popcount
/// there calls into libgcc: the bit-parallel sum inline is faster (the sweep ranks a few
/// positions per box).
[[nodiscard]] inline std::uint32_t ones(std::uint64_t x) {
#if defined(__POPCNT__) || !defined(__x86_64__)
  return static_cast<std::uint32_t>(std::popcount(x));
#else
  constexpr std::uint64_t kEveryOther = 0x5555555555555555u;  // 01 repeated
  constexpr std::uint64_t kLowPairs = 0x3333333333333333u;    // 0011 repeated
  constexpr std::uint64_t kLowNibbles = 0x0f0f0f0f0f0f0f0fu;  // 00001111 repeated
  constexpr std::uint64_t kByteOnes = 0x0101010101010101u;    // 1 in every byte
  x -= (x >> 1) & kEveryOther;
  x = (x & kLowPairs) + ((x >> 2) & kLowPairs);
  x = (x + (x >> 4)) & kLowNibbles;
  return static_cast<std::uint32_t>((x * kByteOnes) >> 56);  // the bytes' sum, in the top byte
#endif
}

/// Probes per block of Layout::reach, which lets a chunk find the boxes still open at its start
/// without reading every box before it.
inline constexpr std::uint32_t kReachBlock = 64;

/// A chunk's universe: the boxes its sweep can list (those open at its start and those its
/// frontier reaches), ranked by u-position through a bit vector, so that the tree and the
/// records the sweep reads hold only them (and stay in cache). One per thread, reused.
class Universe {
 public:
  /// Makes the members the probes at `seeds` (v-positions) and at [first, end).
  void gather(const Layout& layout, const std::vector<std::uint32_t>& seeds, std::uint32_t first, std::uint32_t end);

  /// The number of members before u-position `pos_u` (a member's local index).
  [[nodiscard]] std::uint32_t local(std::uint32_t pos_u) const {
    const std::uint64_t below = (std::uint64_t{1} << (pos_u % 64)) - 1;
    return ranks_[pos_u / 64] + ones(members_[pos_u / 64] & below);
  }

  /// A member's bounds, by local index.
  [[nodiscard]] const Lanes& lanes(std::uint32_t local) const { return lanes_[local]; }
  /// A member's input index, by local index.
  [[nodiscard]] std::uint32_t id(std::uint32_t local) const { return ids_[local]; }

  SuccTree open;  ///< The members that may overlap the probe on v, by local index.

 private:
  void add(const Probe& p);

  std::vector<std::uint64_t> members_;  ///< One bit per u-position: a member.
  std::vector<std::uint32_t> ranks_;    ///< Members before each word of members_.
  std::vector<Lanes> lanes_;            ///< By local index.
  std::vector<std::uint32_t> ids_;      ///< By local index.
};

/// Thread-local working memory of the sweep.
struct SweepScratch {
  Universe universe;
  std::vector<std::uint32_t> seeds;  ///< v-positions before the chunk still open at its start.
};

/// Appends to `pairs` (as keys: smaller index << id_bits | larger) the pairs found by the probes
/// at v-positions [first, last): each pair whose first box on u is one of them.
void sweep_chunk(const Layout& layout, std::uint32_t first, std::uint32_t last, SweepScratch& scratch,
                 std::vector<std::uint64_t>& pairs);

}  // namespace agrid::peers::bisap
