"""Wall time of the conformal thresholds and of the Figure 1 simulation (paper 001, section 2), against naive baselines.

Book: chap-conformal-label-shift (fig-conf-figure1, def-conf-weighted).

Run: ``.venv/bin/python benchmarks/bench_conformal.py``.

* Weighted thresholds (eqs. (8)-(9)): :func:`companion.conformal_label_shift.weighted_thresholds`
  sorts the calibration scores once, forms the cumulative weight from exact
  per-class counts (so that ties are decided exactly, whatever the scale of
  the weights) and finds all k thresholds by binary search,
  O(n log n + n k).  The baseline is the
  straightforward reading of eq. (8): for each candidate label, build the
  masses, sort, and walk the sorted weights in a Python loop until the level
  is reached, O(k n log n) plus a Python loop over the points.
* Figure 1 (a)-(c): :func:`companion.conformal_label_shift.conformal_figure1` draws,
  scores and thresholds 250 simulations per batch; the baseline runs the
  same steps one simulation at a time.
"""

from __future__ import annotations

import time

import numpy as np

from companion.conformal_label_shift import (
    conformal_figure1,
    conformal_scores,
    coverage,
    prediction_sets,
    split_threshold,
    true_label_scores,
    weighted_thresholds,
)
from companion.label_shift_weights import bbse
from companion.scenarios import three_class_gaussian


def naive_weighted_thresholds(scores, labels, weights, alpha):
    out = np.empty(weights.size)
    for y in range(weights.size):
        masses = np.append(weights[labels], weights[y])
        atoms = np.append(scores, 1.0)
        order = np.argsort(atoms, kind="stable")
        level = (1 - alpha) * masses.sum()
        acc = 0.0
        for j in order:  # the Python loop over sorted points
            acc += masses[j]
            if acc >= level:
                out[y] = atoms[j]
                break
    return out


def naive_figure1(n_sims, rng, n_cal=500, n_weights=1000, n_test=500, alpha=0.1):
    sc = three_class_gaussian()
    cov = np.empty((n_sims, 3))
    for r in range(n_sims):
        xc, yc = sc.sample(n_cal, rng, "source")
        xs, ys = sc.sample(n_weights, rng, "source")
        xt, _ = sc.sample(n_weights, rng, "target")
        xe, ye = sc.sample(n_test, rng, "target")
        cal = true_label_scores(conformal_scores(sc.posterior(xc), "randomized", rng), yc)
        test = conformal_scores(sc.posterior(xe), "randomized", rng)
        w_hat = bbse(sc.posterior(xs), ys, sc.posterior(xt), soft=True, negative="clip").weights
        for j, t in enumerate((split_threshold(cal, alpha), weighted_thresholds(cal, yc, sc.weights, alpha),
                               weighted_thresholds(cal, yc, w_hat, alpha))):
            cov[r, j] = coverage(prediction_sets(test, t), ye).marginal
    return cov


def timed(label: str, fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    elapsed = (time.perf_counter() - start) / repeat
    print(f"{label:<66}{elapsed:10.4f} s")
    return elapsed


def main() -> None:
    rng = np.random.default_rng(0)
    for n, k in ((1_000, 3), (100_000, 3), (100_000, 10)):
        s = rng.random(n)
        labels = rng.integers(0, k, size=n)
        w = rng.gamma(1.0, size=k)
        assert np.array_equal(weighted_thresholds(s, labels, w, 0.1), naive_weighted_thresholds(s, labels, w, 0.1))
        fast = timed(f"weighted thresholds, n = {n}, k = {k} (one sort)", lambda: weighted_thresholds(s, labels, w, 0.1), 5)
        slow = timed(f"weighted thresholds, n = {n}, k = {k} (per-label loop)", lambda: naive_weighted_thresholds(s, labels, w, 0.1))
        print(f"{'baseline / companion':<66}{slow / fast:10.1f}")
    fast = timed("Figure 1 (a)-(c), 250 simulations (batched driver)", lambda: conformal_figure1(n_sims=250, rng=0))
    slow = timed("Figure 1 (a)-(c), 250 simulations (one at a time)", lambda: naive_figure1(250, np.random.default_rng(0)))
    print(f"{'baseline / driver':<66}{slow / fast:10.2f}")
    timed("Figure 1 (a)-(c) as in the chapter (1000 simulations)", lambda: conformal_figure1(n_sims=1000, rng=0))


if __name__ == "__main__":
    main()
