// sap: sort the boxes by their min on the axis where their centres vary most, then sweep: each
// box meets the later ones whose min is not past its max on that axis, tested on the other two
// (Terdiman's box pruning).

#include <vector>

#include "peers_impl.h"
#include "sweep.h"

namespace agrid::peers {
namespace {

using sweep::Entry;

class Sap final : public Peer {
 public:
  [[nodiscard]] std::string_view name() const override { return "sap"; }

  void find_pairs(std::span<const Box> boxes, std::vector<Pair>& out) override {
    sweep::valid_entries(boxes, entries_);
    const int axis = sweep::axes_by_variance(entries_)[0];
    sweep::sort_by_min(entries_, axis);
    keys_.reset(boxes.size());
    sweep::sweep_one(entries_, axis, [axis](const Entry& a, const Entry& b) { return sweep::meet_off(a, b, axis); },
                     keys_);
    keys_.sorted_pairs(out);
  }

 private:
  std::vector<Entry> entries_;  // the valid boxes, sorted by their min on the sweep axis
  sweep::PairKeys keys_;        // the pairs found
};

}  // namespace

std::unique_ptr<Peer> make_sap() { return std::make_unique<Sap>(); }

}  // namespace agrid::peers
