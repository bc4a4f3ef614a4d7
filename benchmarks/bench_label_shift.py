"""Wall time of the label-shift drivers (paper 000, Table 1, Remark 4, App. E.2), against a naive baseline.

Book: chap-label-shift-recalibration (Table 1, fig-ls-remark4, fig-ls-grid).

Run: ``.venv/bin/python benchmarks/bench_label_shift.py``.

The driver (:func:`companion.label_shift_recalibration.label_shift_risks`) evaluates the
population risks of all binned maps of all realizations in one
``population_risks_batch`` call and the LABEL-SHIFT map of all realizations in
one batched ``population_risks_of_map`` call.  The baseline makes one
``population_risks`` / ``population_risks_of_map`` call per map, as a
straightforward script would.  Both are dominated by the sharpness quadrature
of the binned maps (one Gauss-Legendre pass per map either way), so the two
take about the same time: a few seconds for the paper's Table 1 plus 1000
realizations.
"""

from __future__ import annotations

import time

import numpy as np

from companion.label_shift_recalibration import (
    fit_label_shift_estimators,
    label_shift_grid,
    label_shift_risks,
    sun_table1,
    target_sample_complexity,
)
from companion.scenarios import GaussianMixture


def naive_table1(n_reps: int, rng: np.random.Generator) -> np.ndarray:
    source, target = GaussianMixture(0.5), GaussianMixture(0.1)
    out = []
    for _ in range(n_reps):
        z_s, y_s = source.sample(1000, rng)
        z_t, y_t = target.sample(100, rng)
        est = fit_label_shift_estimators(z_s, y_s, z_t, y_t)
        row = [target.population_risks(m.edges_, m.values_)["risk"] for m in (est.source, est.target, est.composite)]
        row.append(target.population_risks_of_map(est.label_shift)["risk"])
        out.append(row)
    return np.array(out)


def timed(label: str, fn) -> float:
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<58}{elapsed:8.2f} s")
    return elapsed


def main() -> None:
    fast = timed("Table 1, 1000 realizations (batched risks)", lambda: label_shift_risks(n_reps=1000, rng=0))
    slow = timed("Table 1, 1000 realizations (one risk call per map)", lambda: naive_table1(1000, np.random.default_rng(0)))
    print(f"{'baseline / driver':<58}{slow / fast:8.2f}")
    timed("Table 1 as in the chapter (B = 10 and 9; 10 + 1000 realizations)", lambda: sun_table1(rng=0))
    timed("Remark 4 curves (n_Q = 1e2..1e5, n_P = 1e5, 20 realizations)", lambda: target_sample_complexity(rng=0))
    timed("Appendix E.2 grid (7 x 3 x 3 cells, 20 realizations)", lambda: label_shift_grid(n_reps=20, rng=0))


if __name__ == "__main__":
    main()
