"""Configs that cannot be changed behind their validation, what each class shows (repr, stats),
and the edges of input: empty sequences, infinite segment ends, thread counts, integers out of
range, and errors that name the Python call."""

import os

import numpy as np
import pytest

import agrid
from reference import brute_pairs, random_boxes

HOLDERS = [agrid.Grid, agrid.Tree, agrid.PairFinder, agrid.Broadphase]


# ---- configs -----------------------------------------------------------------------------------


def test_a_grids_config_edited_in_place_changes_nothing():
    """The reproduction: the edit went into the grid's validated config (940 pairs for 488)."""
    mins, maxs = random_boxes(1000, 42, extent=10)
    grid = agrid.Grid()
    grid.config.sweep_threshold = 0
    grid.build(mins, maxs)
    np.testing.assert_array_equal(grid.find_pairs(), brute_pairs(mins, maxs))
    assert grid.config.sweep_threshold == agrid.Config().sweep_threshold


@pytest.mark.parametrize("holder", HOLDERS, ids=lambda h: h.__name__)
def test_every_holders_config_is_a_copy(holder):
    made_with = agrid.Config(leaf_capacity=16)
    held = holder(made_with)
    copy = held.config
    assert copy == made_with and copy is not held.config
    copy.leaf_capacity = 0
    made_with.leaf_capacity = 0
    assert held.config.leaf_capacity == 16
    with pytest.raises(AttributeError):
        held.config = agrid.Config()


def test_config_equality_compares_values():
    assert agrid.Config() == agrid.Config()
    assert agrid.Config(fat_margin=0.5) != agrid.Config()
    assert agrid.Config(kernel=agrid.Kernel.scalar) == agrid.Config(kernel=agrid.Kernel.scalar)
    assert agrid.Config() != "Config()"


def test_config_counts_out_of_range_are_clear_errors():
    config = agrid.Config()
    for bad in (-1, 2**32, 2**64):
        with pytest.raises(ValueError, match=r"Config.leaf_capacity must be in \[0, 2\^32 - 1\]"):
            config.leaf_capacity = bad
    with pytest.raises(ValueError, match=r"Config.rest_after must be in"):
        agrid.Config(rest_after=-3)
    with pytest.raises(TypeError, match="must be an integer"):
        config.leaf_capacity = 1.5
    config.leaf_capacity = np.uint16(7)  # any integer type
    assert config.leaf_capacity == 7


# ---- what each class shows ---------------------------------------------------------------------


def test_reprs_say_what_is_held():
    mins, maxs = random_boxes(50, 3)
    grid, tree = agrid.Grid(), agrid.Tree()
    grid.build(mins, maxs)
    tree.build(mins, maxs)
    config = repr(agrid.Config())
    assert repr(grid) == f"Grid(boxes=50, config={config})"
    assert repr(tree) == f"Tree(boxes=50, config={config})"
    assert repr(agrid.PairFinder()).startswith("PairFinder(bytes_held=")
    bp = agrid.Broadphase(agrid.Config(fat_margin=0.25))
    bp.create(mins, maxs)
    bp.update()
    pairs = len(bp.pairs())
    assert repr(bp) == f"Broadphase(objects=50, pairs={pairs}, config={agrid.Config(fat_margin=0.25)!r})"


def test_grid_and_tree_stats():
    mins, maxs = random_boxes(300, 4)
    mins[0, 0] = np.nan
    for structure in (agrid.Grid(), agrid.Tree()):
        structure.build(mins, maxs)
        stats = structure.stats()
        assert stats["boxes"] == 300 and stats["invalid_boxes"] == 1
        assert stats["leaves"] >= 1 and stats["bytes_held"] > 0
    assert agrid.Grid().stats()["boxes"] == 0


def test_broadphase_box_and_filter():
    bp = agrid.Broadphase()
    h = bp.create([0, 0.1, 0], [1, 1, 1], 2, 6)
    lo, hi = bp.box(h)
    assert lo.dtype == np.float32 and hi.tolist() == [1, 1, 1]
    assert lo[0] == 0 and lo[1] == np.nextafter(np.float32(0.1), np.float32(0))  # 0.1 rounded outward: down
    assert bp.filter(h) == (2, 6)
    bp.set_filter(h, 1, 1)
    assert bp.filter(h) == (1, 1)
    bp.remove(h)
    for ask in (bp.box, bp.filter):
        with pytest.raises(ValueError, match="not a live handle"):
            ask(h)


