// NumPy arrays and Python numbers in: boxes, points, segments, handles; every bad input a
// TypeError or ValueError that says what is wrong.

#include <array>
#include <limits>

#include "agrid/float_rounding.h"
#include "module.h"

namespace agrid::python {

namespace {

/// The largest magnitude up to which every integer is a double: beyond it, an integer
/// coordinate would be rounded to a neighbour, maybe inward, before agrid rounds outward.
constexpr long long kExactIntegers = 1LL << 53;

/// A Python or NumPy integer as a long long, saturated at its limits (out of range either way).
long long saturated(const py::handle& integer) {
  const auto value = py::reinterpret_steal<py::object>(PyNumber_Index(integer.ptr()));
  if (!value) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0) return overflow > 0 ? std::numeric_limits<long long>::max() : std::numeric_limits<long long>::min();
  return v;
}

/// True iff the integer array holds a value outside [lowest, highest].
bool outside(const py::array& integers, long long lowest, long long highest) {
  return integers.size() > 0 && (saturated(integers.attr("min")()) < lowest || saturated(integers.attr("max")()) > highest);
}

/// ValueError if the integer array `array` holds a value beyond +-2^53 (only 64-bit integers can).
void check_exact_integers(const py::array& array, const char* name) {
  constexpr py::ssize_t kNarrowBytes = 4;  // 32-bit integers and smaller are doubles exactly
  if (array.itemsize() > kNarrowBytes && outside(array, -kExactIntegers, kExactIntegers)) {
    throw py::value_error(std::string(name) + " holds integers beyond 2^53, which no double holds exactly: give floats");
  }
}

/// `object` as an array of real numbers: TypeError otherwise.
py::array real_array(const py::handle& object, const char* name) {
  py::array array = py::array::ensure(object);
  if (!array) throw py::type_error(std::string(name) + " must be an array of numbers");
  const char kind = array.dtype().kind();
  if (kind == 'O') {
    throw py::type_error(std::string(name) + " must hold real numbers, not Python objects (integers beyond 64 bits are no NumPy numbers)");
  }
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error(std::string(name) + " must hold real numbers, not " + std::string(py::str(array.dtype())));
  }
  if (kind != 'f') check_exact_integers(array, name);
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

/// A point of 3 reals as doubles.
std::array<double, 3> point_of(const py::handle& object, const char* name) {
  const py::array real = real_array(object, name);
  if (real.ndim() != 1 || real.shape(0) != 3) throw py::value_error(std::string(name) + " must be 3 numbers");
  const py::array_t<double, py::array::forcecast> p(real);
  const auto r = p.unchecked<1>();
  return {r(0), r(1), r(2)};
}

/// A point of 3 reals rounded by `round` to floats.
template <class Round>
Vec3 rounded(const std::array<double, 3>& p, Round round) {
  return {round(p[0]), round(p[1]), round(p[2])};
}

float nearest_float(double x) { return static_cast<float>(x); }

}  // namespace

py::array real_rows(const py::handle& object, const char* name, py::ssize_t columns, py::ssize_t rows) {
  py::array array = real_array(object, name);
  if (array.ndim() == 1 && array.size() == 0) array = array.reshape({py::ssize_t{0}, columns});  // [] is no rows
  if (array.ndim() != 2 || array.shape(1) != columns || (rows >= 0 && array.shape(0) != rows)) {
    std::string want = "(" + (rows >= 0 ? std::to_string(rows) : std::string("N")) + ", " + std::to_string(columns) + ")";
    throw py::value_error(std::string(name) + " must have shape " + want + ", got " + std::string(py::str(array.attr("shape"))));
  }
  return array;
}

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

Box box_of(const py::handle& min, const py::handle& max) {
  return {rounded(point_of(min, "min"), agrid::round_down_to_float), rounded(point_of(max, "max"), agrid::round_up_to_float)};
}

Segment segment_of(const py::handle& start, const py::handle& end) {
  const Segment segment{rounded(point_of(start, "start"), nearest_float), rounded(point_of(end, "end"), nearest_float)};
  if (!is_valid(segment)) {
    throw py::value_error("a segment's start and end must be finite (an infinite end is a ray: give an end beyond the boxes)");
  }
  return segment;
}

std::uint32_t uint32_of(const py::handle& value, const char* name) {
  if (PyIndex_Check(value.ptr()) == 0) throw py::type_error(std::string(name) + " must be an integer, not " + std::string(py::str(py::type::of(value))));
  const long long v = saturated(value);
  if (v < 0 || v > std::numeric_limits<std::uint32_t>::max()) {
    throw py::value_error(std::string(name) + " must be in [0, 2^32 - 1], got " + std::string(py::str(value)));
  }
  return static_cast<std::uint32_t>(v);
}

std::vector<std::uint32_t> uint32s_of(const py::handle& values, const char* name, py::ssize_t count) {
  py::array array = py::array::ensure(values);
  if (!array) throw py::type_error(std::string(name) + " must be an array of integers");
  if (array.ndim() == 1 && array.size() == 0) array = py::array_t<std::uint32_t>(0);  // [] is none (NumPy makes it float64)
  const char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u') throw py::type_error(std::string(name) + " must hold integers, not " + std::string(py::str(array.dtype())));
  if (array.ndim() != 1 || (count >= 0 && array.shape(0) != count)) {
    const std::string want = count >= 0 ? std::to_string(count) : std::string("N");
    throw py::value_error(std::string(name) + " must have shape (" + want + ",), got " + std::string(py::str(array.attr("shape"))));
  }
  if (!array.dtype().is(py::dtype::of<std::uint32_t>()) && outside(array, 0, std::numeric_limits<std::uint32_t>::max())) {
    throw py::value_error(std::string(name) + " must be in [0, 2^32 - 1]");
  }
  const py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast> converted(array);  // a strided view read in order
  const auto* data = converted.data();
  return {data, data + converted.size()};
}

}  // namespace agrid::python
