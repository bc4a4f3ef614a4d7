"""Wall time of the weight-estimation drivers against a straightforward loop over repetitions.

Book: chap-label-shift-weights (fig-lsw-rates, fig-lsw-miscalibration) and
chap-binning-label-shift (fig-binls-coverage).

Run: ``.venv/bin/python benchmarks/bench_label_shift_weights.py``.

The heaviest driver, :func:`companion.label_shift_weights.weight_estimation_rates`,
computes BBSE (hard and soft) with one batched ``np.linalg.solve`` and MLLS
with one batched EM (two matrix-vector products per step and repetition) for
all repetitions of a sample size at once; RLLS is solved one repetition at a
time.  The baseline calls the public ``bbse``, ``mlls`` and ``rlls`` of
:mod:`companion.label_shift_weights` once per repetition, as a straightforward script
would.  Both give the same weights (checked below to 1e-8).  The miscalibration
study is timed against a loop of ``mlls(..., calibration=...)`` calls in the
same way, and the coverage driver of Theorem 3 (multinomial counts for all
repetitions at once) is timed alone.
"""

from __future__ import annotations

import time

import numpy as np

from companion.binning_label_shift import theorem3_coverage
from companion.label_shift_weights import (
    bbse,
    miscalibration_study,
    mlls,
    rlls,
    scale_probabilities,
    weight_estimation_rates,
)
from companion.scenarios import three_class_gaussian

N_VALUES = (500, 1_000, 3_000, 10_000)
N_REPS = 100


def loop_rates(seed: int) -> np.ndarray:
    """The same draws as ``weight_estimation_rates("three_class", N_VALUES, N_REPS, rng=seed)``, one call per repetition."""
    sc = three_class_gaussian()
    rng = np.random.default_rng(seed)
    sc.sample(5_000, rng, "target")  # the driver's evaluation sample
    out = np.empty((len(N_VALUES), N_REPS, 4, 3))
    for i, n in enumerate(N_VALUES):
        xs, ys = sc.sample(n, rng, "source", size=(N_REPS,))
        xt, _ = sc.sample(n, rng, "target", size=(N_REPS,))
        for r in range(N_REPS):
            ps, pt = sc.posterior(xs[r]), sc.posterior(xt[r])
            out[i, r, 0] = bbse(ps, ys[r], pt, negative="keep").weights
            out[i, r, 1] = bbse(ps, ys[r], pt, soft=True, negative="keep").weights
            out[i, r, 2] = mlls(ps, ys[r], pt).weights
            out[i, r, 3] = rlls(ps, ys[r], pt, 1.0 / np.sqrt(n), soft=True).weights
    return out


def loop_miscalibration(seed: int, n_values=(1_000, 3_000, 10_000), n_reps: int = 30) -> None:
    sc = three_class_gaussian()
    rng = np.random.default_rng(seed)
    bias = np.linspace(0.0, 0.6, 3)
    for n in n_values:
        for _ in range(n_reps):
            xs, ys = sc.sample(n, rng, "source")
            xt, _ = sc.sample(n, rng, "target")
            fs, ft = scale_probabilities(sc.posterior(xs), 2.0, bias), scale_probabilities(sc.posterior(xt), 2.0, bias)
            for cal in (None, "ts", "bcts", "vs"):
                mlls(fs, ys, ft, calibration=cal)
            bbse(fs, ys, ft, soft=True, negative="keep")


def timed(label: str, fn):
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<66}{elapsed:8.2f} s")
    return elapsed, result


def main() -> None:
    fast, driver = timed(f"weight rates, three classes, n = 5e2..1e4, {N_REPS} repetitions (batched)",
                         lambda: weight_estimation_rates("three_class", N_VALUES, N_REPS, rng=7))
    slow, loop = timed("the same, one bbse/mlls/rlls call per repetition", lambda: loop_rates(7))
    print(f"{'largest difference of the weights':<66}{np.max(np.abs(driver['weights'] - loop)):8.1e}")
    print(f"{'loop / driver':<66}{slow / fast:8.2f}")
    fast_m, _ = timed("miscalibration study, n = 1e3..1e4, 30 repetitions (batched Newton + EM)",
                      lambda: miscalibration_study("three_class", (1_000, 3_000, 10_000), 30, rng=8))
    slow_m, _ = timed("the same, one mlls(calibration=...) call per repetition", lambda: loop_miscalibration(8))
    print(f"{'loop / driver':<66}{slow_m / fast_m:8.2f}")
    timed("Theorem 3 coverage, three classes, 4 n x 2e4 repetitions", lambda: theorem3_coverage("three_class", rng=9))


if __name__ == "__main__":
    main()
