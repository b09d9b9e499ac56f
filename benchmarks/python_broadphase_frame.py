#!/usr/bin/env python3
"""A frame of a NumPy simulation on agrid.Broadphase: every box moves, then set_boxes + update()
with the pairs that began and ended, against the C++ program doing the same on the same frames
(agrid-bench-broadphase's BM_frame/file, which reads the frames this script writes). Run by hand:

    PYTHONPATH=build/python python3 benchmarks/python_broadphase_frame.py \\
        [--bench build/benchmarks/agrid-bench-broadphase] [--boxes 100000] [--rounds 5]

The scene: boxes of edge 1 uniform in a cube sized for about one pair a box (as
python_find_all_pairs.py), each with a velocity of at most MAX_SPEED a frame (a random walk). The
first frame's boxes are created and updated once, WARMUP frames follow untimed, then TIMED frames
are timed one by one; the median frame is reported for 1 and 2 threads, Python beside C++, the
two run in turn (--rounds times; the last rows: the median of the rounds' medians). The Python side's began and ended are checked against a second
Broadphase fed one set_box at a time, on the first round.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import agrid

WARMUP = 15  # bench_broadphase.cpp's kFrameWarmup: the same frames untimed on both sides
TIMED = 30
MAX_SPEED = 0.05  # per frame, in box edges: a step small beside the fat margin, as bodies move
THREADS = (1, 2)


def frames(n, seed=1):
    """(WARMUP + TIMED + 1, n, 6) float32: the boxes of every frame, rows (min x, y, z, max x, y, z)."""
    rng = np.random.default_rng(seed)
    side = 2.5 * n ** (1 / 3)
    mins = rng.uniform(0, side, (n, 3))
    velocity = rng.uniform(-MAX_SPEED, MAX_SPEED, (n, 3))
    out = np.empty((WARMUP + TIMED + 1, n, 6), dtype=np.float32)
    for f in range(len(out)):
        out[f, :, :3] = mins + f * velocity
        out[f, :, 3:] = out[f, :, :3] + np.float32(1)
    return out


def python_frames(all_frames, check):
    """Median ms of the timed frames: set_boxes(handles, mins, maxs) and update(), both arrays read."""
    split = [(np.ascontiguousarray(f[:, :3]), np.ascontiguousarray(f[:, 3:])) for f in all_frames]
    bp = agrid.Broadphase()
    handles = bp.create(*split[0])
    bp.update()
    reference = None
    if check:
        reference = agrid.Broadphase()
        for lo, hi in zip(*split[0]):
            reference.create(lo, hi)
        reference.update()
    times = []
    for f, (mins, maxs) in enumerate(split[1:], start=1):
        start = time.perf_counter()
        bp.set_boxes(handles, mins, maxs)
        began, ended = bp.update()
        elapsed = time.perf_counter() - start
        if f > WARMUP:
            times.append(elapsed)
        if reference is not None:
            for h, lo, hi in zip(handles, mins, maxs):
                reference.set_box(int(h), lo, hi)
            want_began, want_ended = reference.update()
            assert np.array_equal(began, want_began) and np.array_equal(ended, want_ended), f"frame {f}"
    return statistics.median(times) * 1e3, len(began), len(ended)


def cpp_frames(bench, path, n, threads):
    """BM_frame/file/threads:<threads>'s median frame, ms, and its last frame's began and ended."""
    out = subprocess.run(
        [bench, "--benchmark_filter=BM_frame/file/threads:%d/" % threads, "--benchmark_format=json"],
        env={**os.environ, "AGRID_BENCH_FRAMES": path, "AGRID_BENCH_FRAME_BOXES": str(n)},
        check=True, capture_output=True, text=True).stdout
    run = json.loads(out)["benchmarks"][0]
    return run["median_ms"], int(run["began"]), int(run["ended"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default="build/benchmarks/agrid-bench-broadphase", help="for the C++ side")
    parser.add_argument("--boxes", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=5, help="Python and C++ run in turn this many times")
    args = parser.parse_args()
    all_frames = frames(args.boxes)
    with tempfile.NamedTemporaryFile(suffix=".frames", delete=False) as f:
        all_frames.tofile(f)
        path = f.name
    medians = {threads: ([], []) for threads in THREADS}  # per thread count: Python's, C++'s
    try:
        print("| round | threads | boxes | began / ended (last frame) | Python frame | C++ frame | Python / C++ |")
        print("|---|---|---|---|---|---|---|")
        for r in range(args.rounds):
            for threads in THREADS:
                agrid.set_num_threads(threads)
                py_ms, began, ended = python_frames(all_frames, check=r == 0)
                cpp_ms, cpp_began, cpp_ended = cpp_frames(args.bench, path, args.boxes, threads)
                assert (began, ended) == (cpp_began, cpp_ended), "the C++ run saw other pairs"
                medians[threads][0].append(py_ms)
                medians[threads][1].append(cpp_ms)
                print("| %d | %d | %d | %d / %d | %.2f ms | %.2f ms | %.3f |" % (
                    r + 1, threads, args.boxes, began, ended, py_ms, cpp_ms, py_ms / cpp_ms))
                sys.stdout.flush()
        for threads, (py, cpp) in medians.items():
            py_ms, cpp_ms = statistics.median(py), statistics.median(cpp)
            print("| median of %d | %d | %d | | %.2f ms | %.2f ms | %.3f |" % (
                args.rounds, threads, args.boxes, py_ms, cpp_ms, py_ms / cpp_ms))
    finally:
        os.unlink(path)
        agrid.set_num_threads(0)


if __name__ == "__main__":
    main()
