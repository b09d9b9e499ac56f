"""Type stubs of the agrid package (the native module agrid._agrid)."""

from typing import Any, Callable, ClassVar, Dict, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

# Private: the names exist only here (mypy.stubtest checks that every public name exists at run time).
_ArrayLike = npt.ArrayLike
_Pairs = npt.NDArray[np.uint32]
_Indices = npt.NDArray[np.uint32]
_Offsets = npt.NDArray[np.uint64]
_Point = npt.NDArray[np.float32]

__version__: str

class _pybind11_type(type):
    """The metaclass of the native classes (pybind11_builtins.pybind11_type), named here only."""

class Kernel(metaclass=_pybind11_type):
    """The instruction set of the pair kernel; all give the same pairs (a pybind11 enum)."""
    automatic: ClassVar[Kernel]
    scalar: ClassVar[Kernel]
    avx2: ClassVar[Kernel]
    avx512: ClassVar[Kernel]
    __members__: ClassVar[Dict[str, Kernel]]
    def __init__(self, value: int) -> None: ...
    def __index__(self) -> int: ...
    def __int__(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class Config(metaclass=_pybind11_type):
    """Tuning of agrid, its fields grouped by what reads them; the defaults are measured.
    == compares the values; the config of a Grid, Tree, PairFinder or Broadphase is a copy."""
    # The grid: read by Grid, Tree, find_all_pairs and Broadphase.
    leaf_capacity: int
    big_span: int
    max_staying_share: float
    max_copies_per_box: float
    sweep_threshold: int
    sweep_window: float
    kernel: Kernel
    # The tree of grids (Tree): read by Tree, and by find_all_pairs and Broadphase when they use it.
    tree_task_entries: int
    # When to use the tree of grids: read by find_all_pairs and Broadphase (their pair finding).
    tree_min_boxes: int
    # The incremental broadphase: read by Broadphase only.
    fat_margin: float
    rest_after: int
    rest_after_querying: int
    rest_after_unchanged: int
    resting_query_cost: int
    # The names of agrid 0.3, kept one version: reading, setting or passing one to Config() warns
    # (DeprecationWarning). Not marked @deprecated: Debian 12's mypy and typing_extensions lack it.
    @property
    def task_entries(self) -> int:
        """Deprecated: tree_task_entries (the name of agrid 0.3)."""
    @task_entries.setter
    def task_entries(self, value: int) -> None: ...
    @property
    def tree_query_cost(self) -> int:
        """Deprecated: resting_query_cost (the name of agrid 0.3)."""
    @tree_query_cost.setter
    def tree_query_cost(self, value: int) -> None: ...
    def __init__(self, **fields: object) -> None:
        """The defaults, with the fields named set: Config(leaf_capacity=16); an unknown name is a TypeError."""
    def problem(self) -> Optional[str]:
        """None if the config is usable, else what is wrong with it."""
    def __eq__(self, other: object) -> bool: ...
    def __ne__(self, other: object) -> bool: ...

def set_num_threads(threads: int) -> None:
    """Runs agrid on this many threads (0: all cores); more than the cores are clamped to them."""

def get_num_threads() -> int:
    """The threads agrid runs on."""

def find_all_pairs(mins: _ArrayLike, maxs: Optional[_ArrayLike] = None, config: Config = ...) -> _Pairs:
    """Every pair of overlapping boxes, (K, 2) uint32 rows (i, j), i < j, sorted."""

class PairFinder(metaclass=_pybind11_type):
    """Every overlapping pair of each call's boxes, by a Grid or the Tree as their count suits."""
    @property
    def config(self) -> Config:
        """A copy of the config it was made with."""
    def __init__(self, config: Config = ...) -> None: ...
    def find_pairs(self, mins: _ArrayLike, maxs: Optional[_ArrayLike] = None) -> _Pairs: ...

class Grid(metaclass=_pybind11_type):
    """The sparse linear adaptive grid, kept between builds."""
    @property
    def config(self) -> Config:
        """A copy of the config it was made with."""
    def __init__(self, config: Config = ...) -> None: ...
    def build(self, mins: _ArrayLike, maxs: Optional[_ArrayLike] = None) -> None: ...
    def find_pairs(self) -> _Pairs: ...
    def query_box(self, min: _ArrayLike, max: _ArrayLike) -> _Indices: ...
    def query_boxes(self, mins: _ArrayLike, maxs: _ArrayLike) -> Tuple[_Offsets, _Indices]: ...
    def query_segment(self, start: _ArrayLike, end: _ArrayLike) -> _Indices: ...
    def query_segments(self, starts: _ArrayLike, ends: _ArrayLike) -> Tuple[_Offsets, _Indices]: ...
    def stats(self) -> Dict[str, int]:
        """Counts describing the last build (GridStats' fields by name)."""

class Tree(metaclass=_pybind11_type):
    """The tree of adaptive grids: a Grid's pairs on all threads."""
    @property
    def config(self) -> Config:
        """A copy of the config it was made with."""
    def __init__(self, config: Config = ...) -> None: ...
    def build(self, mins: _ArrayLike, maxs: Optional[_ArrayLike] = None) -> None: ...
    def find_pairs(self) -> _Pairs: ...
    def stats(self) -> Dict[str, int]:
        """Counts describing the last build, summed over its grids."""

class Broadphase(metaclass=_pybind11_type):
    """Objects that come, move and go; update() gives the pairs that began and ended."""
    @property
    def config(self) -> Config:
        """A copy of the config it was made with."""
    def __init__(self, config: Config = ...) -> None: ...
    @overload
    def create(self, min: Sequence[float], max: Sequence[float], group: int = 1, mask: int = 0xFFFFFFFF) -> int:
        """Adds an object; returns its handle."""
    @overload
    def create(
        self, min: _ArrayLike, max: _ArrayLike, group: int = 1, mask: int = 0xFFFFFFFF, filters: Optional[_ArrayLike] = None
    ) -> Any:
        """3 numbers each: one object, its handle; (N, 3) rows: one object a row, their handles (uint32)."""
    def add(self, min: _ArrayLike, max: _ArrayLike, group: int = 1, mask: int = 0xFFFFFFFF) -> int:
        """Deprecated: create (the name of agrid 0.3)."""
    def set_box(self, handle: int, min: _ArrayLike, max: _ArrayLike) -> None: ...
    def set_boxes(self, handles: _ArrayLike, mins: _ArrayLike, maxs: Optional[_ArrayLike] = None) -> None:
        """Moves the objects of the handles to the boxes of their rows."""
    def set_filter(self, handle: int, group: int, mask: int) -> None: ...
    def remove(self, handles: Union[int, _ArrayLike]) -> None:
        """Removes the object of a handle, or of each handle of an array."""
    def update(self) -> Tuple[_Pairs, _Pairs]: ...
    def pairs(self) -> _Pairs: ...
    def box(self, handle: int) -> Tuple[_Point, _Point]:
        """The object's current box as (min, max)."""
    def filter(self, handle: int) -> Tuple[int, int]:
        """The object's filter as (group, mask)."""
    def query_box(self, min: _ArrayLike, max: _ArrayLike) -> _Indices: ...
    def query_segment(self, start: _ArrayLike, end: _ArrayLike) -> _Indices: ...
    def for_each_overlap(self, min: _ArrayLike, max: _ArrayLike, visit: Callable[[int], Optional[bool]]) -> None:
        """Calls visit(handle) for each object whose box overlaps the box, until it returns False."""
    def for_each_hit(self, start: _ArrayLike, end: _ArrayLike, visit: Callable[[int], Optional[bool]]) -> None:
        """Calls visit(handle) for each object whose box the segment hits, until it returns False."""
    def contains(self, handle: int) -> bool: ...
    def __contains__(self, handle: int) -> bool: ...
    def stats(self) -> Dict[str, int]: ...
