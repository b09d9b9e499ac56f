// find_all_pairs, Grid, Tree and PairFinder for Python: boxes as find_all_pairs takes them,
// pairs as (K, 2) uint32 arrays, each structure's config a copy.

#include "module.h"

namespace agrid::python {

namespace {

/// GridStats as a dict, its keys the C++ names.
py::dict stats_dict(const GridStats& s) {
  py::dict d;
  d["boxes"] = s.boxes;
  d["invalid_boxes"] = s.invalid_boxes;
  d["oversize_boxes"] = s.oversize_boxes;
  d["nodes"] = s.nodes;
  d["leaves"] = s.leaves;
  d["depth"] = s.depth;
  d["leaf_entries"] = s.leaf_entries;
  d["staying_entries"] = s.staying_entries;
  d["tasks"] = s.tasks;
  d["bytes_held"] = s.bytes_held;
  return d;
}

/// "<kind>(<what>, config=Config(...))".
std::string holder_repr(const char* kind, const std::string& what, const Config& config) {
  return std::string(kind) + "(" + what + (what.empty() ? "" : ", ") + "config=" + config_repr(py::cast(config)) + ")";
}

/// "<kind>.<method>", the Python call an error names.
std::string call(const char* kind, const char* method) { return std::string(kind) + "." + method; }

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

/// Segments from (M, 3) starts and ends, each end to the nearest float; ValueError naming the
/// first row that is not finite.
std::vector<Segment> segments_from(const py::handle& starts, const py::handle& ends) {
  const py::array_t<double, py::array::forcecast> a = real_rows(starts, "starts", 3);
  const py::array_t<double, py::array::forcecast> b = real_rows(ends, "ends", 3, a.shape(0));
  const auto s = a.unchecked<2>();
  const auto e = b.unchecked<2>();
  const auto point = [](const auto& rows, py::ssize_t i) {
    return Vec3{static_cast<float>(rows(i, 0)), static_cast<float>(rows(i, 1)), static_cast<float>(rows(i, 2))};
  };
  std::vector<Segment> segments;
  segments.reserve(static_cast<std::size_t>(a.shape(0)));
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    segments.push_back({point(s, i), point(e, i)});
    if (!is_valid(segments.back())) {
      throw py::value_error("starts[" + std::to_string(i) + "] and ends[" + std::to_string(i) +
                            "] must be finite (an infinite end is a ray: give an end beyond the boxes)");
    }
  }
  return segments;
}

/// A Grid or Tree for Python: build over boxes as find_all_pairs takes them, find the pairs.
template <class Structure>
class PyStructure {
 public:
  PyStructure(const char* kind, const Config& config) : kind_(kind), structure_(named(kind, [&] { return Structure(config); })) {}

  void build(const py::handle& boxes_or_mins, const py::handle& maxs) {
    named(call(kind_, "build"), [&] {
      py::object keep;
      const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
      run([&] { structure_.build(boxes); });
    });
  }

  py::array_t<std::uint32_t> find_pairs() {
    std::vector<Pair> pairs;
    named(call(kind_, "find_pairs"), [&] { run([&] { structure_.find_pairs(pairs); }); });
    return pair_array(std::move(pairs));
  }

  [[nodiscard]] py::dict stats() const { return stats_dict(structure_.stats()); }
  [[nodiscard]] Config config() const { return structure_.config(); }
  [[nodiscard]] std::string repr() const {
    return holder_repr(kind_, "boxes=" + std::to_string(structure_.stats().boxes), structure_.config());
  }

 protected:
  const char* kind_;
  Structure structure_;
};

/// A Tree for Python.
class PyTree : public PyStructure<Tree> {
 public:
  explicit PyTree(const Config& config) : PyStructure("Tree", config) {}
};

/// A Grid also answers box and segment queries, one at a time or in batches.
class PyGrid : public PyStructure<Grid> {
 public:
  explicit PyGrid(const Config& config) : PyStructure("Grid", config) {}

  py::array_t<std::uint32_t> query_box(const py::handle& min, const py::handle& max) const {
    const Box box = named("Grid.query_box", [&] { return box_of(min, max); });
    std::vector<std::uint32_t> out;
    run([&] { structure_.query(box, out); });
    return index_array(std::move(out));
  }

  py::tuple query_boxes(const py::handle& mins, const py::handle& maxs) const {
    std::vector<Box> boxes;
    named("Grid.query_boxes", [&] { boxes_from(mins, maxs, boxes); });
    return batch(static_cast<py::ssize_t>(boxes.size()),
                 [&](py::ssize_t i, std::vector<std::uint32_t>& out) { structure_.query(boxes[static_cast<std::size_t>(i)], out); });
  }

  py::array_t<std::uint32_t> query_segment(const py::handle& start, const py::handle& end) const {
    const Segment segment = named("Grid.query_segment", [&] { return segment_of(start, end); });
    std::vector<std::uint32_t> out;
    run([&] { structure_.query(segment, out); });
    return index_array(std::move(out));
  }

  py::tuple query_segments(const py::handle& starts, const py::handle& ends) const {
    const std::vector<Segment> segments = named("Grid.query_segments", [&] { return segments_from(starts, ends); });
    return batch(static_cast<py::ssize_t>(segments.size()), [&](py::ssize_t i, std::vector<std::uint32_t>& out) {
      structure_.query(segments[static_cast<std::size_t>(i)], out);
    });
  }
};

/// A PairFinder for Python: the pairs of each call's boxes, its memory kept between calls.
class PyPairFinder {
 public:
  explicit PyPairFinder(const Config& config) : finder_(named("PairFinder", [&] { return PairFinder(config); })) {}

