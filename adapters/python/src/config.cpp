// Config and Kernel for Python: fields checked as they are set (a count out of uint32's range is
// a ValueError, not a wrapped-around value), compared by value, printed as Python.

#include <pybind11/operators.h>

#include <algorithm>
#include <iterator>

#include "module.h"

namespace agrid::python {

namespace {

// ---- names of 0.3, kept one version ------------------------------------------------------------

/// A Config field's name of 0.3, still read, set and taken by Config(**fields), with a warning.
struct RenamedField {
  const char* old_name;
  const char* new_name;
  std::uint32_t Config::*field;
  const char* doc;
};
constexpr RenamedField kRenamedFields[] = {
    {"task_entries", "tree_task_entries", &Config::tree_task_entries, "Deprecated: tree_task_entries (the name of agrid 0.3)."},
    {"tree_query_cost", "resting_query_cost", &Config::resting_query_cost, "Deprecated: resting_query_cost (the name of agrid 0.3)."},
};

[[nodiscard]] bool is_renamed_field(const std::string& name) {
  return std::any_of(std::begin(kRenamedFields), std::end(kRenamedFields), [&](const RenamedField& r) { return name == r.old_name; });
}

// ---- fields ------------------------------------------------------------------------------------

using PyConfig = py::class_<Config>;

/// A count field: set from a Python integer in [0, 2^32 - 1] (ValueError otherwise).
void def_field(PyConfig& config, const char* name, std::uint32_t Config::*field, const char* doc) {
  config.def_property(
      name, [field](const Config& c) { return c.*field; },
      [field, name](Config& c, const py::handle& value) { c.*field = uint32_of(value, (std::string("Config.") + name).c_str()); }, doc);
}

/// Any other field (float, bool, Kernel): pybind11's conversion checks its type.
template <class T>
void def_field(PyConfig& config, const char* name, T Config::*field, const char* doc) {
  config.def_readwrite(name, field, doc);
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
Config config_from_fields(const py::kwargs& fields) {
  Config config;
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

/// The fields, in config.h's order: the grid's, the tree of grids', when to use the tree, the
/// Broadphase's.
void def_fields(PyConfig& config) {
  def_field(config, "leaf_capacity", &Config::leaf_capacity, "The grid: a cell of at most this many boxes is a leaf, its boxes tested all against all.");
  def_field(config, "big_span", &Config::big_span, "The grid: a box spanning more child cells than this (1 or 2) on some axis stays with its node.");
  def_field(config, "max_staying_share", &Config::max_staying_share, "The grid: a cell splits only if at most this share of its boxes would stay with it.");
  def_field(config, "max_copies_per_box", &Config::max_copies_per_box, "The grid: a cell splits only if its children hold at most this many copies per box.");
  def_field(config, "sweep_threshold", &Config::sweep_threshold, "The grid: leaves longer than this are swept instead of tested all against all.");
  def_field(config, "sweep_window", &Config::sweep_window, "The grid: a cell of up to 512 boxes is swept instead of split when each box meets at most this many others in the sweep; 0: only split (a Grid kept mostly for queries).");
  def_field(config, "kernel", &Config::kernel, "The grid: the pair kernel's instruction set; all give the same pairs (avx2 avoids AVX-512 clock drops).");
  def_field(config, "tree_task_entries", &Config::tree_task_entries, "The tree of grids (Tree): cells of more box copies than this are split in parallel; smaller ones are grouped into tasks of about this many, each one grid.");
  def_field(config, "tree_min_boxes", &Config::tree_min_boxes, "A pair-finding call of at least this many boxes uses the tree of grids, with more than one thread: find_all_pairs' boxes; in Broadphase, the moving boxes, or the moving and resting ones when one grid pairs both.");
  def_field(config, "fat_margin", &Config::fat_margin, "Broadphase only: fat boxes grow by this share of the longest edge.");
  def_field(config, "rest_after", &Config::rest_after, "Broadphase only: a moving object rests after this many updates inside its fat box, while one grid pairs the moving and resting objects.");
  def_field(config, "rest_after_querying", &Config::rest_after_querying, "Broadphase only: a moving object rests after this many updates inside its fat box, while the moving objects query the resting tree one by one.");
  def_field(config, "rest_after_unchanged", &Config::rest_after_unchanged, "Broadphase only: a moving object rests after this many updates with its box unchanged.");
  def_field(config, "resting_query_cost", &Config::resting_query_cost, "Broadphase only: one moving object's query of the resting tree, in boxes given to the grid; fewer moving objects than the resting ones / this query it, more are paired with them by one grid.");
}

void def_renamed_fields(PyConfig& config) {
  for (const RenamedField& renamed : kRenamedFields) {
    const std::string old_name = std::string("Config.") + renamed.old_name;
    const std::string new_name = std::string("Config.") + renamed.new_name;
    config.def_property(
        renamed.old_name,
        [renamed, old_name, new_name](const Config& c) {
          warn_renamed(old_name, new_name);
          return c.*renamed.field;
        },
        [renamed, old_name, new_name](Config& c, const py::handle& value) {
          warn_renamed(old_name, new_name);
          c.*renamed.field = uint32_of(value, old_name.c_str());
        },
        renamed.doc);
  }
}

}  // namespace

void warn_renamed(const std::string& old_name, const std::string& new_name) {
  const std::string message = old_name + " is deprecated: use " + new_name + " (renamed in agrid 0.4)";
  // stacklevel 1 from C++ is the innermost Python frame: the caller's line.
  if (PyErr_WarnEx(PyExc_DeprecationWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}

/// Config(field=value, ...), which evaluates back to an equal Config where Config and Kernel are
/// in scope: a Kernel as Kernel.<name> (pybind11's own repr, <Kernel.scalar: 1>, is not Python).
std::string config_repr(const py::object& config) {
  std::string text = "Config(";
  for (const std::string& field : config_fields(py::type::of(config))) {
    if (text.back() != '(') text += ", ";
    const py::object value = config.attr(field.c_str());
    const std::string shown = py::isinstance<Kernel>(value) ? "Kernel." + py::cast<std::string>(value.attr("name"))
                                                            : py::cast<std::string>(py::repr(value));
    text += field + "=" + shown;
  }
  return text + ")";
}

void bind_config(py::module_& m) {
  py::enum_<Kernel>(m, "Kernel", "The instruction set of the pair kernel; all give the same pairs.")
      .value("automatic", Kernel::automatic)
      .value("scalar", Kernel::scalar)
      .value("avx2", Kernel::avx2)
      .value("avx512", Kernel::avx512);

  PyConfig config(m, "Config",
                  "Tuning of agrid, its fields grouped by what reads them; the defaults are measured "
                  "(docs/benchmarks.md). Config(leaf_capacity=16, ...) sets fields by name; == compares the "
                  "values. A Grid, Tree, PairFinder or Broadphase keeps its own copy: its config property gives "
                  "a copy, so a change to it changes nothing until given to a new one.");
  config.def(py::init(&config_from_fields));
  def_fields(config);
  config
      .def("problem", [](const Config& c) -> py::object {
        const char* p = c.problem();
        return p == nullptr ? py::object(py::none()) : py::object(py::str(p));
      }, "None if the config is usable, else what is wrong with it.")
      .def(py::self == py::self)  // NOLINT(misc-redundant-expression): pybind11's operator syntax
      .def(py::self != py::self)  // NOLINT(misc-redundant-expression)
      .def("__repr__", &config_repr);
  def_renamed_fields(config);
}

}  // namespace agrid::python
