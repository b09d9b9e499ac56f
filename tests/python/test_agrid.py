"""The Python package against NumPy brute force: seeded random and adversarial arrays, every
input form, the Broadphase against a model of random updates, and the errors of bad input."""

import ast
import os
import pathlib
import threading
import warnings

import numpy as np
import pytest

import agrid
from reference import adversarial_boxes, brute_pairs, brute_query, model_pairs, random_boxes, segment_hits


SCENES = [
    ("empty", *random_boxes(0, 1)),
    ("one", *random_boxes(1, 2)),
    ("two", *random_boxes(2, 3, extent=0.5)),
    ("sparse-2000", *random_boxes(2000, 4, extent=60)),
    ("dense-1500", *random_boxes(1500, 5, extent=8)),
    ("very-dense-400", *random_boxes(400, 6, extent=2)),
    ("adversarial", *adversarial_boxes()),
]


# ---- find_all_pairs ----------------------------------------------------------------------------


@pytest.mark.parametrize("name,mins,maxs", SCENES, ids=[s[0] for s in SCENES])
def test_find_all_pairs_matches_brute_force(name, mins, maxs):
    expected = brute_pairs(mins, maxs)
    found = agrid.find_all_pairs(mins, maxs)
    assert found.dtype == np.uint32 and found.shape == (len(expected), 2)
    np.testing.assert_array_equal(found, expected)
    # The same boxes as one (N, 6) array, read in place, and as float64.
    both = np.hstack([mins, maxs]).astype(np.float32)
    np.testing.assert_array_equal(agrid.find_all_pairs(both), expected)
    np.testing.assert_array_equal(agrid.find_all_pairs(mins.astype(np.float64), maxs.astype(np.float64)), expected)


def test_non_contiguous_and_fortran_arrays():
    mins, maxs = random_boxes(3000, 7, extent=12)
    expected = brute_pairs(mins[::2], maxs[::2])
    np.testing.assert_array_equal(agrid.find_all_pairs(mins[::2], maxs[::2]), expected)
    np.testing.assert_array_equal(agrid.find_all_pairs(np.asfortranarray(mins[::2]), np.asfortranarray(maxs[::2])), expected)
    both = np.hstack([mins, maxs])[::2]  # (N, 6), not contiguous: converted
    np.testing.assert_array_equal(agrid.find_all_pairs(both), expected)
    # Integer coordinates are real numbers too.
    ints = np.arange(12).reshape(4, 3)
    np.testing.assert_array_equal(agrid.find_all_pairs(ints, ints + 3), brute_pairs(ints, ints + 3))


def test_float64_rounds_outward_so_no_overlap_is_lost():
    # Faces touching at 0.1, which no float holds: rounded outward, the boxes still overlap.
    mins = np.array([[-1, -1, -1], [0.1, -1, -1], [np.nextafter(0.1, 1), -1, -1], [0.2, -1, -1]])
    maxs = np.array([[0.1, 1, 1], [2, 1, 1], [2, 1, 1], [2, 1, 1]])
    pairs = {tuple(p) for p in agrid.find_all_pairs(mins, maxs)}
    assert (0, 1) in pairs
    assert (0, 2) in pairs  # a double step apart: one float step, overlapping as floats
    assert (0, 3) not in pairs


def test_a_million_boxes_with_known_pairs():
    # 2^20 boxes on a lattice, none touching; every 7th has a twin moved by 0.1: those pairs only.
    side = (128, 128, 64)
    n = side[0] * side[1] * side[2]
    assert n == 2**20
    grid = np.stack(np.meshgrid(*[np.arange(s) for s in side], indexing="ij"), axis=-1).reshape(-1, 3).astype(np.float32)
    twins = np.arange(0, n, 7)
    mins = np.concatenate([grid, grid[twins] + np.float32(0.1)])
    maxs = mins + np.float32(0.6)
    expected = np.stack([twins, n + np.arange(len(twins))], axis=1).astype(np.uint32)
    for threads in (1, 2):
        agrid.set_num_threads(threads)
        np.testing.assert_array_equal(agrid.find_all_pairs(mins, maxs), expected)
    agrid.set_num_threads(0)


