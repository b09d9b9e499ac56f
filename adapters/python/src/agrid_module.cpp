// agrid._agrid: the library for Python through pybind11, NumPy arrays in and out. Boxes come as
// (N, 3) arrays of mins and maxs (any real dtype; float32 as is, others rounded outward to
// float32 so that no overlap is lost) or as one (N, 6) array [min x, y, z, max x, y, z] (float32
// C-contiguous: read in place). agrid works with the GIL released, in the module's thread arena.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "agrid/agrid.h"
#include "agrid/float_rounding.h"
#include "agrid/version.h"

namespace py = pybind11;

namespace {

using agrid::Box;
using agrid::Pair;

// ---- threads ----------------------------------------------------------------------------------

/// The arena agrid runs in: all cores unless set_num_threads() said otherwise.
std::unique_ptr<tbb::task_arena>& arena() {
  static std::unique_ptr<tbb::task_arena> held;
  return held;
}

/// Runs `work` without the GIL, in the module's arena.
template <class Work>
auto run(Work&& work) {
  const py::gil_scoped_release no_gil;
  if (arena() == nullptr) return work();
  return arena()->execute(std::forward<Work>(work));
}

void set_num_threads(int threads) {
  if (threads < 0) throw py::value_error("set_num_threads: the count must be 0 (all cores) or more");
  arena() = threads == 0 ? nullptr : std::make_unique<tbb::task_arena>(threads);
}

int get_num_threads() {
  return arena() == nullptr ? tbb::this_task_arena::max_concurrency() : arena()->max_concurrency();
}

// ---- arrays in --------------------------------------------------------------------------------

/// `object` as a NumPy array of real numbers (TypeError otherwise), with `columns` columns and,
/// if rows >= 0, that many rows (ValueError otherwise).
py::array real_rows(const py::handle& object, const char* name, py::ssize_t columns, py::ssize_t rows = -1) {
  py::array array = py::array::ensure(object);
  if (!array) throw py::type_error(std::string(name) + " must be an array of numbers");
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(name) + " must hold real numbers, not " + std::string(py::str(array.dtype())));
  }
  if (array.ndim() != 2 || array.shape(1) != columns || (rows >= 0 && array.shape(0) != rows)) {
    std::string want = "(" + (rows >= 0 ? std::to_string(rows) : std::string("N")) + ", " + std::to_string(columns) + ")";
    throw py::value_error(std::string(name) + " must have shape " + want + ", got " + std::string(py::str(array.attr("shape"))));
  }
  return array;
}

/// Fills `boxes` from row accessors of mins and maxs: (i, axis) -> value, each rounded by
/// `down` (mins) and `up` (maxs).
template <class Lo, class Hi, class Down, class Up>
void fill_boxes(std::vector<Box>& boxes, const Lo& lo, const Hi& hi, Down down, Up up) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto r = static_cast<py::ssize_t>(i);
    boxes[i] = {{down(lo(r, 0)), down(lo(r, 1)), down(lo(r, 2))}, {up(hi(r, 0)), up(hi(r, 1)), up(hi(r, 2))}};
  }
}

/// Boxes from (N, 3) mins and maxs into `boxes`: float32 copied as is, other dtypes rounded
/// outward.
void boxes_from(const py::handle& mins, const py::handle& maxs, std::vector<Box>& boxes) {
  const py::array lo = real_rows(mins, "mins", 3);
  const py::array hi = real_rows(maxs, "maxs", 3, lo.shape(0));
  boxes.resize(static_cast<std::size_t>(lo.shape(0)));
  // The typed arrays are named: a converted one must outlive the accessors reading it.
  if (lo.dtype().is(py::dtype::of<float>()) && hi.dtype().is(py::dtype::of<float>())) {
    const py::array_t<float> l(lo);
    const py::array_t<float> h(hi);
    const auto same = [](float x) { return x; };
    fill_boxes(boxes, l.unchecked<2>(), h.unchecked<2>(), same, same);
  } else {
    const py::array_t<double, py::array::forcecast> l(lo);
    const py::array_t<double, py::array::forcecast> h(hi);
    fill_boxes(boxes, l.unchecked<2>(), h.unchecked<2>(), agrid::round_down_to_float, agrid::round_up_to_float);
  }
}

std::vector<Box> boxes_from(const py::handle& mins, const py::handle& maxs) {
  std::vector<Box> boxes;
  boxes_from(mins, maxs, boxes);
  return boxes;
}

