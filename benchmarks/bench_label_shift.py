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
take about the same time.  Timed on 200 realizations, best of five alternating rounds.
"""

from __future__ import annotations

import numpy as np

from companion.label_shift_recalibration import (
    fit_label_shift_estimators,
    label_shift_risks,
)
from companion.scenarios import GaussianMixture
from harness import compare


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


def comparisons():
    return compare("Table 1 risks (SOURCE, TARGET, LABEL-SHIFT, COMPOSITE)", "200 realizations, n_P = 1e3, n_Q = 1e2",
                   lambda: label_shift_risks(n_reps=200, rng=np.random.default_rng(0)),
                   {"one risk call per map": ("baseline", lambda: naive_table1(200, np.random.default_rng(0)))})


if __name__ == "__main__":
    comparisons()
