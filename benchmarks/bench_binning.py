"""Uniform-mass binning fit + predict (paper 000, Definition 6 and eq. (9)) against one sort, one partition and scikit-learn.

Book: chap-uniform-mass-binning (def-umb); the estimator is
:class:`companion.calibration_sharpness.UniformMassBinning`, its cells
:mod:`companion.calibration_sharpness.cells`.

Run: ``.venv/bin/python benchmarks/bench_binning.py``.

For n = 1e6 and 1e7, B = 10, 100 and 1000 and three shapes of scores
(uniform; Beta(0.5, 20), piled up near 0; uniform rounded to 2 decimals, 101
tied values) one alternating run times five sides: the companion's fit +
predict on the sample, its predict alone (fitted beforehand), and three others:

* floors: one ``np.sort`` of the scores, and one ``np.partition`` at the B - 1
  ranks of Definition 6 (what the previous fit paid for its edges alone);
* peer: scikit-learn's ``KBinsDiscretizer(strategy="quantile")`` on all points
  (no subsample) with the bin means by ``bincount``, fit + predict.

The goal is fit + predict at most one sort and at most half of scikit-learn,
and predict at most 0.3 of one sort.  Rounded scores with B = 1000 have empty
bins, where eq. (9) has no mean and the fit raises; that cell times
``UniformMassBinning(B, ties="merge")`` instead (tied edges merged, as
scikit-learn merges them), and ``notes`` (printed under the table of
``run_all.py``) says so.
"""

from __future__ import annotations

import warnings

import numpy as np

from companion.calibration_sharpness import UniformMassBinning
from companion.calibration_sharpness.binning import _uniform_mass_ranks
from harness import available, compare_many, power

SHAPES = {
    "uniform": lambda rng, n: rng.random(n),
    "Beta(0.5, 20)": lambda rng, n: rng.beta(0.5, 20.0, n),
    "rounded to 2 decimals": lambda rng, n: np.round(rng.random(n), 2),
}
#: Why a cell of the grid has no row (filled by :func:`comparisons`).
notes: list[str] = []
SORT, PARTITION, PEER = "one np.sort of the scores", "np.partition at the B - 1 ranks", "scikit-learn KBinsDiscretizer + bin means"


def _peer(z, y, n_bins):
    from sklearn.preprocessing import KBinsDiscretizer

    def sklearn_umb():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tied scores: scikit-learn merges bins with a warning
            kb = KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy="quantile", subsample=None)
            bins = kb.fit_transform(z[:, None])[:, 0].astype(np.int64)
            counts = np.bincount(bins, minlength=n_bins)
            values = np.bincount(bins, weights=y, minlength=n_bins) / np.maximum(counts, 1)
            return values[kb.transform(z[:, None])[:, 0].astype(np.int64)]

    return sklearn_umb


def comparisons():
    rows = []
    rng = np.random.default_rng(0)
    for n in (10**6, 10**7):
        for shape, draw in SHAPES.items():
            z = draw(rng, n)
            y = (rng.random(n) < z).astype(np.int64)
            for n_bins in (10, 100, 1000):
                ties = "raise"
                try:
                    fitted = UniformMassBinning(n_bins).fit(z, y)
                except ValueError as exc:
                    ties = "merge"
                    fitted = UniformMassBinning(n_bins, ties=ties).fit(z, y)
                    notes.append(f"uniform-mass binning, {shape}, n = {power(n)}, B = {n_bins}: the fit raises ({exc}), "
                                 f"so the rows time ties=\"merge\" ({fitted.n_bins_} bins left).")
                    print(notes[-1], flush=True)
                label = "" if ties == "raise" else ", ties=\"merge\""
                kth = _uniform_mass_ranks(n, n_bins) - 1
                others = {SORT: ("floor", lambda: np.sort(z)), PARTITION: ("floor", lambda: np.partition(z, kth))}
                if available("sklearn"):
                    others[PEER] = ("peer", _peer(z, y, n_bins))
                companions = {
                    f"uniform-mass fit + predict, {shape}, B = {n_bins}{label}": (
                        lambda: UniformMassBinning(n_bins, ties=ties).fit(z, y).predict(z), list(others)),
                    f"uniform-mass predict, {shape}, B = {n_bins}{label}": (lambda: fitted.predict(z), [SORT]),
                }
                rows += compare_many(f"n = {power(n)}", companions, others)
    return rows


if __name__ == "__main__":
    comparisons()
