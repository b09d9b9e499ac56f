"""Broadphase's batch forms (create, set_boxes and remove over NumPy arrays) against the
per-object calls and a NumPy model, on seeded random and adversarial boxes; bad batches are
refused whole."""

import numpy as np
import pytest

import agrid
from reference import adversarial_boxes, model_pairs, random_boxes

FILTER_CHOICES = np.array([[1, 0xFFFFFFFF], [2, 0xFFFFFFFF], [1, 1], [2, 2], [3, 2]], dtype=np.uint32)


def random_filters(n, rng):
    return FILTER_CHOICES[rng.integers(0, len(FILTER_CHOICES), n)]


def model_of(handles, mins, maxs, filters):
    boxes = {int(h): (mins[i], maxs[i]) for i, h in enumerate(handles)}
    return boxes, {int(h): (int(filters[i][0]), int(filters[i][1])) for i, h in enumerate(handles)}


def as_pairs(pairs):
    return np.array(sorted(pairs), dtype=np.uint32).reshape(-1, 2)


def test_batches_match_the_per_object_calls_and_the_model():
    rng = np.random.default_rng(7)
    batch, single = agrid.Broadphase(), agrid.Broadphase()
    mins, maxs = random_boxes(400, 8, extent=8)
    adv_mins, adv_maxs = adversarial_boxes()
    mins, maxs = np.concatenate([mins, adv_mins]), np.concatenate([maxs, adv_maxs])
    filters = random_filters(len(mins), rng)
    handles = batch.create(mins, maxs, filters=filters)
    assert handles.dtype == np.uint32 and handles.shape == (len(mins),)
    one_by_one = [single.create(lo, hi, int(f[0]), int(f[1])) for lo, hi, f in zip(mins, maxs, filters)]
    np.testing.assert_array_equal(handles, one_by_one)
    boxes, model_filters = model_of(handles, mins, maxs, filters)
    for step in range(12):
        moved = rng.choice(handles, size=len(handles) // 3, replace=False)
        new_mins = (mins[moved] + rng.normal(0, 0.4, (len(moved), 3))).astype(np.float32)
        new_maxs = (new_mins + rng.uniform(0, 1.2, (len(moved), 3))).astype(np.float32)
        if step % 4 == 3:  # NaN and inverted rows in a batch: invalid boxes, pairing with nothing
            new_mins[0, 1] = np.nan
            new_maxs[1] = new_mins[1] - 1
        batch.set_boxes(moved, new_mins, new_maxs)
        for h, lo, hi in zip(moved, new_mins, new_maxs):
            single.set_box(int(h), lo, hi)
            boxes[int(h)] = (lo, hi)
            mins[h], maxs[h] = lo, hi
        began, ended = batch.update()
        began_one, ended_one = single.update()
        np.testing.assert_array_equal(began, began_one)
        np.testing.assert_array_equal(ended, ended_one)
        assert began.shape[1:] == (2,) and ended.shape[1:] == (2,)
        np.testing.assert_array_equal(batch.pairs(), as_pairs(model_pairs(boxes, model_filters)), err_msg=f"step {step}")
    gone = handles[::5]
    batch.remove(gone)
    for h in gone:
        single.remove(int(h))
        del boxes[int(h)], model_filters[int(h)]
    _, ended = batch.update()
    np.testing.assert_array_equal(ended, single.update()[1])
    np.testing.assert_array_equal(batch.pairs(), as_pairs(model_pairs(boxes, model_filters)))
    assert not any(int(h) in batch for h in gone)


def test_create_rows_share_group_and_mask_unless_filters_are_given():
    bp = agrid.Broadphase()
    mins = np.array([[0, 0, 0], [0.5, 0.5, 0.5]], dtype=np.float64)
    handles = bp.create(mins, mins + 1, 2, 2)
    assert [bp.filter(int(h)) for h in handles] == [(2, 2), (2, 2)]
    handles = bp.create(mins, mins + 1, filters=[[4, 1], [8, 1]])
    assert [bp.filter(int(h)) for h in handles] == [(4, 1), (8, 1)]
    one = bp.create([0, 0, 0], [1, 1, 1])
    assert isinstance(one, int)
    bp.set_boxes(handles, np.hstack([mins, mins + 2]))  # one (N, 6) array, as find_all_pairs takes it
    assert bp.box(int(handles[1]))[1].tolist() == [2.5, 2.5, 2.5]


def test_bad_batches_are_refused_whole():
    bp = agrid.Broadphase()
    mins, maxs = random_boxes(6, 9)
    handles = bp.create(mins, maxs)
    bp.update()
    before = [bp.box(int(h))[0].tolist() for h in handles]
    dead = handles.copy()
    dead[3] = 99
    with pytest.raises(ValueError, match=r"^Broadphase.set_boxes: not a live handle: 99"):
        bp.set_boxes(dead, mins + 1, maxs + 1)
    with pytest.raises(ValueError, match=r"^Broadphase.set_boxes: handles must have shape \(6,\)"):
        bp.set_boxes(handles[:5], mins + 1, maxs + 1)
    with pytest.raises(ValueError, match=r"handles must be in \[0, 2\^32 - 1\]"):
        bp.set_boxes(np.array([-1, 0, 1, 2, 3, 4]), mins, maxs)
    with pytest.raises(TypeError, match="handles must hold integers"):
        bp.set_boxes(handles.astype(np.float64), mins, maxs)
    with pytest.raises(ValueError, match=r"maxs must have shape \(6, 3\)"):
        bp.set_boxes(handles, mins, maxs[:4])
    assert [bp.box(int(h))[0].tolist() for h in handles] == before  # nothing moved
    with pytest.raises(ValueError, match="lists an object twice"):
        bp.remove(np.array([handles[0], handles[1], handles[0]]))
    with pytest.raises(ValueError, match="not a live handle: 99"):
        bp.remove(dead)
    assert all(int(h) in bp for h in handles)  # nothing removed
    with pytest.raises(ValueError, match=r"filters must have shape \(6, 2\)"):
        bp.create(mins, maxs, filters=[[1, 1]])
    with pytest.raises(ValueError, match="filters is for rows of boxes"):
        bp.create([0, 0, 0], [1, 1, 1], filters=[[1, 1]])
    assert bp.stats()["objects"] == 6  # and no half-made batch


def test_stale_handles_after_removal_are_refused():
    bp = agrid.Broadphase()
    handles = bp.create(*random_boxes(4, 10))
    bp.remove(handles[:2])
    with pytest.raises(ValueError, match="not a live handle"):
        bp.set_boxes(handles, *random_boxes(4, 11))
    bp.update()
    np.testing.assert_array_equal(bp.create(*random_boxes(2, 12)).shape, (2,))  # handles reused, live again
