"""Uniform-mass binning fit + predict (paper 000, Definition 6 and eq. (9)) against one sort and scikit-learn.

Book: chap-uniform-mass-binning (def-umb); the estimator is
:class:`companion.calibration_sharpness.UniformMassBinning`.

Run: ``.venv/bin/python benchmarks/bench_binning.py``.

The companion validates the sample once, finds the B - 1 order statistics of
Definition 6 with one ``np.partition`` (no sort), bins every point with one
``searchsorted`` in the interior edges and counts with two ``bincount``
passes; ``predict`` bins again without re-validating the fitted edges.  The
floor is one ``np.sort`` of the same scores; the peer is scikit-learn's
``KBinsDiscretizer(strategy="quantile")`` (all points, no subsample) with the
bin means computed by ``bincount``.
"""

from __future__ import annotations

import numpy as np

from companion.calibration_sharpness import UniformMassBinning
from harness import available, compare, power

N_BINS = 100


def comparisons():
    rows = []
    rng = np.random.default_rng(0)
    for n in (10**4, 10**6, 10**7):
        z = rng.random(n)
        y = (rng.random(n) < z).astype(np.int64)

        def ours():
            return UniformMassBinning(N_BINS).fit(z, y).predict(z)

        others = {"one np.sort of the scores": ("floor", lambda: np.sort(z))}
        if available("sklearn"):
            from sklearn.preprocessing import KBinsDiscretizer

            def sklearn_umb():
                kb = KBinsDiscretizer(n_bins=N_BINS, encode="ordinal", strategy="quantile", subsample=None)
                bins = kb.fit_transform(z[:, None])[:, 0].astype(np.int64)
                values = np.bincount(bins, weights=y, minlength=N_BINS) / np.bincount(bins, minlength=N_BINS)
                return values[kb.transform(z[:, None])[:, 0].astype(np.int64)]

            others["scikit-learn KBinsDiscretizer + bin means"] = ("peer", sklearn_umb)
        rows += compare(f"uniform-mass binning fit + predict, B = {N_BINS}", f"n = {power(n)}", ours, others)
    return rows


if __name__ == "__main__":
    comparisons()
