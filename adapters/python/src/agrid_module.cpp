// agrid._agrid: the library for Python through pybind11, NumPy arrays in and out. Boxes come as
// (N, 3) arrays of mins and maxs (any real dtype; float32 as is, others rounded outward to
// float32 so that no overlap is lost) or as one (N, 6) array [min x, y, z, max x, y, z] (float32
// C-contiguous: read in place). agrid works with the GIL released, in the module's thread arena.
// Each part binds itself (module.h lists them).

#include "agrid/version.h"
#include "module.h"

PYBIND11_MODULE(_agrid, m) {
  m.doc() = "agrid: every overlapping pair of N axis-aligned boxes, fast (the native part of the agrid package)";
  m.attr("__version__") = AGRID_VERSION_STRING;
  agrid::python::bind_config(m);
  agrid::python::bind_threads(m);
  agrid::python::bind_structures(m);
  agrid::python::bind_broadphase(m);
}