/// A thread's buffer for converted boxes, kept between calls: fresh memory costs a page fault
/// per page (1M boxes: 5-25 ms a call, measured), so a frame-by-frame caller should not pay it
/// each time. It is given back when it holds more than kBufferSlack times what a call needs, so
/// a thread keeps at most that much more than its last call's boxes.
constexpr std::size_t kBufferSlack = 4;
std::vector<Box>& conversion_buffer(std::size_t boxes) {
  thread_local std::vector<Box> buffer;
  if (buffer.capacity() > kBufferSlack * boxes) std::vector<Box>().swap(buffer);
  return buffer;
}

/// Boxes from one (N, 6) array, or from mins and maxs: in place for an (N, 6) C-contiguous
/// float32 array (`keep` holds it), else converted into this thread's buffer (valid until the
/// next conversion on the thread).
std::span<const Box> boxes_of(const py::handle& boxes_or_mins, const py::handle& maxs, py::object& keep) {
  if (!maxs.is_none()) {
    const py::ssize_t rows = real_rows(boxes_or_mins, "mins", 3).shape(0);
    std::vector<Box>& buffer = conversion_buffer(static_cast<std::size_t>(rows));
    boxes_from(boxes_or_mins, maxs, buffer);
    return buffer;
  }
  const py::array all = real_rows(boxes_or_mins, "boxes", 6);
  if (all.dtype().is(py::dtype::of<float>()) && (all.flags() & py::array::c_style) != 0) {
    keep = all;  // read in place: a Box is six floats, min then max
    return {static_cast<const Box*>(all.data()), static_cast<std::size_t>(all.shape(0))};
  }
  std::vector<Box>& buffer = conversion_buffer(static_cast<std::size_t>(all.shape(0)));
  buffer.resize(static_cast<std::size_t>(all.shape(0)));
  const py::array_t<double, py::array::forcecast> converted(all);
  const auto rows = converted.unchecked<2>();
  const auto lo = [&rows](py::ssize_t i, py::ssize_t axis) { return rows(i, axis); };
  const auto hi = [&rows](py::ssize_t i, py::ssize_t axis) { return rows(i, axis + 3); };
  fill_boxes(buffer, lo, hi, agrid::round_down_to_float, agrid::round_up_to_float);
  return buffer;
}

/// A point from 3 reals, rounded down or up to floats (nearest for float input).
agrid::Vec3 point_of(const py::handle& object, const char* name, bool round_up) {
  const py::array_t<double, py::array::forcecast> p = py::array::ensure(object);
  if (!p || p.ndim() != 1 || p.shape(0) != 3) throw py::value_error(std::string(name) + " must be 3 numbers");
  const auto r = p.unchecked<1>();
  const auto round = [round_up](double x) { return round_up ? agrid::round_up_to_float(x) : agrid::round_down_to_float(x); };
  return {round(r(0)), round(r(1)), round(r(2))};
}

agrid::Vec3 nearest_point(const py::handle& object, const char* name) {
  const py::array_t<double, py::array::forcecast> p = py::array::ensure(object);
  if (!p || p.ndim() != 1 || p.shape(0) != 3) throw py::value_error(std::string(name) + " must be 3 numbers");
  const auto r = p.unchecked<1>();
  return {static_cast<float>(r(0)), static_cast<float>(r(1)), static_cast<float>(r(2))};
}

Box box_of(const py::handle& min, const py::handle& max) { return {point_of(min, "min", false), point_of(max, "max", true)}; }

// ---- arrays out -------------------------------------------------------------------------------

/// A vector handed to NumPy without a copy: the array owns it.
template <class T>
py::array_t<T> owning_array(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* held = new std::vector<T>(std::move(values));
  const py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, held->data(), owner);
}

/// Pairs as a (K, 2) uint32 array, without a copy: a Pair is two uint32s, first then second.
py::array_t<std::uint32_t> pair_array(std::vector<Pair>&& pairs) {
  static_assert(sizeof(Pair) == 2 * sizeof(std::uint32_t) && std::is_standard_layout_v<Pair>);
  const auto count = static_cast<py::ssize_t>(pairs.size());
  auto* held = new std::vector<Pair>(std::move(pairs));
  const py::capsule owner(held, [](void* p) { delete static_cast<std::vector<Pair>*>(p); });
  return py::array_t<std::uint32_t>({count, py::ssize_t{2}}, reinterpret_cast<const std::uint32_t*>(held->data()), owner);
}

