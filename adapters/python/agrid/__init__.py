"""agrid: every overlapping pair of N axis-aligned boxes, fast, exact and deterministic.

Boxes are NumPy arrays: (N, 3) mins and maxs, or one (N, 6) array (min x, y, z, max x, y, z).
float32 is used as is (an (N, 6) C-contiguous float32 array is read in place); other real dtypes
are rounded outward to float32, so no overlap is lost. Boxes are closed (touching boxes
overlap); a box with a NaN or min > max overlaps nothing. Pairs come back as (K, 2) uint32
arrays of rows (i, j) with i < j, sorted. agrid works with the GIL released, on
get_num_threads() threads.

    >>> import numpy as np, agrid
    >>> mins = np.array([[0, 0, 0], [0.5, 0.5, 0.5], [5, 5, 5]], dtype=np.float32)
    >>> agrid.find_all_pairs(mins, mins + 1)
    array([[0, 1]], dtype=uint32)

find_all_pairs for one call; PairFinder to keep memory between frames; Grid and Tree to query
boxes and segments, or to choose the structure yourself; Broadphase for objects that come, move
and go, one at a time or as rows of arrays (create(mins, maxs) -> handles, set_boxes(handles,
mins, maxs), remove(handles)), with the pairs that began and ended. Each structure's config is a
copy of the one it was made with; set_num_threads() may be called while other threads' calls run.
"""

from ._agrid import (
    __version__,
    Broadphase,
    Config,
    Grid,
    Kernel,
    PairFinder,
    Tree,
    find_all_pairs,
    get_num_threads,
    set_num_threads,
)

__all__ = [
    "__version__",
    "Broadphase",
    "Config",
    "Grid",
    "Kernel",
    "PairFinder",
    "Tree",
    "find_all_pairs",
    "get_num_threads",
    "set_num_threads",
]
