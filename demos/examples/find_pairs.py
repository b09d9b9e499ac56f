"""find_pairs.cpp and broadphase_steps.cpp in Python: every overlapping pair of a few boxes, a
Grid kept across frames and queried, and a Broadphase reporting the pairs that began and ended,
its objects given one at a time and as rows of NumPy arrays. An assert fails when a result is not the one written beside it."""

import numpy as np

import agrid

agrid.set_num_threads(2)  # the default is every core
mins = np.array([[0, 0, 0], [0.5, 0.5, 0.5], [5, 5, 5]], dtype=np.float32)
maxs = mins + [[1, 1, 1], [1.5, 1.5, 1.5], [1, 1, 1]]
pairs = agrid.find_all_pairs(mins, maxs)  # (K, 2) uint32, rows (i, j), i < j, sorted
assert pairs.tolist() == [[0, 1]], pairs

grid = agrid.Grid()  # keep it: a warm frame of the same size allocates nothing
frames, step = 3, 1.5  # box 2 comes this far nearer each frame, and touches box 1 in the last
for frame in range(frames):
    mins[2], maxs[2] = 5 - step * frame, 6 - step * frame
    grid.build(mins, maxs)  # once per frame
    print(f"frame {frame}: pairs {grid.find_pairs().tolist()}")
    assert grid.find_pairs().tolist() == ([[0, 1]] if frame < frames - 1 else [[0, 1], [1, 2]])
assert grid.query_box([0, 0, 0], [0.6, 0.6, 0.6]).tolist() == [0, 1]  # sorted indices
assert grid.query_segment([-1, 3, 3], [9, 3, 3]).tolist() == [2]  # a ray grazing box 2's top

broadphase = agrid.Broadphase()  # objects that come, move and go
ground = broadphase.create([-10, -1, -10], [10, 0, 10])
ball = broadphase.create([-0.5, 3, -0.5], [0.5, 4, 0.5])
landed = sorted([ground, ball])
for height, began, ended in [(3, [], []), (0, [landed], []), (1, [], [landed])]:  # falls, lands, bounces
    broadphase.set_box(ball, [-0.5, height, -0.5], [0.5, height + 1, 0.5])
    began_now, ended_now = broadphase.update()  # (K, 2) arrays of handles, sorted
    print(f"ball at {height}: began {began_now.tolist()}, ended {ended_now.tolist()}")
    assert (began_now.tolist(), ended_now.tolist()) == (began, ended)

rain = np.array([[x, 5, 0] for x in range(4)], dtype=np.float32)  # a NumPy simulation's boxes, a row each
drops = broadphase.create(rain, rain + 0.5)  # one object a row; their handles, a uint32 array
for frame in range(2):  # every drop falls at once, moved by one call
    rain[:, 1] -= 2.5
    broadphase.set_boxes(drops, rain, rain + 0.5)
    began_now, ended_now = broadphase.update()
assert began_now.tolist() == [[ground, d] for d in drops], began_now  # they reach the ground
broadphase.remove(drops)  # one call for all of them
assert broadphase.update()[1].tolist() == began_now.tolist()  # their pairs end