/// Per query, the indices it found: CSR (offsets of M + 1, indices).
py::tuple csr(std::vector<std::uint64_t>&& offsets, std::vector<std::uint32_t>&& indices) {
  const auto queries = static_cast<py::ssize_t>(offsets.size());
  const auto found = static_cast<py::ssize_t>(indices.size());
  return py::make_tuple(owning_array(std::move(offsets), {queries}), owning_array(std::move(indices), {found}));
}

/// Runs query(i, out) for every row i < rows, gathering CSR arrays.
template <class Query>
py::tuple batch(py::ssize_t rows, Query&& query) {
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> indices;
  run([&] {
    std::vector<std::uint32_t> found;
    for (py::ssize_t i = 0; i < rows; ++i) {
      query(i, found);
      indices.insert(indices.end(), found.begin(), found.end());
      offsets.push_back(indices.size());
    }
  });
  return csr(std::move(offsets), std::move(indices));
}

py::array_t<std::uint32_t> index_array(std::vector<std::uint32_t>&& indices) {
  const auto n = static_cast<py::ssize_t>(indices.size());
  return owning_array(std::move(indices), {n});
}

// ---- the classes -------------------------------------------------------------------------------

/// A Grid or Tree for Python: build over boxes as find_all_pairs takes them, find the pairs.
template <class Structure>
class PyStructure {
 public:
  explicit PyStructure(const agrid::Config& config) : structure_(config) {}

  void build(const py::handle& boxes_or_mins, const py::handle& maxs) {
    py::object keep;
    const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
    run([&] { structure_.build(boxes); });
  }

  py::array_t<std::uint32_t> find_pairs() {
    std::vector<Pair> pairs;
    run([&] { structure_.find_pairs(pairs); });
    return pair_array(std::move(pairs));
  }

  [[nodiscard]] const agrid::Config& config() const { return structure_.config(); }

 protected:
  Structure structure_;
};

using PyTree = PyStructure<agrid::Tree>;

/// A PairFinder for Python: the pairs of each call's boxes, its memory kept between calls.
class PyPairFinder {
 public:
  explicit PyPairFinder(const agrid::Config& config) : finder_(config) {}

  py::array_t<std::uint32_t> find_pairs(const py::handle& boxes_or_mins, const py::handle& maxs) {
    py::object keep;
    const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
    std::vector<Pair> pairs;
    run([&] { finder_.find_pairs(boxes, pairs); });
    return pair_array(std::move(pairs));
  }

  [[nodiscard]] const agrid::Config& config() const { return finder_.config(); }

 private:
  agrid::PairFinder finder_;
};

/// A Grid also answers box and segment queries, one at a time or in batches.
class PyGrid : public PyStructure<agrid::Grid> {
 public:
  using PyStructure::PyStructure;

  py::array_t<std::uint32_t> query_box(const py::handle& min, const py::handle& max) const {
    const Box box = box_of(min, max);
    std::vector<std::uint32_t> out;
    run([&] { structure_.query(box, out); });
    return index_array(std::move(out));
  }

  py::tuple query_boxes(const py::handle& mins, const py::handle& maxs) const {
    const std::vector<Box> boxes = boxes_from(mins, maxs);
    return batch(static_cast<py::ssize_t>(boxes.size()),
                 [&](py::ssize_t i, std::vector<std::uint32_t>& out) { structure_.query(boxes[static_cast<std::size_t>(i)], out); });
  }

  py::array_t<std::uint32_t> query_segment(const py::handle& from, const py::handle& to) const {
    const agrid::Segment segment{nearest_point(from, "start"), nearest_point(to, "end")};
    std::vector<std::uint32_t> out;
    run([&] { structure_.query(segment, out); });
    return index_array(std::move(out));
  }

  py::tuple query_segments(const py::handle& starts, const py::handle& ends) const {
    const py::array_t<double, py::array::forcecast> a = real_rows(starts, "starts", 3);
    const py::array_t<double, py::array::forcecast> b = real_rows(ends, "ends", 3, a.shape(0));
    const auto s = a.unchecked<2>();
    const auto e = b.unchecked<2>();
    return batch(a.shape(0), [&](py::ssize_t i, std::vector<std::uint32_t>& out) {
      const agrid::Segment segment{{static_cast<float>(s(i, 0)), static_cast<float>(s(i, 1)), static_cast<float>(s(i, 2))},
                                   {static_cast<float>(e(i, 0)), static_cast<float>(e(i, 1)), static_cast<float>(e(i, 2))}};
      structure_.query(segment, out);
    });
  }
};

