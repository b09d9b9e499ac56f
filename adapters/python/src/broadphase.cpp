// Broadphase for Python: objects one at a time or in batches of NumPy arrays (a batch is
// checked whole before any of it is applied), pairs that began and ended as (K, 2) arrays.

#include <algorithm>

#include "module.h"

namespace agrid::python {

namespace {

/// Filters from an (N, 2) array of (group, mask) rows.
std::vector<Filter> filters_of(const py::handle& filters, py::ssize_t rows) {
  py::array array = py::array::ensure(filters);  // not const: reshape() is not
  if (!array || array.ndim() != 2 || array.shape(0) != rows || array.shape(1) != 2) {
    throw py::value_error("filters must have shape (" + std::to_string(rows) + ", 2): rows of (group, mask)");
  }
  const std::vector<std::uint32_t> flat = uint32s_of(array.reshape({rows * 2}), "filters");
  std::vector<Filter> out(static_cast<std::size_t>(rows));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {flat[2 * i], flat[2 * i + 1]};
  return out;
}

/// True iff `object` is one integer (a NumPy array has __index__ too: rows are not one).
bool is_one_integer(const py::handle& object) { return PyIndex_Check(object.ptr()) != 0 && !py::isinstance<py::array>(object); }

/// True iff `object` is one point (3 numbers) rather than rows of them.
bool is_one_point(const py::handle& object) {
  const py::array array = py::array::ensure(object);
  return array && array.ndim() == 1 && array.size() != 0;
}

/// A Python visit(handle) as a for_each_* visitor (the GIL held): None or a true value goes on,
/// False (any false value but None) stops.
auto visitor(const py::function& visit) {
  return [&visit](Handle h) {
    const py::object going_on = visit(h);
    return going_on.is_none() || py::cast<bool>(py::bool_(going_on));
  };
}

/// A Broadphase and the config it was made with (which agrid::Broadphase does not hand out).
class PyBroadphase {
 public:
  explicit PyBroadphase(const Config& config) : config_(config), broadphase_(named("Broadphase", [&] { return Broadphase(config); })) {}

  /// create(min, max, group, mask) -> handle, or create(mins, maxs, filters) -> handles.
  py::object create(const py::handle& min, const py::handle& max, const py::handle& group, const py::handle& mask,
                    const py::handle& filters) {
    return named("Broadphase.create", [&]() -> py::object {
      const Filter filter{uint32_of(group, "group"), uint32_of(mask, "mask")};
      if (is_one_point(min)) {
        if (!filters.is_none()) throw py::value_error("filters is for rows of boxes; one object takes group and mask");
        return py::int_(broadphase_.create(box_of(min, max), filter));
      }
      return create_all(min, max, filter, filters);
    });
  }

  void set_box(const py::handle& handle, const py::handle& min, const py::handle& max) {
    named("Broadphase.set_box", [&] { broadphase_.set_box(uint32_of(handle, "handle"), box_of(min, max)); });
  }

  /// Moves the objects of `handles` to the boxes of their rows.
  void set_boxes(const py::handle& handles, const py::handle& mins, const py::handle& maxs) {
    named("Broadphase.set_boxes", [&] {
      py::object keep;
      const std::span<const Box> boxes = boxes_of(mins, maxs, keep);
      const std::vector<Handle> live = live_handles(handles, static_cast<py::ssize_t>(boxes.size()));
      run([&] {
        for (std::size_t i = 0; i < live.size(); ++i) broadphase_.set_box(live[i], boxes[i]);
      });
    });
  }

  void set_filter(const py::handle& handle, const py::handle& group, const py::handle& mask) {
    named("Broadphase.set_filter",
          [&] { broadphase_.set_filter(uint32_of(handle, "handle"), {uint32_of(group, "group"), uint32_of(mask, "mask")}); });
  }

  /// remove(handle), or remove(handles): every one live and none twice, else nothing is removed.
  void remove(const py::handle& handles) {
    named("Broadphase.remove", [&] {
      if (is_one_integer(handles)) return broadphase_.remove(uint32_of(handles, "handle"));
      std::vector<Handle> live = live_handles(handles);
      std::sort(live.begin(), live.end());
      if (std::adjacent_find(live.begin(), live.end()) != live.end()) throw py::value_error("handles lists an object twice");
      for (const Handle h : live) broadphase_.remove(h);
    });
  }

