#include "broadphase/object_table.h"

#include <algorithm>
#include <string>

namespace agrid::detail {

void ObjectTable::throw_not_live(const char* what) {
  throw std::invalid_argument(std::string("agrid::Broadphase::") + what + ": not a live handle");
}

bool ObjectTable::set_filter(Handle h, Filter filter) {
  check_live(h, "set_filter");
  Filter& old = filters_[h];
  if (old.group == filter.group && old.mask == filter.mask) return false;
  refusing_ = refusing_ + may_refuse(filter) - may_refuse(old);
  old = filter;
  refiltered_.set(h);
  mark_dirty(h);
  return true;
}

void ObjectTable::remove(Handle h) {
  check_live(h, "remove");
  alive_.reset(h);
  refiltered_.reset(h);
  --live_;
  invalid_ -= !is_valid(boxes_[h]);
  refusing_ -= may_refuse(filters_[h]);
  boxes_[h] = kAbsent;
  handles_.removed(h);
  mark_dirty(h);
}

std::span<const Handle> ObjectTable::take_dirty() {
  // Engines set boxes in the order they made the objects: mostly ascending already.
  if (!std::is_sorted(dirty_.begin(), dirty_.end())) std::sort(dirty_.begin(), dirty_.end());
  return dirty_;
}

void ObjectTable::forget_dirty() noexcept {
  for (const Handle h : dirty_) {
    dirty_bits_.reset(h);
    refiltered_.reset(h);
  }
  dirty_.clear();
}

void ObjectTable::finish_update() {
  handles_.recycle();
  std::size_t end = boxes_.size();
  while (end > 0 && !alive(static_cast<Handle>(end - 1))) --end;
  if (end == boxes_.size()) return;
  truncate(end);
  handles_.forget_from(static_cast<Handle>(end));
}

void ObjectTable::truncate(std::size_t end) {
  boxes_.resize(end);
  filters_.resize(end);
  motions_.resize(end);
  alive_.truncate(end);
  dirty_bits_.truncate(end);
  refiltered_.truncate(end);
}

void ObjectTable::give_back(std::size_t changed) {
  shrink_if_far_below(boxes_, boxes_.size());
  shrink_if_far_below(filters_, filters_.size());
  shrink_if_far_below(motions_, motions_.size());
  alive_.give_back();
  dirty_bits_.give_back();
  refiltered_.give_back();
  recent_changed_.note(changed);
  shrink_if_far_below(dirty_, std::min<std::size_t>(recent_changed_.value(), live_));
  handles_.give_back(live_);
}

std::size_t ObjectTable::bytes_held() const noexcept {
  return heap_bytes(boxes_) + heap_bytes(filters_) + heap_bytes(motions_) + alive_.bytes_held() +
         dirty_bits_.bytes_held() + refiltered_.bytes_held() + heap_bytes(dirty_) +
         handles_.bytes_held();
}

const char* ObjectTable::problem() const {
  if (const char* p = handles_.problem(boxes_.size())) return p;
  if (!dirty_.empty()) return "ObjectTable: changes left after an update";
  if (filters_.size() != boxes_.size() || motions_.size() != boxes_.size() || alive_.size() != boxes_.size() ||
      dirty_bits_.size() != boxes_.size() || refiltered_.size() != boxes_.size()) {
    return "ObjectTable: the columns disagree in length";
  }
  if (!boxes_.empty() && !alive(static_cast<Handle>(boxes_.size() - 1))) {
    return "ObjectTable: the table goes on past the highest live object";
  }
  if (handles_.reusable().size() != boxes_.size() - live_) return "ObjectTable: reusable handles are not the dead objects";
  for (const Handle h : handles_.reusable()) {
    if (alive(h)) return "ObjectTable: a reusable handle is live";
  }
  std::uint32_t alive_count = 0;
  std::uint32_t invalid = 0;
  std::uint32_t refusing = 0;
  for (Handle h = 0; h < boxes_.size(); ++h) {
    if (dirty_bits_.test(h) || refiltered_.test(h)) return "ObjectTable: an object is marked changed after an update";
    if (!alive(h)) {
      if (motions_[h].place != Place::none) return "ObjectTable: a removed object is still placed";
      if (!same_box(boxes_[h], kAbsent)) return "ObjectTable: a removed object keeps a box";
      continue;
    }
    ++alive_count;
    invalid += !is_valid(boxes_[h]);
    refusing += may_refuse(filters_[h]);
    if (is_valid(boxes_[h]) && !within(boxes_[h], motions_[h].fat)) return "ObjectTable: a box is not in its fat box";
  }
  if (alive_count != live_) return "ObjectTable: the live objects are miscounted";
  if (invalid != invalid_) return "ObjectTable: the invalid boxes are miscounted";
  if (refusing != refusing_) return "ObjectTable: the filters that may refuse are miscounted";
  return nullptr;
}

}  // namespace agrid::detail