py::array_t<std::uint32_t> find_all_pairs(const py::handle& boxes_or_mins, const py::handle& maxs, const agrid::Config& config) {
  py::object keep;
  const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
  std::vector<Pair> pairs = run([&] { return agrid::find_all_pairs(boxes, config); });
  return pair_array(std::move(pairs));
}

py::tuple changes_of(const agrid::PairChanges& changes) {
  return py::make_tuple(pair_array(std::vector<Pair>(changes.began)), pair_array(std::vector<Pair>(changes.ended)));
}

/// Broadphase::query(box or segment) as a sorted array of handles.
template <class Query>
py::array_t<std::uint32_t> handles_meeting(const agrid::Broadphase& broadphase, const Query& query) {
  std::vector<agrid::Handle> out;
  run([&] { broadphase.query(query, out); });
  return index_array(std::move(out));
}

/// Calls a Python visit(handle) for each handle a for_each_* query reports (the GIL held): None
/// or a true value goes on, False (any false value but None) stops.
template <class Query, class ForEach>
void visit_handles(const agrid::Broadphase& broadphase, const Query& query, ForEach for_each, const py::function& visit) {
  (broadphase.*for_each)(query, [&visit](agrid::Handle h) {
    const py::object going_on = visit(h);
    return going_on.is_none() || py::cast<bool>(py::bool_(going_on));
  });
}

// ---- names of 0.3, kept one version ------------------------------------------------------------