  py::tuple update() {
    const PairChanges* changes = nullptr;
    named("Broadphase.update", [&] { run([&] { changes = &broadphase_.update(); }); });
    return py::make_tuple(pair_array(std::vector<Pair>(changes->began)), pair_array(std::vector<Pair>(changes->ended)));
  }

  py::array_t<std::uint32_t> pairs() const {
    std::vector<Pair> all;
    run([&] {
      const std::span<const Pair> p = broadphase_.pairs();
      all.assign(p.begin(), p.end());
    });
    return pair_array(std::move(all));
  }

  [[nodiscard]] bool contains(const py::handle& handle) const {
    // Any integer may be asked about: one beyond uint32 is no handle.
    return is_one_integer(handle) && is_handle(handle) && broadphase_.contains(uint32_of(handle, "handle"));
  }

  py::tuple box(const py::handle& handle) const {
    return box_arrays(named("Broadphase.box", [&] { return broadphase_.box(live_handle(handle)); }));
  }

  py::tuple filter(const py::handle& handle) const {
    const Filter f = named("Broadphase.filter", [&] { return broadphase_.filter(live_handle(handle)); });
    return py::make_tuple(f.group, f.mask);
  }

  py::array_t<std::uint32_t> query_box(const py::handle& min, const py::handle& max) const {
    return handles_meeting(named("Broadphase.query_box", [&] { return box_of(min, max); }));
  }

  py::array_t<std::uint32_t> query_segment(const py::handle& start, const py::handle& end) const {
    return handles_meeting(named("Broadphase.query_segment", [&] { return segment_of(start, end); }));
  }

  void for_each_overlap(const py::handle& min, const py::handle& max, const py::function& visit) const {
    const Box box = named("Broadphase.for_each_overlap", [&] { return box_of(min, max); });
    broadphase_.for_each_overlap(box, visitor(visit));
  }

  void for_each_hit(const py::handle& start, const py::handle& end, const py::function& visit) const {
    const Segment segment = named("Broadphase.for_each_hit", [&] { return segment_of(start, end); });
    broadphase_.for_each_hit(segment, visitor(visit));
  }

  [[nodiscard]] py::dict stats() const;
  [[nodiscard]] const Config& config() const { return config_; }
  [[nodiscard]] std::string repr() const;

 private:
  py::array_t<std::uint32_t> create_all(const py::handle& mins, const py::handle& maxs, Filter filter, const py::handle& filters) {
    std::vector<Box> boxes;
    boxes_from(mins, maxs, boxes);
    const auto rows = static_cast<py::ssize_t>(boxes.size());
    const std::vector<Filter> each = filters.is_none() ? std::vector<Filter>(boxes.size(), filter) : filters_of(filters, rows);
    std::vector<Handle> handles(boxes.size());
    run([&] {
      for (std::size_t i = 0; i < boxes.size(); ++i) handles[i] = broadphase_.create(boxes[i], each[i]);
    });
    return index_array(std::move(handles));
  }

  [[nodiscard]] static bool is_handle(const py::handle& value) {
    try {
      (void)uint32_of(value, "handle");
      return true;
    } catch (const py::value_error&) {
      return false;
    }
  }

  [[nodiscard]] Handle live_handle(const py::handle& value) const {
    const Handle h = uint32_of(value, "handle");
    if (!broadphase_.contains(h)) throw py::value_error("not a live handle: " + std::to_string(h));
    return h;
  }

  /// The handles of a 1-D array (of `rows` entries if rows >= 0), each live (ValueError naming
  /// the first that is not).
  [[nodiscard]] std::vector<Handle> live_handles(const py::handle& values, py::ssize_t rows = -1) const {
    std::vector<Handle> handles = uint32s_of(values, "handles", rows);
    const auto dead = std::find_if(handles.begin(), handles.end(), [this](Handle h) { return !broadphase_.contains(h); });
    if (dead != handles.end()) throw py::value_error("not a live handle: " + std::to_string(*dead));
    return handles;
  }

  template <class Query>
  py::array_t<std::uint32_t> handles_meeting(const Query& query) const {
    std::vector<Handle> out;
    run([&] { broadphase_.query(query, out); });
    return index_array(std::move(out));
  }