def test_thread_counts_give_the_same_pairs():
    mins, maxs = random_boxes(30000, 8, extent=40)
    results = []
    cores = len(os.sched_getaffinity(0))
    for threads in (1, 2, 3):
        agrid.set_num_threads(threads)
        assert agrid.get_num_threads() == min(threads, cores)  # clamped to the cores
        results.append(agrid.find_all_pairs(mins, maxs))
    agrid.set_num_threads(0)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def test_calls_from_python_threads_at_once():
    scenes = [random_boxes(20000, 20 + i, extent=35) for i in range(4)]
    expected = [agrid.find_all_pairs(m, x) for m, x in scenes]
    found = [None] * len(scenes)

    def work(i):
        found[i] = agrid.find_all_pairs(*scenes[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(scenes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for f, e in zip(found, expected):
        np.testing.assert_array_equal(f, e)


# ---- Grid and Tree -----------------------------------------------------------------------------


@pytest.mark.parametrize("name,mins,maxs", SCENES, ids=[s[0] for s in SCENES])
def test_grid_and_tree_pairs_and_queries(name, mins, maxs):
    expected = brute_pairs(mins, maxs)
    grid = agrid.Grid()
    grid.build(mins, maxs)
    np.testing.assert_array_equal(grid.find_pairs(), expected)
    tree = agrid.Tree()
    tree.build(mins, maxs)
    np.testing.assert_array_equal(tree.find_pairs(), expected)
    finder = agrid.PairFinder()
    for _ in range(2):  # the second call reuses the first's memory
        np.testing.assert_array_equal(finder.find_pairs(mins, maxs), expected)
    np.testing.assert_array_equal(finder.find_pairs(np.hstack([mins, maxs]).astype(np.float32)), expected)

    rng = np.random.default_rng(len(mins))
    qmins = rng.uniform(-1, 11, (25, 3)).astype(np.float32)
    qmaxs = qmins + rng.uniform(0, 3, (25, 3)).astype(np.float32)
    offsets, indices = grid.query_boxes(qmins, qmaxs)
    assert offsets.dtype == np.uint64 and len(offsets) == len(qmins) + 1 and offsets[-1] == len(indices)
    for q in range(len(qmins)):
        want = brute_query(mins, maxs, qmins[q], qmaxs[q])
        np.testing.assert_array_equal(grid.query_box(qmins[q], qmaxs[q]), want)
        np.testing.assert_array_equal(indices[offsets[q] : offsets[q + 1]], want)

    starts = rng.uniform(-2, 12, (15, 3)).astype(np.float32)
    ends = rng.uniform(-2, 12, (15, 3)).astype(np.float32)
    offsets, indices = grid.query_segments(starts, ends)
    for q in range(len(starts)):
        want = segment_hits(mins, maxs, starts[q], ends[q])
        np.testing.assert_array_equal(grid.query_segment(starts[q], ends[q]), want)
        np.testing.assert_array_equal(indices[offsets[q] : offsets[q + 1]], want)


def test_grid_rebuilds_keep_nothing_of_the_last_frame():
    grid = agrid.Grid()
    for seed in range(5):
        mins, maxs = random_boxes(800 + 300 * seed, 30 + seed, extent=9)
        grid.build(mins, maxs)
        np.testing.assert_array_equal(grid.find_pairs(), brute_pairs(mins, maxs))


# ---- Broadphase --------------------------------------------------------------------------------


def test_broadphase_against_a_model_of_random_updates():
    rng = np.random.default_rng(99)
    bp = agrid.Broadphase()
    boxes, filters = {}, {}
    last = set()
    for step in range(60):
        for _ in range(int(rng.integers(0, 12))):  # add
            lo = rng.uniform(0, 6, 3).astype(np.float32)
            hi = lo + rng.uniform(0, 1.5, 3).astype(np.float32)
            group, mask = int(rng.choice([1, 2, 3])), int(rng.choice([0xFFFFFFFF, 1, 2]))
            h = bp.create(lo, hi, group, mask)
            boxes[h], filters[h] = (lo, hi), (group, mask)
        for h in list(boxes):  # move, jitter, refilter, remove
            r = rng.random()
            if r < 0.3:
                lo = boxes[h][0] + rng.normal(0, 0.3, 3).astype(np.float32)
                hi = lo + rng.uniform(0, 1.5, 3).astype(np.float32)
                bp.set_box(h, lo, hi)
                boxes[h] = (lo, hi)
            elif r < 0.35:
                group, mask = int(rng.choice([1, 2, 3])), int(rng.choice([0xFFFFFFFF, 1, 2]))
                bp.set_filter(h, group, mask)
                filters[h] = (group, mask)
            elif r < 0.4:
                bp.remove(h)
                assert h not in bp
                del boxes[h], filters[h]
        began, ended = bp.update()
        now = set(model_pairs(boxes, filters))
        np.testing.assert_array_equal(bp.pairs(), np.array(sorted(now), dtype=np.uint32).reshape(-1, 2))
        assert {tuple(p) for p in began} == now - last, f"step {step}"
        assert {tuple(p) for p in ended} == last - now, f"step {step}"
        last = now
        if boxes:
            q = rng.uniform(0, 6, 3).astype(np.float32)
            want = sorted(h for h, (lo, hi) in boxes.items() if np.all(lo <= hi) and np.all((lo <= q + 1) & (q <= hi)))
            np.testing.assert_array_equal(bp.query_box(q, q + 1), np.array(want, dtype=np.uint32))
            visited = []
            assert bp.for_each_overlap(q, q + 1, visited.append) is None  # append returns None: go on
            assert sorted(visited) == want
            start, end = q - [3, 0, 0], q + [4, 0.5, 0.5]
            hit = bp.query_segment(start, end)
            visited = []
            bp.for_each_hit(start, end, lambda h: visited.append(h) or True)
            np.testing.assert_array_equal(np.array(sorted(visited), dtype=np.uint32), hit)
    assert bp.stats()["objects"] == len(boxes)


def test_broadphase_visits_stop_when_visit_returns_false():
    bp = agrid.Broadphase()
    handles = [bp.create([x, 0, 0], [x + 0.5, 1, 1]) for x in range(10)]
    bp.update()
    for query in (lambda visit: bp.for_each_overlap([-1, -1, -1], [20, 2, 2], visit),
                  lambda visit: bp.for_each_hit([-1, 0.5, 0.5], [20, 0.5, 0.5], visit)):
        visited = []
        query(visited.append)
        assert sorted(visited) == handles
        visited = []
        query(lambda h: visited.append(h) or len(visited) < 3)
        assert len(visited) == 3
    with pytest.raises(ZeroDivisionError):  # the visitor's exception comes through
        bp.for_each_overlap([-1, -1, -1], [20, 2, 2], lambda h: 1 / 0)
    assert bp.query_box([-1, -1, -1], [20, 2, 2]).tolist() == handles  # and the broadphase still answers


# ---- errors ------------------------------------------------------------------------------------


def test_bad_shapes_and_dtypes_say_what_is_wrong():
    good = np.zeros((4, 3), dtype=np.float32)
    with pytest.raises(ValueError, match=r"mins must have shape \(N, 3\)"):
        agrid.find_all_pairs(np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"maxs must have shape \(4, 3\)"):
        agrid.find_all_pairs(good, np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"boxes must have shape \(N, 6\)"):
        agrid.find_all_pairs(np.zeros((4, 5)))
    with pytest.raises(ValueError):
        agrid.find_all_pairs(np.zeros(12))
    with pytest.raises(TypeError, match="real numbers"):
        agrid.find_all_pairs(np.array([["a", "b", "c"]]), good[:1])
    with pytest.raises(TypeError, match="real numbers"):
        agrid.find_all_pairs(good.astype(np.complex64), good)
    with pytest.raises(ValueError, match="3 numbers"):
        agrid.Grid().query_box([0, 0], [1, 1])


def test_bad_config_thread_count_and_handles():
    config = agrid.Config()
    assert config.problem() is None
    config.leaf_capacity = 0
    assert "leaf_capacity" in config.problem()
    with pytest.raises(ValueError, match="leaf_capacity"):
        agrid.find_all_pairs(np.zeros((2, 3)), np.ones((2, 3)), config)
    with pytest.raises(ValueError):
        agrid.Grid(config)
    with pytest.raises(ValueError):
        agrid.set_num_threads(-1)
    bp = agrid.Broadphase()
    with pytest.raises(ValueError, match="not a live handle"):
        bp.set_box(7, [0, 0, 0], [1, 1, 1])
    h = bp.create([0, 0, 0], [1, 1, 1])
    bp.remove(h)
    with pytest.raises(ValueError):
        bp.remove(h)


# ---- the names of 0.3 --------------------------------------------------------------------------


def test_the_names_of_0_3_work_and_warn():
    bp = agrid.Broadphase()
    with pytest.warns(DeprecationWarning, match=r"Broadphase\.add is deprecated: use Broadphase\.create") as caught:
        h = bp.add([0, 0, 0], [1, 1, 1], 2, 3)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert h in bp
    bp.update()
    assert bp.query_box([0, 0, 0], [1, 1, 1]).tolist() == [h]

    c = agrid.Config()
    renamed = {"task_entries": "tree_task_entries", "tree_query_cost": "resting_query_cost"}
    for old, new in renamed.items():
        message = rf"Config\.{old} is deprecated: use Config\.{new}"
        with pytest.warns(DeprecationWarning, match=message) as caught:
            assert getattr(c, old) == getattr(c, new)
        assert caught[0].filename == __file__
        with pytest.warns(DeprecationWarning, match=message):
            setattr(c, old, 7)
        assert getattr(c, new) == 7
        with pytest.warns(DeprecationWarning, match=message):
            assert getattr(agrid.Config(**{old: 5}), new) == 5
    # The old names are not fields of their own: repr and == see only the new ones.
    assert "task_entries=" not in repr(c).replace("tree_task_entries=", "")
    assert "tree_query_cost" not in repr(c)


def test_the_current_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = agrid.Config(tree_task_entries=64, resting_query_cost=4)
        c.tree_task_entries, c.resting_query_cost = c.tree_task_entries + 1, c.resting_query_cost + 1
        assert (c.tree_task_entries, c.resting_query_cost) == (65, 5)
        repr(c)
        bp = agrid.Broadphase(c)
        h = bp.create([0, 0, 0], [1, 1, 1])
        bp.update()
        assert bp.query_box([0, 0, 0], [1, 1, 1]).tolist() == [h]
        assert bp.query_segment([-1, 0.5, 0.5], [2, 0.5, 0.5]).tolist() == [h]
        bp.for_each_overlap([0, 0, 0], [1, 1, 1], lambda handle: None)
        bp.for_each_hit([-1, 0.5, 0.5], [2, 0.5, 0.5], lambda handle: None)


def test_config_defaults_are_the_cpp_ones():
    c = agrid.Config()
    assert (c.leaf_capacity, c.big_span, c.sweep_threshold, c.tree_min_boxes, c.tree_task_entries) == (32, 2, 32, 20000, 4096)
    assert c.kernel == agrid.Kernel.automatic
    assert abs(c.fat_margin - 0.1) < 1e-7


def test_config_fields_by_name_and_repr():
    c = agrid.Config(leaf_capacity=16, fat_margin=0.25, kernel=agrid.Kernel.scalar, resting_query_cost=3)
    assert (c.leaf_capacity, c.kernel, c.resting_query_cost) == (16, agrid.Kernel.scalar, 3)
    assert abs(c.fat_margin - 0.25) < 1e-7
    assert c.rest_after == agrid.Config().rest_after
    with pytest.raises(TypeError, match="no field 'leaf_capacit'"):
        agrid.Config(leaf_capacit=16)
    with pytest.raises(TypeError, match="no field 'problem'"):
        agrid.Config(problem=None)
    text = repr(c)
    assert text.startswith("Config(leaf_capacity=16, big_span=2, ") and "resting_query_cost=3)" in text
    assert "kernel=Kernel.scalar" in text
    # Pasted back, it makes the same Config.
    back = eval(text, {"Config": agrid.Config, "Kernel": agrid.Kernel})
    assert repr(back) == text
    assert (back.leaf_capacity, back.kernel, back.resting_query_cost, back.fat_margin) == (16, agrid.Kernel.scalar, 3, c.fat_margin)


def test_version_is_the_projects():
    # CMake's project() version, which the CHANGELOG's newest heading matches (docs.pages_version).
    expected = os.environ.get("AGRID_PROJECT_VERSION")
    if expected is None:
        pytest.skip("run outside ctest: AGRID_PROJECT_VERSION not set")
    assert agrid.__version__ == expected


DEPRECATED = {"Config": {"task_entries", "tree_query_cost"}, "Broadphase": {"add"}}


def stub_classes():
    stub = pathlib.Path(agrid.__file__).with_name("__init__.pyi")
    classes = (n for n in ast.parse(stub.read_text()).body if isinstance(n, ast.ClassDef))
    return {n.name: n for n in classes if not n.name.startswith("_")}  # private: the stubs' own names


def is_deprecated(function):
    """Marked deprecated in its docstring (Debian 12's mypy knows no @deprecated)."""
    doc = ast.get_docstring(function)
    return doc is not None and doc.startswith("Deprecated: ")


def test_config_stub_lists_the_module_fields_in_order():
    """The stubs' Config has the native Config's fields, in its (config.h's grouped) order."""
    config = stub_classes()["Config"]
    stubbed = [n.target.id for n in config.body if isinstance(n, ast.AnnAssign)]
    native = [name for name, value in vars(agrid.Config).items() if isinstance(value, property)]
    assert stubbed == [name for name in native if name not in DEPRECATED["Config"]]
    assert stubbed == [field.split("=")[0] for field in repr(agrid.Config())[len("Config(") : -1].split(", ")]


def test_stubs_list_every_public_name_and_mark_the_deprecated():
    """Each class's public names in the stubs are the module's; the names of 0.3 are there, and
    each is said deprecated in its (getter's) docstring. python.stubtest checks the signatures."""
    for name, cls in stub_classes().items():
        native = getattr(agrid, name)
        public = set(native.__members__) if name == "Kernel" else {n for n in vars(native) if not n.startswith("_")}
        stubbed = set()
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and not node.target.id.startswith("_"):
                stubbed.add(node.target.id)
            elif isinstance(node, ast.Assign):
                stubbed.update(target.id for target in node.targets)
            elif isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and name != "Kernel":
                stubbed.add(node.name)
                if not any(getattr(d, "attr", None) == "setter" for d in node.decorator_list):
                    assert is_deprecated(node) == (node.name in DEPRECATED.get(name, set())), f"{name}.{node.name}"
        assert stubbed == public, name
