#pragma once
// Whether a polymorphic object's class was compiled with RTTI: typeid and dynamic_cast read its
// type_info, which a class compiled with -fno-rtti has not (a Bullet user's own broadphase or
// pair cache may be one), so they are asked only where this holds.

namespace agrid::bullet_detail {

/// True iff `object`'s class has type_info that typeid and dynamic_cast can read. In the Itanium
/// C++ ABI the slot just before a vtable's first virtual function points at it, and is null for
/// a class compiled without RTTI. Elsewhere, or with this file compiled without RTTI, false.
template <class Polymorphic>
[[nodiscard]] bool has_type_info(const Polymorphic& object) noexcept {
#if defined(__GXX_ABI_VERSION) && defined(__GXX_RTTI)
  const void* const* vtable = *reinterpret_cast<const void* const* const*>(&object);
  return vtable[-1] != nullptr;
#else
  static_cast<void>(object);
  return false;
#endif
}

}  // namespace agrid::bullet_detail
