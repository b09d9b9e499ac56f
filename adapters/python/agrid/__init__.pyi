"""Type stubs of the agrid package (the native module agrid._agrid)."""

import enum
from typing import Callable, Optional, Tuple

from typing_extensions import deprecated

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Pairs = npt.NDArray[np.uint32]
Indices = npt.NDArray[np.uint32]
Offsets = npt.NDArray[np.uint64]

__version__: str

class Kernel(enum.Enum):
    automatic = ...
    scalar = ...
    avx2 = ...
    avx512 = ...

class Config:
    """Tuning of agrid, its fields grouped by what reads them; the defaults are measured."""
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
    filter_moving_pairs: bool
    resting_query_cost: int
    # The names of agrid 0.3, kept one version: reading, setting or passing one to Config() warns.
    @property
    @deprecated("Config.task_entries is deprecated: use Config.tree_task_entries (renamed in agrid 0.4)")
    def task_entries(self) -> int: ...
    @task_entries.setter
    @deprecated("Config.task_entries is deprecated: use Config.tree_task_entries (renamed in agrid 0.4)")
    def task_entries(self, value: int) -> None: ...
    @property
    @deprecated("Config.tree_query_cost is deprecated: use Config.resting_query_cost (renamed in agrid 0.4)")
    def tree_query_cost(self) -> int: ...
    @tree_query_cost.setter
    @deprecated("Config.tree_query_cost is deprecated: use Config.resting_query_cost (renamed in agrid 0.4)")
    def tree_query_cost(self, value: int) -> None: ...
    def __init__(self, **fields: object) -> None:
        """The defaults, with the fields named set: Config(leaf_capacity=16); an unknown name is a TypeError."""
    def problem(self) -> Optional[str]:
        """None if the config is usable, else what is wrong with it."""

def set_num_threads(threads: int) -> None:
    """Runs agrid on this many threads (0: all cores, the default)."""

def get_num_threads() -> int:
    """The threads agrid runs on."""

def find_all_pairs(mins: ArrayLike, maxs: Optional[ArrayLike] = None, config: Config = ...) -> Pairs:
    """Every pair of overlapping boxes, (K, 2) uint32 rows (i, j), i < j, sorted."""

class PairFinder:
    """Every overlapping pair of each call's boxes, by a Grid or the Tree as their count suits."""
    config: Config
    def __init__(self, config: Config = ...) -> None: ...
    def find_pairs(self, mins: ArrayLike, maxs: Optional[ArrayLike] = None) -> Pairs: ...

class Grid:
    """The sparse linear adaptive grid, kept between builds."""
    config: Config
    def __init__(self, config: Config = ...) -> None: ...
    def build(self, mins: ArrayLike, maxs: Optional[ArrayLike] = None) -> None: ...
    def find_pairs(self) -> Pairs: ...
    def query_box(self, min: ArrayLike, max: ArrayLike) -> Indices: ...
    def query_boxes(self, mins: ArrayLike, maxs: ArrayLike) -> Tuple[Offsets, Indices]: ...
    def query_segment(self, start: ArrayLike, end: ArrayLike) -> Indices: ...
    def query_segments(self, starts: ArrayLike, ends: ArrayLike) -> Tuple[Offsets, Indices]: ...

class Tree:
    """The tree of adaptive grids: a Grid's pairs on all threads."""
    config: Config
    def __init__(self, config: Config = ...) -> None: ...
    def build(self, mins: ArrayLike, maxs: Optional[ArrayLike] = None) -> None: ...
    def find_pairs(self) -> Pairs: ...

class Broadphase:
    """Objects that come, move and go; update() gives the pairs that began and ended."""
    def __init__(self, config: Config = ...) -> None: ...
    def create(self, min: ArrayLike, max: ArrayLike, group: int = 1, mask: int = 0xFFFFFFFF) -> int:
        """Adds an object; returns its handle."""
    @deprecated("Broadphase.add is deprecated: use Broadphase.create (renamed in agrid 0.4)")
    def add(self, min: ArrayLike, max: ArrayLike, group: int = 1, mask: int = 0xFFFFFFFF) -> int: ...
    def set_box(self, handle: int, min: ArrayLike, max: ArrayLike) -> None: ...
    def set_filter(self, handle: int, group: int, mask: int) -> None: ...
    def remove(self, handle: int) -> None: ...
    def update(self) -> Tuple[Pairs, Pairs]: ...
    def pairs(self) -> Pairs: ...
    def query_box(self, min: ArrayLike, max: ArrayLike) -> Indices: ...
    def query_segment(self, start: ArrayLike, end: ArrayLike) -> Indices: ...
    def for_each_overlap(self, min: ArrayLike, max: ArrayLike, visit: Callable[[int], Optional[bool]]) -> None:
        """Calls visit(handle) for each object whose box overlaps the box, until it returns False."""
    def for_each_hit(self, start: ArrayLike, end: ArrayLike, visit: Callable[[int], Optional[bool]]) -> None:
        """Calls visit(handle) for each object whose box the segment hits, until it returns False."""
    def contains(self, handle: int) -> bool: ...
    def __contains__(self, handle: int) -> bool: ...
    def stats(self) -> dict: ...
