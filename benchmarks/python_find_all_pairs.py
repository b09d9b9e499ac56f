#!/usr/bin/env python3
"""agrid.find_all_pairs from Python against rtree (libspatialindex: bulk-load, then one
intersection query per box), a NumPy sort-and-sweep, and the C++ one-shot call on the same boxes
(agrid-bench's BM_find_all_pairs/file, reading the boxes this script writes). Run by hand:

    PYTHONPATH=build/python python3 benchmarks/python_find_all_pairs.py [--bench build/benchmarks/agrid-bench]

Boxes: uniform in a cube, sized so that each overlaps about 2 others on average (the article's
sparse scenes), at 10k, 100k and 1M. Medians of several runs, agrid's after one untimed call
(a thread's first call pays for fresh memory, as the C++ one does); every method's pairs are
checked against agrid's.
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

try:
    import rtree
except ImportError:  # Debian: python3-rtree (scripts/setup-deps installs it)
    rtree = None


def scene(n, seed=1):
    """n boxes of edge 1 uniform in a cube of side about 2.5 n^(1/3): about 1 pair per box."""
    rng = np.random.default_rng(seed)
    side = 2.5 * n ** (1 / 3)
    mins = rng.uniform(0, side, (n, 3)).astype(np.float32)
    return mins, mins + np.float32(1)


def median_time(fn, runs):
    times = []
    result = None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def rtree_pairs(mins, maxs):
    """Bulk-load an R-tree (stream constructor), then query each box; pairs i < j, sorted."""
    n = len(mins)
    props = rtree.index.Property(dimension=3)
    stream = ((i, (*mins[i], *maxs[i]), None) for i in range(n))
    index = rtree.index.Index(stream, properties=props)
    pairs = []
    for i in range(n):
        for j in index.intersection((*mins[i], *maxs[i])):
            if j > i:
                pairs.append((i, j))
    pairs.sort()
    return np.array(pairs, dtype=np.uint32).reshape(-1, 2)


def numpy_sweep_pairs(mins, maxs):
    """Sort on min x, then for each box the boxes whose min x falls in its x extent (searchsorted),
    tested on y and z in vectorised chunks. Pairs i < j, sorted."""
    order = np.argsort(mins[:, 0], kind="stable")
    smin = mins[order]
    smax = maxs[order]
    ends = np.searchsorted(smin[:, 0], smax[:, 0], side="right")
    firsts, seconds = [], []
    for k in range(len(order)):
        lo, hi = k + 1, ends[k]
        if hi <= lo:
            continue
        cand = np.arange(lo, hi)
        ok = np.all((smin[cand, 1:] <= smax[k, 1:]) & (smin[k, 1:] <= smax[cand, 1:]), axis=1)
        hit = order[cand[ok]]
        a = np.minimum(order[k], hit)
        b = np.maximum(order[k], hit)
        firsts.append(a)
        seconds.append(b)
    if not firsts:
        return np.zeros((0, 2), dtype=np.uint32)
    pairs = np.stack([np.concatenate(firsts), np.concatenate(seconds)], axis=1).astype(np.uint32)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def cpp_one_shot_ms(bench, mins, maxs, threads):
    """agrid-bench's BM_find_all_pairs/file on these boxes: median of its repetitions, ms."""
    with tempfile.NamedTemporaryFile(suffix=".boxes", delete=False) as f:
        np.hstack([mins, maxs]).astype(np.float32).tofile(f)
        path = f.name
    try:
        out = subprocess.run(
            [bench, "--benchmark_filter=BM_find_all_pairs/file/threads:%d" % threads, "--benchmark_repetitions=5",
             "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
            env={**os.environ, "AGRID_BENCH_BOXES": path}, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    for b in json.loads(out)["benchmarks"]:
        if b["name"].endswith("_median"):
            return b["real_time"]
    raise RuntimeError("no median in agrid-bench's output")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default="build/benchmarks/agrid-bench", help="agrid-bench, for the C++ side")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--rtree-max", type=int, default=100000, help="largest size rtree runs at (it is slow)")
    args = parser.parse_args()
    print("| boxes | pairs | threads | agrid (Python) | agrid (C++ one-shot) | Python / C++ | NumPy sweep | rtree | rtree / agrid |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (int(s) for s in args.sizes.split(",")):
        mins, maxs = scene(n)
        runs = 7 if n <= 100000 else 5
        slow_runs = 1 if n >= 100000 else 3
        sweep_s, sweep = median_time(lambda: numpy_sweep_pairs(mins, maxs), slow_runs)
        rtree_s, rt = (None, None)
        if rtree is not None and n <= args.rtree_max:
            rtree_s, rt = median_time(lambda: rtree_pairs(mins, maxs), slow_runs)
        for threads in (1, 2):
            agrid.set_num_threads(threads)
            agrid.find_all_pairs(mins, maxs)  # warm, as Google Benchmark warms the C++ call
            py_s, pairs = median_time(lambda: agrid.find_all_pairs(mins, maxs), runs)
            assert np.array_equal(sweep, pairs), "the NumPy sweep disagrees with agrid"
            if rt is not None:
                assert np.array_equal(rt, pairs), "rtree disagrees with agrid"
            cpp_ms = cpp_one_shot_ms(args.bench, mins, maxs, threads) if os.path.exists(args.bench) else float("nan")
            print("| %d | %d | %d | %.2f ms | %.2f ms | %.2f | %.0f ms | %s | %s |" % (
                n, len(pairs), threads, py_s * 1e3, cpp_ms, py_s * 1e3 / cpp_ms, sweep_s * 1e3,
                "%.0f ms" % (rtree_s * 1e3) if rtree_s else "-", "%.0fx" % (rtree_s / py_s) if rtree_s else "-"))
            sys.stdout.flush()
    agrid.set_num_threads(0)


if __name__ == "__main__":
    main()
