#include "broadphase/object_table.h"

#include <algorithm>
#include <string>

namespace agrid::detail {

void ObjectTable::throw_not_live(const char* what) {
  throw std::invalid_argument(std::string("agrid::Broadphase::") + what + ": not a live handle");
}

bool ObjectTable::set_filter(Handle h, Filter filter, float fat_margin) {
  Object& o = live(h, "set_filter");
  Filter& old = filters_[h];
  if (old.group == filter.group && old.mask == filter.mask) return false;
  refusing_ = refusing_ + may_refuse(filter) - may_refuse(old);
  old = filter;
  reset_fat(o, fat_margin);
  mark_dirty(h);
  return true;
}

void ObjectTable::remove(Handle h) {
  Object& o = live(h, "remove");
  o.alive = false;
  --live_;
  invalid_ -= !is_valid(o.box);
  refusing_ -= may_refuse(filters_[h]);
  handles_.removed(h);
  mark_dirty(h);
}

std::span<const Handle> ObjectTable::take_dirty() {
  // Engines set boxes in the order they made the objects: mostly ascending already.
  if (!std::is_sorted(dirty_.begin(), dirty_.end())) std::sort(dirty_.begin(), dirty_.end());
  return dirty_;
}

void ObjectTable::forget_dirty() {
  AGRID_ASSERT(std::none_of(dirty_.begin(), dirty_.end(), [&](Handle h) { return objects_[h].dirty; }));
  dirty_.clear();
}

void ObjectTable::finish_update() {
  handles_.recycle();
  std::size_t end = objects_.size();
  while (end > 0 && !objects_[end - 1].alive) --end;
  if (end == objects_.size()) return;
  objects_.erase(objects_.begin() + static_cast<std::ptrdiff_t>(end), objects_.end());
  filters_.erase(filters_.begin() + static_cast<std::ptrdiff_t>(end), filters_.end());
  handles_.forget_from(static_cast<Handle>(end));
}

void ObjectTable::give_back(std::size_t changed) {
  shrink_if_far_below(objects_, objects_.size());
  shrink_if_far_below(filters_, filters_.size());
  recent_changed_.note(changed);
  shrink_if_far_below(dirty_, std::min<std::size_t>(recent_changed_.value(), live_));
  handles_.give_back(live_);
}

std::size_t ObjectTable::bytes_held() const noexcept {
  return heap_bytes(objects_) + heap_bytes(filters_) + heap_bytes(dirty_) + handles_.bytes_held();
}

const char* ObjectTable::problem() const {
  if (const char* p = handles_.problem(objects_.size())) return p;
  if (!dirty_.empty()) return "ObjectTable: changes left after an update";
  if (filters_.size() != objects_.size()) return "ObjectTable: filters and objects disagree in number";
  if (!objects_.empty() && !objects_.back().alive) return "ObjectTable: the table goes on past the highest live object";
  if (handles_.reusable().size() != objects_.size() - live_) return "ObjectTable: reusable handles are not the dead objects";
  for (const Handle h : handles_.reusable()) {
    if (objects_[h].alive) return "ObjectTable: a reusable handle is live";
  }
  std::uint32_t alive = 0;
  std::uint32_t invalid = 0;
  std::uint32_t refusing = 0;
  for (Handle h = 0; h < objects_.size(); ++h) {
    const Object& o = objects_[h];
    if (o.dirty) return "ObjectTable: an object is marked changed after an update";
    if (!o.alive) {
      if (o.place != Place::none) return "ObjectTable: a removed object is still placed";
      continue;
    }
    ++alive;
    invalid += !is_valid(o.box);
    refusing += may_refuse(filters_[h]);
    if (is_valid(o.box) && !within(o.box, o.fat)) return "ObjectTable: a box is not in its fat box";
    if (o.leaving || o.joining) return "ObjectTable: a transition left half done";
  }
  if (alive != live_) return "ObjectTable: the live objects are miscounted";
  if (invalid != invalid_) return "ObjectTable: the invalid boxes are miscounted";
  if (refusing != refusing_) return "ObjectTable: the filters that may refuse are miscounted";
  return nullptr;
}

}  // namespace agrid::detail