/// Warns that `old_name` is `new_name` now: a DeprecationWarning at the caller's line (the
/// innermost Python frame, as warnings.warn(..., stacklevel=2) from a Python function).
void warn_renamed(const std::string& old_name, const std::string& new_name) {
  const std::string message = old_name + " is deprecated: use " + new_name + " (renamed in agrid 0.4)";
  if (PyErr_WarnEx(PyExc_DeprecationWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}

/// A Config field's name of 0.3, still read, set and taken by Config(**fields), with a warning.
struct RenamedField {
  const char* old_name;
  const char* new_name;
  std::uint32_t agrid::Config::*field;
  const char* doc;
};
constexpr RenamedField kRenamedFields[] = {
    {"task_entries", "tree_task_entries", &agrid::Config::tree_task_entries, "Deprecated: tree_task_entries (the name of agrid 0.3)."},
    {"tree_query_cost", "resting_query_cost", &agrid::Config::resting_query_cost, "Deprecated: resting_query_cost (the name of agrid 0.3)."},
};

[[nodiscard]] bool is_renamed_field(const std::string& name) {
  return std::any_of(std::begin(kRenamedFields), std::end(kRenamedFields), [&](const RenamedField& r) { return name == r.old_name; });
}

/// The names of Config's fields, in their order: the properties of the Python class but the
/// deprecated names.
std::vector<std::string> config_fields(const py::handle& config_type) {
  const py::object property = py::module_::import("builtins").attr("property");
  std::vector<std::string> names;
  for (const auto& [name, value] : py::cast<py::dict>(config_type.attr("__dict__"))) {
    auto field = py::cast<std::string>(name);
    if (py::isinstance(value, property) && !is_renamed_field(field)) names.push_back(std::move(field));
  }
  return names;
}

/// Config(**fields): the defaults, with the fields named set; an unknown name is a TypeError (a
/// deprecated name is set, with its warning).
agrid::Config config_from_fields(const py::kwargs& fields) {
  agrid::Config config;
  const py::object view = py::cast(&config, py::return_value_policy::reference);
  const std::vector<std::string> known = config_fields(py::type::of(view));
  for (const auto& [name, value] : fields) {
    const auto field = py::cast<std::string>(name);
    if (std::find(known.begin(), known.end(), field) == known.end() && !is_renamed_field(field)) {
      throw py::type_error("Config has no field '" + field + "'");
    }
    py::setattr(view, name, value);
  }
  return config;
}

/// Config(leaf_capacity=32, ...): every field, as Config(**fields) takes them.
/// Config(field=value, ...), which evaluates back to an equal Config where Config and Kernel are
/// in scope: a Kernel as Kernel.<name> (pybind11's own repr, <Kernel.scalar: 1>, is not Python).
std::string config_repr(const py::object& config) {
  std::string text = "Config(";
  for (const std::string& field : config_fields(py::type::of(config))) {
    if (text.back() != '(') text += ", ";
    const py::object value = config.attr(field.c_str());
    const std::string shown = py::isinstance<agrid::Kernel>(value)
                                  ? "Kernel." + py::cast<std::string>(value.attr("name"))
                                  : py::cast<std::string>(py::repr(value));
    text += field + "=" + shown;
  }
  return text + ")";
}

}  // namespace

PYBIND11_MODULE(_agrid, m) {
  m.doc() = "agrid: every overlapping pair of N axis-aligned boxes, fast (the native part of the agrid package)";
  m.attr("__version__") = AGRID_VERSION_STRING;

  py::enum_<agrid::Kernel>(m, "Kernel", "The instruction set of the pair kernel; all give the same pairs.")
      .value("automatic", agrid::Kernel::automatic)
      .value("scalar", agrid::Kernel::scalar)
      .value("avx2", agrid::Kernel::avx2)
      .value("avx512", agrid::Kernel::avx512);

  // In config.h's order: the grid's fields, the tree of grids', when to use the tree, the Broadphase's.
  py::class_<agrid::Config> config(m, "Config",
                                   "Tuning of agrid, its fields grouped by what reads them; the defaults are measured "
                                   "(docs/benchmarks.md). Config(leaf_capacity=16, ...) sets fields by name.");
  config.def(py::init(&config_from_fields))
      .def_readwrite("leaf_capacity", &agrid::Config::leaf_capacity, "The grid: a cell of at most this many boxes is a leaf, its boxes tested all against all.")
      .def_readwrite("big_span", &agrid::Config::big_span, "The grid: a box spanning more child cells than this (1 or 2) on some axis stays with its node.")
      .def_readwrite("max_staying_share", &agrid::Config::max_staying_share, "The grid: a cell splits only if at most this share of its boxes would stay with it.")
      .def_readwrite("max_copies_per_box", &agrid::Config::max_copies_per_box, "The grid: a cell splits only if its children hold at most this many copies per box.")
      .def_readwrite("sweep_threshold", &agrid::Config::sweep_threshold, "The grid: leaves longer than this are swept instead of tested all against all.")
      .def_readwrite("sweep_window", &agrid::Config::sweep_window, "The grid: a cell of up to 512 boxes is swept instead of split when each box meets at most this many others in the sweep; 0: only split (a Grid kept mostly for queries).")
      .def_readwrite("kernel", &agrid::Config::kernel, "The grid: the pair kernel's instruction set; all give the same pairs (avx2 avoids AVX-512 clock drops).")
      .def_readwrite("tree_task_entries", &agrid::Config::tree_task_entries, "The tree of grids (Tree): cells of more box copies than this are split in parallel; smaller ones are grouped into tasks of about this many, each one grid.")
      .def_readwrite("tree_min_boxes", &agrid::Config::tree_min_boxes, "A pair-finding call of at least this many boxes uses the tree of grids, with more than one thread: find_all_pairs' boxes; in Broadphase, the moving boxes, or the moving and resting ones when one grid pairs both.")
      .def_readwrite("fat_margin", &agrid::Config::fat_margin, "Broadphase only: fat boxes grow by this share of the longest edge.")
      .def_readwrite("rest_after", &agrid::Config::rest_after, "Broadphase only: a moving object rests after this many updates inside its fat box, while one grid pairs the moving and resting objects.")
      .def_readwrite("rest_after_querying", &agrid::Config::rest_after_querying, "Broadphase only: a moving object rests after this many updates inside its fat box, while the moving objects query the resting tree one by one.")
      .def_readwrite("rest_after_unchanged", &agrid::Config::rest_after_unchanged, "Broadphase only: a moving object rests after this many updates with its box unchanged.")
      .def_readwrite("filter_moving_pairs", &agrid::Config::filter_moving_pairs, "Broadphase only: False leaves the pairs with a moving member to the caller's filter.")
      .def_readwrite("resting_query_cost", &agrid::Config::resting_query_cost, "Broadphase only: one moving object's query of the resting tree, in boxes given to the grid; fewer moving objects than the resting ones / this query it, more are paired with them by one grid.")
      .def("problem", [](const agrid::Config& c) -> py::object {
        const char* p = c.problem();
        return p == nullptr ? py::object(py::none()) : py::object(py::str(p));
      }, "None if the config is usable, else what is wrong with it.")
      .def("__repr__", &config_repr);
  for (const RenamedField& renamed : kRenamedFields) {
    config.def_property(
        renamed.old_name,
        [renamed](const agrid::Config& c) {
          warn_renamed(std::string("Config.") + renamed.old_name, std::string("Config.") + renamed.new_name);
          return c.*renamed.field;
        },
        [renamed](agrid::Config& c, std::uint32_t value) {
          warn_renamed(std::string("Config.") + renamed.old_name, std::string("Config.") + renamed.new_name);
          c.*renamed.field = value;
        },
        renamed.doc);
  }

  m.def("set_num_threads", &set_num_threads, py::arg("threads"),
        "Runs agrid on this many threads (0: all cores, the default).");
  m.def("get_num_threads", &get_num_threads, "The threads agrid runs on.");

  m.def("find_all_pairs", &find_all_pairs, py::arg("mins"), py::arg("maxs") = py::none(), py::arg("config") = agrid::Config{},
        "Every pair of overlapping boxes, as a (K, 2) uint32 array of rows (i, j), i < j, sorted.\n\n"
        "Boxes are (N, 3) arrays of mins and maxs, or one (N, 6) array (min x, y, z, max x, y, z; float32\n"
        "C-contiguous is read in place). Other dtypes than float32 are rounded outward to float32, so no\n"
        "overlap is lost. Boxes are closed; a box with a NaN or min > max overlaps nothing.");

  py::class_<PyGrid>(m, "Grid", "The sparse linear adaptive grid, kept between builds (a warm build allocates nothing).")
      .def(py::init<const agrid::Config&>(), py::arg("config") = agrid::Config{})
      .def("build", &PyGrid::build, py::arg("mins"), py::arg("maxs") = py::none(), "Rebuilds the grid over the boxes (as find_all_pairs takes them).")
      .def("find_pairs", &PyGrid::find_pairs, "Every overlapping pair, (K, 2) uint32, sorted.")
      .def("query_box", &PyGrid::query_box, py::arg("min"), py::arg("max"), "Indices of the boxes overlapping the box, sorted.")
      .def("query_boxes", &PyGrid::query_boxes, py::arg("mins"), py::arg("maxs"),
           "For (M, 3) query boxes: (offsets of M + 1, indices); query i found indices[offsets[i]:offsets[i + 1]].")
      .def("query_segment", &PyGrid::query_segment, py::arg("start"), py::arg("end"), "Indices of the boxes the segment hits, sorted.")
      .def("query_segments", &PyGrid::query_segments, py::arg("starts"), py::arg("ends"),
           "For (M, 3) segment ends: (offsets of M + 1, indices), as query_boxes.")
      .def_property_readonly("config", &PyGrid::config);

  py::class_<PyTree>(m, "Tree", "The tree of adaptive grids: the same pairs as a Grid, on all threads.")
      .def(py::init<const agrid::Config&>(), py::arg("config") = agrid::Config{})
      .def("build", &PyTree::build, py::arg("mins"), py::arg("maxs") = py::none(), "Rebuilds the tree over the boxes.")
      .def("find_pairs", &PyTree::find_pairs, "Every overlapping pair, (K, 2) uint32, sorted.")
      .def_property_readonly("config", &PyTree::config);

  py::class_<PyPairFinder>(m, "PairFinder",
                           "Every overlapping pair of each call's boxes, by a Grid or the Tree as their count suits; "
                           "its memory is kept between calls.")
      .def(py::init<const agrid::Config&>(), py::arg("config") = agrid::Config{})
      .def("find_pairs", &PyPairFinder::find_pairs, py::arg("mins"), py::arg("maxs") = py::none(),
           "Every overlapping pair of the boxes (as find_all_pairs takes them), (K, 2) uint32, sorted.")
      .def_property_readonly("config", &PyPairFinder::config);

  const auto create = [](agrid::Broadphase& b, const py::handle& min, const py::handle& max, std::uint32_t group, std::uint32_t mask) {
    return b.create(box_of(min, max), {group, mask});
  };
  py::class_<agrid::Broadphase>(m, "Broadphase",
                                "Objects that come, move and go; update() gives the pairs that began and ended.")
      .def(py::init<const agrid::Config&>(), py::arg("config") = agrid::Config{})
      .def("create", create, py::arg("min"), py::arg("max"), py::arg("group") = 1u, py::arg("mask") = 0xffffffffu,
         "Adds an object; returns its handle. Two objects may pair iff each one's group meets the other's mask.")
      .def("add", [create](agrid::Broadphase& b, const py::handle& min, const py::handle& max, std::uint32_t group, std::uint32_t mask) {
        warn_renamed("Broadphase.add", "Broadphase.create");
        return create(b, min, max, group, mask);
      }, py::arg("min"), py::arg("max"), py::arg("group") = 1u, py::arg("mask") = 0xffffffffu,
         "Deprecated: create (the name of agrid 0.3).")
      .def("set_box", [](agrid::Broadphase& b, agrid::Handle h, const py::handle& min, const py::handle& max) {
        b.set_box(h, box_of(min, max));
      }, py::arg("handle"), py::arg("min"), py::arg("max"), "Moves the object.")
      .def("set_filter", [](agrid::Broadphase& b, agrid::Handle h, std::uint32_t group, std::uint32_t mask) {
        b.set_filter(h, {group, mask});
      }, py::arg("handle"), py::arg("group"), py::arg("mask"), "Sets the object's filter.")
      .def("remove", &agrid::Broadphase::remove, py::arg("handle"), "Removes the object; its pairs end at the next update().")
      .def("update", [](agrid::Broadphase& b) {
        const agrid::PairChanges* changes = nullptr;
        run([&] { changes = &b.update(); });
        return changes_of(*changes);
      }, "Brings the pairs up to date: (began, ended), each a (K, 2) uint32 array of handle pairs, sorted.")
      .def("pairs", [](const agrid::Broadphase& b) {
        std::vector<Pair> all;
        run([&] {
          const std::span<const Pair> p = b.pairs();
          all.assign(p.begin(), p.end());
        });
        return pair_array(std::move(all));
      }, "All pairs as of the last update(), (K, 2) uint32, sorted.")
      .def("query_box", [](const agrid::Broadphase& b, const py::handle& min, const py::handle& max) {
        return handles_meeting(b, box_of(min, max));
      }, py::arg("min"), py::arg("max"), "Handles of the objects whose current box overlaps the box, sorted.")
      .def("query_segment", [](const agrid::Broadphase& b, const py::handle& from, const py::handle& to) {
        return handles_meeting(b, agrid::Segment{nearest_point(from, "start"), nearest_point(to, "end")});
      }, py::arg("start"), py::arg("end"), "Handles of the objects whose current box the segment hits, sorted.")
      .def("for_each_overlap", [](const agrid::Broadphase& b, const py::handle& min, const py::handle& max, const py::function& visit) {
        visit_handles(b, box_of(min, max), &agrid::Broadphase::for_each_overlap, visit);
      }, py::arg("min"), py::arg("max"), py::arg("visit"),
         "Calls visit(handle) for each object whose current box overlaps the box, in no particular order, until it returns False.")
      .def("for_each_hit", [](const agrid::Broadphase& b, const py::handle& from, const py::handle& to, const py::function& visit) {
        visit_handles(b, agrid::Segment{nearest_point(from, "start"), nearest_point(to, "end")}, &agrid::Broadphase::for_each_hit, visit);
      }, py::arg("start"), py::arg("end"), py::arg("visit"),
         "Calls visit(handle) for each object whose current box the segment hits, in no particular order, until it returns False.")
      .def("contains", &agrid::Broadphase::contains, py::arg("handle"), "True iff the handle is a live object.")
      .def("__contains__", &agrid::Broadphase::contains)
      .def("stats", [](const agrid::Broadphase& b) {
        const agrid::BroadphaseStats s = b.stats();
        py::dict d;
        d["objects"] = s.objects;
        d["moving"] = s.moving;
        d["resting"] = s.resting;
        d["invalid"] = s.invalid;
        d["pairs"] = s.pairs;
        d["candidates"] = s.candidates;
        d["changed"] = s.changed;
        d["bytes_held"] = s.bytes_held;
        return d;
      }, "Counts describing the last update().");
}