  Config config_;
  Broadphase broadphase_;
};

py::dict PyBroadphase::stats() const {
  const BroadphaseStats s = broadphase_.stats();
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
}

std::string PyBroadphase::repr() const {
  const BroadphaseStats s = broadphase_.stats();
  return "Broadphase(objects=" + std::to_string(s.objects) + ", pairs=" + std::to_string(s.pairs) +
         ", config=" + config_repr(py::cast(config_)) + ")";
}

constexpr unsigned kAllGroups = 0xffffffffu;

void bind_queries(py::class_<PyBroadphase>& cls) {
  cls.def("pairs", &PyBroadphase::pairs, "All pairs as of the last update(), (K, 2) uint32, sorted.")
      .def("query_box", &PyBroadphase::query_box, py::arg("min"), py::arg("max"), "Handles of the objects whose current box overlaps the box, sorted.")
      .def("query_segment", &PyBroadphase::query_segment, py::arg("start"), py::arg("end"),
           "Handles of the objects whose current box the segment hits, sorted; start and end must be finite (ValueError).")
      .def("for_each_overlap", &PyBroadphase::for_each_overlap, py::arg("min"), py::arg("max"), py::arg("visit"),
           "Calls visit(handle) for each object whose current box overlaps the box, in no particular order, until it returns False.")
      .def("for_each_hit", &PyBroadphase::for_each_hit, py::arg("start"), py::arg("end"), py::arg("visit"),
           "Calls visit(handle) for each object whose current box the segment hits, in no particular order, until it returns False.")
      .def("contains", &PyBroadphase::contains, py::arg("handle"), "True iff the handle is a live object.")
      .def("__contains__", &PyBroadphase::contains)
      .def("box", &PyBroadphase::box, py::arg("handle"), "The object's current box as (min, max), float32 arrays of 3 (as agrid stores it).")
      .def("filter", &PyBroadphase::filter, py::arg("handle"), "The object's filter as (group, mask).")
      .def("stats", &PyBroadphase::stats, "Counts describing the last update(), BroadphaseStats' fields by name.")
      .def_property_readonly("config", [](const PyBroadphase& b) { return b.config(); },
                             "A copy of the config it was made with (a change to the copy changes nothing here).")
      .def("__repr__", &PyBroadphase::repr);
}

}  // namespace

void bind_broadphase(py::module_& m) {
  py::class_<PyBroadphase> cls(m, "Broadphase", "Objects that come, move and go; update() gives the pairs that began and ended.");
  cls.def(py::init<const Config&>(), py::arg("config") = Config{})
      .def("create", &PyBroadphase::create, py::arg("min"), py::arg("max"), py::arg("group") = 1u, py::arg("mask") = kAllGroups,
           py::arg("filters") = py::none(),
           "Adds an object (min and max: 3 numbers each) and returns its handle, or adds one object a row\n"
           "((N, 3) mins and maxs) and returns their handles, a uint32 array in the rows' order. Two objects\n"
           "may pair iff each one's group meets the other's mask: group and mask apply to every row, or\n"
           "filters, an (N, 2) array of (group, mask) rows, gives each its own.")
      .def("add", [](PyBroadphase& b, const py::handle& min, const py::handle& max, const py::handle& group, const py::handle& mask) {
        warn_renamed("Broadphase.add", "Broadphase.create");
        return b.create(min, max, group, mask, py::none());
      }, py::arg("min"), py::arg("max"), py::arg("group") = 1u, py::arg("mask") = kAllGroups, "Deprecated: create (the name of agrid 0.3).")
      .def("set_box", &PyBroadphase::set_box, py::arg("handle"), py::arg("min"), py::arg("max"), "Moves the object.")
      .def("set_boxes", &PyBroadphase::set_boxes, py::arg("handles"), py::arg("mins"), py::arg("maxs") = py::none(),
           "Moves the objects of a 1-D array of handles to the boxes of their rows ((N, 3) mins and maxs, or\n"
           "one (N, 6) array, as find_all_pairs takes them); a handle that is not live is a ValueError\n"
           "and moves nothing.")
      .def("set_filter", &PyBroadphase::set_filter, py::arg("handle"), py::arg("group"), py::arg("mask"), "Sets the object's filter.")
      .def("remove", &PyBroadphase::remove, py::arg("handles"),
           "Removes the object of a handle, or of each handle of a 1-D array (all live and none twice, or a\n"
           "ValueError and nothing removed); their pairs end at the next update().")
      .def("update", &PyBroadphase::update,
           "Brings the pairs up to date: (began, ended), each a (K, 2) uint32 array of handle pairs, sorted.");
  bind_queries(cls);
}

}  // namespace agrid::python