  py::array_t<std::uint32_t> find_pairs(const py::handle& boxes_or_mins, const py::handle& maxs) {
    std::vector<Pair> pairs;
    named("PairFinder.find_pairs", [&] {
      py::object keep;
      const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
      run([&] { finder_.find_pairs(boxes, pairs); });
    });
    return pair_array(std::move(pairs));
  }

  [[nodiscard]] Config config() const { return finder_.config(); }
  [[nodiscard]] std::string repr() const {
    return holder_repr("PairFinder", "bytes_held=" + std::to_string(finder_.bytes_held()), finder_.config());
  }

 private:
  PairFinder finder_;
};

py::array_t<std::uint32_t> find_all_pairs(const py::handle& boxes_or_mins, const py::handle& maxs, const Config& config) {
  std::vector<Pair> pairs;
  named("find_all_pairs", [&] {
    py::object keep;
    const std::span<const Box> boxes = boxes_of(boxes_or_mins, maxs, keep);
    pairs = run([&] { return agrid::find_all_pairs(boxes, config); });
  });
  return pair_array(std::move(pairs));
}

constexpr const char* kConfigDoc = "A copy of the config it was made with (a change to the copy changes nothing here).";
constexpr const char* kGridStatsDoc = "Counts describing the last build, GridStats' fields by name.";

template <class Class>
void def_common(Class& cls) {
  cls.def_property_readonly("config", [](const typename Class::type& s) { return s.config(); }, kConfigDoc)
      .def("__repr__", [](const typename Class::type& s) { return s.repr(); });
}

void bind_grid(py::module_& m) {
  py::class_<PyGrid> grid(m, "Grid", "The sparse linear adaptive grid, kept between builds (a warm build allocates nothing).");
  grid.def(py::init<const Config&>(), py::arg("config") = Config{})
      .def("build", &PyGrid::build, py::arg("mins"), py::arg("maxs") = py::none(), "Rebuilds the grid over the boxes (as find_all_pairs takes them).")
      .def("find_pairs", &PyGrid::find_pairs, "Every overlapping pair, (K, 2) uint32, sorted.")
      .def("query_box", &PyGrid::query_box, py::arg("min"), py::arg("max"), "Indices of the boxes overlapping the box, sorted.")
      .def("query_boxes", &PyGrid::query_boxes, py::arg("mins"), py::arg("maxs"),
           "For (M, 3) query boxes: (offsets of M + 1, indices); query i found indices[offsets[i]:offsets[i + 1]].")
      .def("query_segment", &PyGrid::query_segment, py::arg("start"), py::arg("end"),
           "Indices of the boxes the segment hits, sorted; start and end must be finite (ValueError).")
      .def("query_segments", &PyGrid::query_segments, py::arg("starts"), py::arg("ends"),
           "For (M, 3) segment ends: (offsets of M + 1, indices), as query_boxes.")
      .def("stats", &PyGrid::stats, kGridStatsDoc);
  def_common(grid);
}

void bind_tree(py::module_& m) {
  py::class_<PyTree> tree(m, "Tree", "The tree of adaptive grids: the same pairs as a Grid, on all threads.");
  tree.def(py::init<const Config&>(), py::arg("config") = Config{})
      .def("build", &PyTree::build, py::arg("mins"), py::arg("maxs") = py::none(), "Rebuilds the tree over the boxes.")
      .def("find_pairs", &PyTree::find_pairs, "Every overlapping pair, (K, 2) uint32, sorted.")
      .def("stats", &PyTree::stats, "Counts describing the last build, summed over its grids (GridStats' fields by name).");
  def_common(tree);
}

void bind_pair_finder(py::module_& m) {
  py::class_<PyPairFinder> finder(m, "PairFinder",
                                  "Every overlapping pair of each call's boxes, by a Grid or the Tree as their count suits; "
                                  "its memory is kept between calls.");
  finder.def(py::init<const Config&>(), py::arg("config") = Config{})
      .def("find_pairs", &PyPairFinder::find_pairs, py::arg("mins"), py::arg("maxs") = py::none(),
           "Every overlapping pair of the boxes (as find_all_pairs takes them), (K, 2) uint32, sorted.");
  def_common(finder);
}

}  // namespace

void bind_structures(py::module_& m) {
  m.def("find_all_pairs", &find_all_pairs, py::arg("mins"), py::arg("maxs") = py::none(), py::arg("config") = Config{},
        "Every pair of overlapping boxes, as a (K, 2) uint32 array of rows (i, j), i < j, sorted.\n\n"
        "Boxes are (N, 3) arrays of mins and maxs, or one (N, 6) array (min x, y, z, max x, y, z; float32\n"
        "C-contiguous is read in place); [] is no boxes. Other dtypes than float32 are rounded outward to\n"
        "float32, so no overlap is lost (integers beyond 2^53 are a ValueError). Boxes are closed; a box\n"
        "with a NaN or min > max overlaps nothing.");
  bind_grid(m);
  bind_tree(m);
  bind_pair_finder(m);
}

}  // namespace agrid::python
