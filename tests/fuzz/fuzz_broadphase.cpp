// Fuzz target: a sequence of Broadphase calls (create, set_box, set_filter, remove, update)
// decoded from the fuzzer's bytes, against a model kept by brute force: after each update() the
// pairs, the began and ended lists, a box query and a segment query must be exactly the model's;
// and after each set_box, between updates, so must a box query and a segment sweeping a box from
// the old box to the new (the trees' float node tests against the exact one, with objects changed
// since the update). The queries read no byte: the corpus decodes as it did.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "agrid/broadphase.h"
#include "fuzz_input.h"
#include "oracle/broadphase_model.h"

namespace {

using agrid::Box;
using agrid::Filter;
using agrid::Handle;
using agrid::Pair;

/// Live objects at most: brute force stays quick.
constexpr std::size_t kMaxObjects = 200;
/// The filter groups and masks a byte picks from: everything, two disjoint groups, nothing.
constexpr std::uint32_t kFilterBits[4] = {0xffffffffu, 1u, 2u, 0u};

using Model = agrid::oracle::BroadphaseModel;
using agrid::oracle::difference;

Filter filter_from(std::uint8_t b) { return {kFilterBits[b & 3], kFilterBits[(b >> 2) & 3]}; }

/// The live handle a byte names (the byte modulo the live count), or none when nothing lives.
bool pick(const Model& model, std::uint8_t b, Handle& handle) {
  if (model.boxes.empty()) return false;
  handle = std::next(model.boxes.begin(), b % model.boxes.size())->first;
  return true;
}

/// Checks a box query and a segment query (from one box's min to its max, sweeping another box)
/// against the model.
void check_queries(const agrid::Broadphase& broadphase, const Model& model, const Box& box, const agrid::Segment& segment) {
  std::vector<Handle> hits;
  broadphase.for_each_overlap(box, [&](Handle h) {
    hits.push_back(h);
    return true;
  });
  std::sort(hits.begin(), hits.end());
  agrid::fuzz::require(hits == model.overlapping(box), "Broadphase::for_each_overlap");
  hits.clear();
  broadphase.for_each_hit(segment, [&](Handle h) { hits.push_back(h); });
  std::sort(hits.begin(), hits.end());
  agrid::fuzz::require(hits == model.hit_by(segment), "Broadphase::for_each_hit");
}

/// Checks everything the broadphase reports after an update against the model and the pairs of
/// the previous update; returns the new pairs.
std::vector<Pair> check_update(agrid::Broadphase& broadphase, const Model& model, const std::vector<Pair>& before) {
  const agrid::PairChanges& changes = broadphase.update();
  const std::vector<Pair> now = model.pairs();
  const auto pairs = broadphase.pairs();
  agrid::fuzz::require(std::vector<Pair>(pairs.begin(), pairs.end()) == now, "Broadphase::pairs");
  agrid::fuzz::require(changes.began == difference(now, before), "Broadphase::update began");
  agrid::fuzz::require(changes.ended == difference(before, now), "Broadphase::update ended");
  for (const auto& [handle, box] : model.boxes) {
    check_queries(broadphase, model, box, agrid::Segment{box.min, box.max, {}});
    break;  // One query an update: the pairs above already cover every box.
  }
  return now;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  agrid::fuzz::FuzzInput in(data, size);
  const agrid::Config config = in.broadphase_config();
  const bool raw = (in.byte() & 1) != 0;
  agrid::Broadphase broadphase(config);
  Model model;
  std::vector<Pair> pairs;
  Handle handle = 0;
  while (!in.empty()) {
    switch (in.byte() % 5) {
      case 0:
        if (model.boxes.size() < kMaxObjects) {
          const Box box = in.box(raw);
          const Filter filter = filter_from(in.byte());
          handle = broadphase.create(box, filter);
          agrid::fuzz::require(!model.boxes.contains(handle), "Broadphase::create (a live handle)");
          model.boxes[handle] = box;
          model.filters[handle] = filter;
        }
        break;
      case 1:
        if (pick(model, in.byte(), handle)) {
          const Box old = model.boxes[handle];
          const Box box = in.box(raw);
          model.boxes[handle] = box;
          broadphase.set_box(handle, box);
          // Sweeping the old box's edges (invalid where they are not finite: then nothing hits).
          const Box extent{{0, 0, 0}, {old.max.x - old.min.x, old.max.y - old.min.y, old.max.z - old.min.z}};
          check_queries(broadphase, model, box, agrid::Segment{old.min, box.max, extent});
        }
        break;
      case 2:
        if (pick(model, in.byte(), handle)) {
          model.filters[handle] = filter_from(in.byte());
          broadphase.set_filter(handle, model.filters[handle]);
        }
        break;
      case 3:
        if (pick(model, in.byte(), handle)) {
          broadphase.remove(handle);
          model.boxes.erase(handle);
          model.filters.erase(handle);
        }
        break;
      default:
        pairs = check_update(broadphase, model, pairs);
    }
  }
  check_update(broadphase, model, pairs);
  return 0;
}
