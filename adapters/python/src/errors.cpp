// Errors named after the Python call: the core says "agrid::Tree::build: ...", a Python user
// called Tree.build.

#include <new>
#include <stdexcept>
#include <string_view>

#include "module.h"

namespace agrid::python {

namespace {

/// `message` led by `call`: the core's leading "agrid::<Class>::<function>: " (a C++ call) is
/// dropped, "agrid::<Class>: " (what is wrong, as "agrid::Config: ") loses its namespace.
std::string led_by(std::string_view call, std::string_view message) {
  constexpr std::string_view core_namespace = "agrid::";
  constexpr std::string_view separator = ": ";
  if (message.starts_with(core_namespace)) {
    message.remove_prefix(core_namespace.size());
    const std::size_t end = message.find(separator);
    if (end != std::string_view::npos && message.substr(0, end).find("::") != std::string_view::npos) {
      message.remove_prefix(end + separator.size());
    }
  }
  return std::string(call).append(separator).append(message);
}

}  // namespace

void rethrow_named(std::string_view call) {
  try {
    throw;
  } catch (const py::error_already_set&) {
    throw;  // raised by Python code (a visitor): its own
  } catch (const py::type_error& e) {
    throw py::type_error(led_by(call, e.what()));
  } catch (const py::value_error& e) {
    throw py::value_error(led_by(call, e.what()));
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError, as pybind11 says it
  } catch (const std::invalid_argument& e) {
    throw py::value_error(led_by(call, e.what()));
  } catch (const std::length_error& e) {
    throw py::value_error(led_by(call, e.what()));
  }
}

}  // namespace agrid::python
