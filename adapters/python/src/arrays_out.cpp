// NumPy arrays out: results handed over without a copy, the array owning the vector.

#include <type_traits>

#include "module.h"

namespace agrid::python {

namespace {

/// A vector handed to NumPy without a copy, viewed as `shape` of `Element`s: the array owns it.
template <class Element, class T>
py::array_t<Element> owning_array(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* held = new std::vector<T>(std::move(values));
  const py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<Element>(shape, reinterpret_cast<const Element*>(held->data()), owner);
}

}  // namespace

py::array_t<std::uint32_t> index_array(std::vector<std::uint32_t>&& indices) {
  const auto n = static_cast<py::ssize_t>(indices.size());
  return owning_array<std::uint32_t>(std::move(indices), {n});
}

py::array_t<std::uint32_t> pair_array(std::vector<Pair>&& pairs) {
  static_assert(sizeof(Pair) == 2 * sizeof(std::uint32_t) && std::is_standard_layout_v<Pair>);
  const auto count = static_cast<py::ssize_t>(pairs.size());
  return owning_array<std::uint32_t>(std::move(pairs), {count, py::ssize_t{2}});
}

py::tuple csr(std::vector<std::uint64_t>&& offsets, std::vector<std::uint32_t>&& indices) {
  const auto queries = static_cast<py::ssize_t>(offsets.size());
  return py::make_tuple(owning_array<std::uint64_t>(std::move(offsets), {queries}), index_array(std::move(indices)));
}

py::tuple box_arrays(const Box& box) {
  const auto point = [](const Vec3& p) {
    py::array_t<float> a(3);
    auto w = a.mutable_unchecked<1>();
    w(0) = p.x;
    w(1) = p.y;
    w(2) = p.z;
    return a;
  };
  return py::make_tuple(point(box.min), point(box.max));
}

}  // namespace agrid::python
