#pragma once
// What the parts of agrid._agrid share: the thread arena and the call that runs in it, errors
// named after the Python call, NumPy arrays in and out, and the functions that bind each part.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <tbb/task_arena.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agrid/agrid.h"

namespace agrid::python {

namespace py = pybind11;

// ---- threads (threads.cpp) --------------------------------------------------------------------

/// The arena agrid runs in, held by the caller for as long as it uses it: set_num_threads() may
/// replace the module's arena meanwhile, from another thread. nullptr: all cores.
std::shared_ptr<tbb::task_arena> current_arena();

/// Runs `work` without the GIL, in the module's arena as it was when the call began.
template <class Work>
auto run(Work&& work) {
  const std::shared_ptr<tbb::task_arena> arena = current_arena();
  const py::gil_scoped_release no_gil;
  if (arena == nullptr) return work();
  return arena->execute(std::forward<Work>(work));
}

// ---- errors (errors.cpp) ----------------------------------------------------------------------

/// Rethrows the exception being handled as Python's, its message led by `call` (the Python
/// name, "Broadphase.set_box") in place of the C++ one ("agrid::Broadphase::set_box"). Python
/// exceptions (a visitor's) pass unchanged.
[[noreturn]] void rethrow_named(std::string_view call);

/// Runs `body`; an exception leaves it named after the Python call (see rethrow_named).
template <class Body>
auto named(std::string_view call, Body&& body) {
  try {
    return body();
  } catch (...) {
    rethrow_named(call);
  }
}

// ---- arrays in (arrays_in.cpp) ----------------------------------------------------------------

/// `object` as a 2-D NumPy array of real numbers (TypeError otherwise) with `columns` columns
/// and, if rows >= 0, that many rows (ValueError otherwise). An empty sequence is 0 rows; integers
/// beyond 2^53, which no double holds exactly, are a ValueError.
py::array real_rows(const py::handle& object, const char* name, py::ssize_t columns, py::ssize_t rows = -1);

/// Boxes from (N, 3) mins and maxs into `boxes`: float32 copied as is, other dtypes rounded
/// outward.
void boxes_from(const py::handle& mins, const py::handle& maxs, std::vector<Box>& boxes);

/// Boxes from one (N, 6) array, or from mins and maxs: in place for an (N, 6) C-contiguous
/// float32 array (`keep` holds it), else converted into this thread's buffer (valid until the
/// next conversion on the thread).
std::span<const Box> boxes_of(const py::handle& boxes_or_mins, const py::handle& maxs, py::object& keep);

/// A box from two points of 3 reals, rounded outward to floats.
Box box_of(const py::handle& min, const py::handle& max);

/// A segment from two points of 3 finite reals (to the nearest floats); ValueError if one is not
/// finite (an infinite end would be a ray, which a Segment is not).
Segment segment_of(const py::handle& start, const py::handle& end);

/// A Python integer as a uint32 (a handle, a group, a mask, a Config count): TypeError if not an
/// integer, ValueError naming `name` if out of [0, 2^32 - 1].
std::uint32_t uint32_of(const py::handle& value, const char* name);

/// A 1-D array of handles (any integer dtype) as uint32s: ValueError if one is out of range.
std::vector<std::uint32_t> uint32s_of(const py::handle& values, const char* name, py::ssize_t count = -1);

// ---- arrays out (arrays_out.cpp) --------------------------------------------------------------

/// Indices or handles as a 1-D uint32 array, without a copy.
py::array_t<std::uint32_t> index_array(std::vector<std::uint32_t>&& indices);

/// Pairs as a (K, 2) uint32 array, without a copy: a Pair is two uint32s, first then second.
py::array_t<std::uint32_t> pair_array(std::vector<Pair>&& pairs);

/// Per query, the indices it found: CSR (offsets of M + 1, indices).
py::tuple csr(std::vector<std::uint64_t>&& offsets, std::vector<std::uint32_t>&& indices);

/// A box as (min, max), two float32 arrays of 3.
py::tuple box_arrays(const Box& box);

// ---- the parts -------------------------------------------------------------------------------

/// Config and Kernel (config.cpp); the repr of a Config object.
void bind_config(py::module_& m);
std::string config_repr(const py::object& config);

/// set_num_threads and get_num_threads (threads.cpp).
void bind_threads(py::module_& m);

/// find_all_pairs, Grid, Tree and PairFinder (structures.cpp).
void bind_structures(py::module_& m);

/// Broadphase (broadphase.cpp).
void bind_broadphase(py::module_& m);

/// Warns that `old_name` is `new_name` now: a DeprecationWarning at the caller's line
/// (config.cpp).
void warn_renamed(const std::string& old_name, const std::string& new_name);

}  // namespace agrid::python
