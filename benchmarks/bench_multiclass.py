"""Wall time of the l_p calibration algorithm (paper 002) and of the chapter's drivers, against a straightforward implementation.

Run: ``.venv/bin/python benchmarks/bench_multiclass.py``.

The companion's :class:`~companion.multiclass_lp.LpCalibrator` finds the level
sets of all forecasts with one pass over the integer count vectors and one sort
of their perfect-hash keys, keeps per-level-set statistics in arrays (one
``bincount`` per pool), and answers every group query by summing a few rows of
those arrays.  The baseline follows the paper's pseudo-code literally, as a
first implementation would: a Python dictionary keyed by the tuple of rounded
coordinates, filled by a loop over the samples, and every group estimate
recomputed from the samples of the group.  Both run the same algorithm (no
noise, no pools, the same threshold); the script checks that their outputs
agree before timing them on one full calibration run with k = 10 classes and
3 x 10^4 samples, best of five alternating rounds.
"""

from __future__ import annotations

import math

import numpy as np

from companion.multiclass_lp import LpCalibrator, book_multiclass_scenario, project_to_simplex
from harness import compare


def naive_fit(probs: np.ndarray, y: np.ndarray, lam: float, threshold: float):
    """Algorithm 2 without noise and pools, written with dictionaries and loops over samples."""
    n, k = probs.shape
    m = round(1 / lam)
    members: dict[tuple, list[int]] = {}
    for s in range(n):  # the loop the companion avoids
        key = tuple(math.floor(v * m + 1e-9) for v in probs[s])
        members.setdefault(key, []).append(s)
    heavy = sorted((key for key, idx in members.items() if len(idx) / n >= threshold))
    # groups: list of [list of level sets, prediction]; the prediction of a level set is c(v)
    groups = []
    for key in heavy:
        slack = m - sum(key)
        groups.append([[key], np.array([(a * k + slack) / (m * k) for a in key])])

    def estimate(levels):
        idx = [s for key in levels for s in members[key]]
        mass = len(idx) / n
        counts = np.zeros(k)
        for s in idx:
            counts[y[s]] += 1
        return mass, project_to_simplex(counts / len(idx))

    estimates = [estimate(levels) for levels, _ in groups]
    steps = 0
    while groups:
        best, where = -1.0, None
        for gi, ((levels, u), (mass, yhat)) in enumerate(zip(groups, estimates)):
            for i in range(k):
                err = mass * abs(u[i] - yhat[i])
                if err > best:
                    best, where = err, (gi, i)
        if best <= threshold:
            break
        gi, i = where
        w = groups[gi][1].copy()
        w[i] = estimates[gi][1][i]
        groups[gi][1] = project_to_simplex(w)
        key = tuple(math.floor(v * m + 1e-9) for v in groups[gi][1])
        for gj, (_, u) in enumerate(groups):
            if gj != gi and tuple(math.floor(v * m + 1e-9) for v in u) == key:
                keep = groups[gi][1] if estimates[gi][0] >= estimates[gj][0] else groups[gj][1]
                groups[gi] = [groups[gi][0] + groups[gj][0], keep.copy()]
                estimates[gi] = estimate(groups[gi][0])
                del groups[gj], estimates[gj]
                break
        steps += 1
    table = {key: u for levels, u in groups for key in levels}
    return table, steps


def comparisons():
    lam, k, n = 0.1, 10, 30_000
    probs, y = book_multiclass_scenario(k).sample(n, 0)
    threshold = 1 / math.sqrt(n)
    cal = LpCalibrator(lam, threshold=threshold, noise=False, pools=False).fit(probs, y)
    table, steps = naive_fit(probs, y, lam, threshold)
    levels = [tuple(row) for row in cal.bin_levels_]
    assert set(levels) == set(table) and cal.n_steps_ == steps
    assert max(float(np.max(np.abs(table[key] - pred))) for key, pred in zip(levels, cal.bin_predictions_)) < 1e-12
    return compare("l_p calibration, Algorithm 2 (no noise, no pools)", f"k = {k}, n = {n:,}, lambda = {lam}",
                   lambda: LpCalibrator(lam, threshold=threshold, noise=False, pools=False).fit(probs, y),
                   {"dictionaries and loops over samples": ("baseline", lambda: naive_fit(probs, y, lam, threshold))})


if __name__ == "__main__":
    comparisons()
