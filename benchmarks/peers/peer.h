#pragma once
// Peer: a broadphase from the literature or from a library users already have, behind one small
// interface (boxes in, every overlapping pair out), to run side by side with agrid on the same
// boxes (agrid-bench-peers) and to check against the oracle (tests/peers).

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agrid/box.h"
#include "agrid/pair.h"

namespace agrid::peers {

class Peer {
 public:
  virtual ~Peer() = default;

  /// Its name in benchmarks and tests ("sap", "uniform-grid", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;

  /// True iff it runs on the threads of the caller's task arena (else on the calling thread).
  [[nodiscard]] virtual bool parallel() const { return false; }

  /// Why it cannot take these boxes, or empty if it can (a uniform grid cannot take an infinite
  /// box, for instance). Boxes it cannot take are never given to find_pairs.
  [[nodiscard]] virtual std::string cannot_take(std::span<const Box> boxes) const;

  /// True iff it may report pairs whose boxes do not overlap (a quantized sweep, for instance):
  /// the tests then drop those and count them as extra instead of failing.
  [[nodiscard]] virtual bool conservative() const { return false; }

  /// About how long find_pairs takes on these boxes on this project's machine, in seconds, when
  /// that can exceed the benchmark's limit (brute force on a million boxes); 0 when it is fast
  /// enough for any scene.
  [[nodiscard]] virtual double estimated_seconds(std::span<const Box> /*boxes*/) const { return 0.0; }

  /// Untimed set-up on these boxes before find_pairs is timed on the same boxes (a library's
  /// first frame, when its second frame is what is measured). find_pairs is correct without it.
  virtual void prepare(std::span<const Box> /*boxes*/) {}

  /// Replaces `out` with the overlapping pairs (i, j), i < j, sorted, each once. Closed boxes;
  /// boxes with a NaN or min > max overlap nothing. A peer conservative by design may add pairs
  /// whose boxes do not overlap: the tests count them as extra.
  virtual void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) = 0;
};

/// Every peer, in a fixed order.
[[nodiscard]] std::vector<std::unique_ptr<Peer>> make_peers();

}  // namespace agrid::peers
