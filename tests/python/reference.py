"""The references the Python tests compare agrid with: NumPy brute force on boxes, queries,
segments and a model of the Broadphase's pairs, and the seeded random and adversarial scenes."""

import numpy as np


def valid(mins, maxs):
    """Rows that take part: no NaN and min <= max on every axis."""
    return np.all(mins <= maxs, axis=1)


def brute_pairs(mins, maxs):
    """Every overlapping pair (i < j) of closed boxes, sorted, as a (K, 2) uint32 array."""
    mins = np.asarray(mins, dtype=np.float64)
    maxs = np.asarray(maxs, dtype=np.float64)
    n = len(mins)
    ok = valid(mins, maxs)
    pairs = []
    for i in range(n):
        if not ok[i]:
            continue
        j = np.arange(i + 1, n)
        hit = ok[i + 1 :] & np.all((mins[i] <= maxs[i + 1 :]) & (mins[i + 1 :] <= maxs[i]), axis=1)
        pairs.extend((i, k) for k in j[hit])
    return np.array(pairs, dtype=np.uint32).reshape(-1, 2)


def brute_query(mins, maxs, qmin, qmax):
    ok = valid(mins, maxs)
    hit = ok & np.all((mins <= qmax) & (qmin <= maxs), axis=1)
    return np.flatnonzero(hit).astype(np.uint32)


def segment_hits(mins, maxs, start, end):
    """Indices of boxes a closed segment meets: slabs in float64 (float32 inputs are exact)."""
    start = np.asarray(start, dtype=np.float64)
    d = np.asarray(end, dtype=np.float64) - start
    out = []
    for i, (lo, hi) in enumerate(zip(mins.astype(np.float64), maxs.astype(np.float64))):
        if not np.all(lo <= hi):
            continue
        t0, t1 = 0.0, 1.0
        for a in range(3):
            if d[a] == 0:
                if start[a] < lo[a] or start[a] > hi[a]:
                    t0, t1 = 1.0, 0.0
                continue
            u, v = (lo[a] - start[a]) / d[a], (hi[a] - start[a]) / d[a]
            t0, t1 = max(t0, min(u, v)), min(t1, max(u, v))
        if t0 <= t1:
            out.append(i)
    return np.array(out, dtype=np.uint32)


def random_boxes(n, seed, extent=10.0, size=1.0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    mins = rng.uniform(0, extent, (n, 3)).astype(dtype)
    maxs = (mins + rng.uniform(0, size, (n, 3))).astype(dtype)
    return mins, maxs


def adversarial_boxes():
    """NaN rows, inverted rows, infinite and huge boxes, touching faces, duplicates, points."""
    nan, inf = np.nan, np.inf
    mins = np.array(
        [[0, 0, 0], [1, 0, 0], [nan, 0, 0], [2, 2, 2], [-inf, -inf, -inf], [0, 0, 0], [5, 5, 5],
         [1e30, 1e30, 1e30], [-1e30, 0, 0], [0.5, 0.5, 0.5], [3, 3, 3], [0, 0, 0]], dtype=np.float32)
    maxs = np.array(
        [[1, 1, 1], [2, 1, 1], [1, 1, 1], [1, 1, 1], [inf, inf, inf], [1, 1, 1], [5, 5, 5],
         [inf, inf, inf], [1e30, 1, 1], [0.5, 0.5, 0.5], [3, 3, nan], [0, 0, 0]], dtype=np.float32)
    return mins, maxs


def model_pairs(boxes, filters):
    """Pairs of handles whose boxes overlap and whose filters pass, sorted."""
    handles = sorted(boxes)
    out = []
    for x, a in enumerate(handles):
        for b in handles[x + 1 :]:
            (la, ha), (lb, hb) = boxes[a], boxes[b]
            (ga, ma), (gb, mb) = filters[a], filters[b]
            if not (np.all(la <= ha) and np.all(lb <= hb)):
                continue
            if (ga & mb) == 0 or (gb & ma) == 0:
                continue
            if np.all((la <= hb) & (lb <= ha)):
                out.append((a, b))
    return out
