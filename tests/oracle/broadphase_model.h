#pragma once
// BroadphaseModel: what a Broadphase should report, kept by brute force (the live objects by
// handle, their pairs and query hits by testing every one), for the Broadphase tests and the
// Broadphase fuzz target.

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

#include "agrid/broadphase.h"
#include "oracle/oracle.h"

namespace agrid::oracle {

struct BroadphaseModel {
  std::map<Handle, Box> boxes;
  std::map<Handle, Filter> filters;

  /// Every pair of live objects whose boxes overlap and whose filters pass, sorted.
  [[nodiscard]] std::vector<Pair> pairs() const {
    std::vector<Pair> out;
    for (auto a = boxes.begin(); a != boxes.end(); ++a) {
      for (auto b = std::next(a); b != boxes.end(); ++b) {
        if (overlaps(a->second, b->second) && passes(filters.at(a->first), filters.at(b->first))) {
          out.push_back({a->first, b->first});
        }
      }
    }
    return out;
  }

  /// The same pairs as pairs(), from the oracle's sort-and-sweep over the live boxes: O(n log n),
  /// for models too large for brute force.
  [[nodiscard]] std::vector<Pair> swept_pairs() const {
    std::vector<Handle> handles;
    std::vector<Box> live;
    for (const auto& [handle, box] : boxes) {
      handles.push_back(handle);
      live.push_back(box);
    }
    std::vector<Pair> out;
    for (const Pair& p : oracle::pairs(live)) {
      const Handle a = handles[p.first];
      const Handle b = handles[p.second];
      if (passes(filters.at(a), filters.at(b))) out.push_back({a, b});
    }
    return out;  // handles ascend with the indices: still sorted
  }

  /// The live objects whose boxes overlap `query`, ascending.
  [[nodiscard]] std::vector<Handle> overlapping(const Box& query) const {
    std::vector<Handle> out;
    for (const auto& [handle, box] : boxes) {
      if (overlaps(query, box)) out.push_back(handle);
    }
    return out;
  }

  /// The live objects the segment hits, ascending.
  [[nodiscard]] std::vector<Handle> hit_by(const Segment& segment) const {
    std::vector<Handle> out;
    for (const auto& [handle, box] : boxes) {
      if (hits(segment, box)) out.push_back(handle);
    }
    return out;
  }
};

/// The pairs of sorted `a` that are not in sorted `b` (what began, or ended, between two lists).
[[nodiscard]] inline std::vector<Pair> difference(const std::vector<Pair>& a, const std::vector<Pair>& b) {
  std::vector<Pair> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace agrid::oracle