# ---- edges of input ----------------------------------------------------------------------------


def test_empty_sequences_are_no_boxes():
    none = np.zeros((0, 2), dtype=np.uint32)
    np.testing.assert_array_equal(agrid.find_all_pairs([], []), none)
    np.testing.assert_array_equal(agrid.find_all_pairs([]), none)
    np.testing.assert_array_equal(agrid.PairFinder().find_pairs([], []), none)
    grid = agrid.Grid()
    grid.build([])
    np.testing.assert_array_equal(grid.find_pairs(), none)
    offsets, indices = grid.query_boxes([], [])
    assert offsets.tolist() == [0] and len(indices) == 0
    bp = agrid.Broadphase()
    assert len(bp.create([], [])) == 0
    bp.set_boxes([], [], [])
    bp.remove([])


@pytest.mark.parametrize("end", [[np.inf, 0.5, 0.5], [0, -np.inf, 0], [np.nan, 0, 0]])
def test_a_segment_end_that_is_not_finite_is_an_error(end):
    grid = agrid.Grid()
    grid.build(*random_boxes(10, 5))
    bp = agrid.Broadphase()
    bp.create([0, 0, 0], [1, 1, 1])
    bp.update()
    calls = [lambda: grid.query_segment([0, 0.5, 0.5], end), lambda: grid.query_segments([[0, 0.5, 0.5]], [end]),
             lambda: bp.query_segment([0, 0.5, 0.5], end), lambda: bp.for_each_hit([0, 0.5, 0.5], end, print),
             lambda: grid.query_segment(end, [0, 0.5, 0.5])]
    for call in calls:
        with pytest.raises(ValueError, match="must be finite"):
            call()


def test_thread_counts_beyond_the_cores_are_clamped():
    cores = len(os.sched_getaffinity(0))
    try:
        agrid.set_num_threads(cores + 7)
        assert agrid.get_num_threads() == cores
        agrid.set_num_threads(1)
        assert agrid.get_num_threads() == 1
    finally:
        agrid.set_num_threads(0)
    assert agrid.get_num_threads() == cores
    assert "clamped" in agrid.set_num_threads.__doc__


def test_integers_beyond_two_to_the_53_are_refused():
    big = np.array([[2**53 + 1, 0, 0]], dtype=np.int64)
    with pytest.raises(ValueError, match=r"mins holds integers beyond 2\^53"):
        agrid.find_all_pairs(big, big + 1)
    with pytest.raises(TypeError, match="integers beyond 64 bits"):
        agrid.find_all_pairs([[2**70, 0, 0]], [[2**70, 1, 1]])
    exact = np.array([[2**53, 0, 0], [-(2**53), 0, 0]], dtype=np.int64)  # still exact
    assert len(agrid.find_all_pairs(exact, exact)) == 0


def test_handles_groups_and_masks_out_of_range_are_clear_errors():
    bp = agrid.Broadphase()
    h = bp.create([0, 0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match=r"Broadphase.set_box: handle must be in \[0, 2\^32 - 1\], got -1"):
        bp.set_box(-1, [0, 0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match=r"Broadphase.create: mask must be in"):
        bp.create([0, 0, 0], [1, 1, 1], 1, 2**32)
    with pytest.raises(ValueError, match=r"Broadphase.set_filter: group must be in"):
        bp.set_filter(h, -5, 1)
    with pytest.raises(TypeError, match="must hold integers"):
        bp.remove(1.0)
    with pytest.raises(TypeError, match="handle must be an integer"):
        bp.set_box(1.0, [0, 0, 0], [1, 1, 1])
    assert 2**40 not in bp and -1 not in bp and h in bp


def test_errors_name_the_python_call():
    bad = agrid.Config(leaf_capacity=0)
    for holder in HOLDERS:
        with pytest.raises(ValueError, match=rf"^{holder.__name__}: Config: leaf_capacity") as caught:
            holder(bad)
        assert "agrid::" not in str(caught.value)
    with pytest.raises(ValueError, match=r"^find_all_pairs: Config: leaf_capacity"):
        agrid.find_all_pairs(np.zeros((2, 3)), np.ones((2, 3)), bad)
    with pytest.raises(ValueError, match=r"^Tree.build: mins must have shape"):
        agrid.Tree().build(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"^Broadphase.set_box: not a live handle"):
        agrid.Broadphase().set_box(3, [0, 0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match=r"^set_num_threads: the count must be 0"):
        agrid.set_num_threads(-1)
