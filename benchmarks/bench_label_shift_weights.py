"""Label-shift weights (paper 001 App. A): BBSE and MLLS against QuaPy, and the batched drivers against a loop.

Book: chap-label-shift-weights (def-lsw-bbse, fig-lsw-rates, fig-lsw-miscalibration) and
chap-binning-label-shift (fig-binls-coverage).

Run: ``.venv/bin/python benchmarks/bench_label_shift_weights.py``.

* BBSE hard and soft (:func:`companion.label_shift_weights.bbse`, full input
  validation included) against QuaPy's ACC and PACC with the exact linear
  solver, on the same classifier outputs of the three-class Gaussian example
  (QuaPy gets the arg-max labels for ACC, computed inside its timing).  Both
  return the same target prior (checked to 1e-12).  The companion builds the
  confusion matrix by counting (``bincount``), in O(n k), and reads integer
  labels 0..k-1 as their own codes without a sort.
* MLLS (EM, tolerance 1e-10) against QuaPy's EMQ (its own tolerance 1e-4, so
  QuaPy stops earlier).
* :func:`companion.label_shift_weights.weight_estimation_rates` (BBSE by one
  batched solve and MLLS by one batched EM over all repetitions) against one
  ``bbse``/``mlls``/``rlls`` call per repetition (the same draws).
"""

from __future__ import annotations

import warnings

import numpy as np

from companion.label_shift_weights import bbse, mlls, rlls, weight_estimation_rates
from companion.scenarios import three_class_gaussian
from harness import available, compare, given_classifier, power

N_VALUES = (500, 1_000, 3_000, 10_000)
N_REPS = 100  # the chapter's


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


def _quapy_methods():
    """QuaPy's ACC, PACC and EMQ around a classifier whose outputs are given (no fitting)."""
    from quapy.method.aggregative import ACC, EMQ, PACC

    def acc(ps, ys, pt):
        q = ACC(given_classifier(3), fit_classifier=False, val_split=None, solver="exact-raise")
        q.aggregation_fit(ps.argmax(axis=1), ys)
        return q.aggregate(pt.argmax(axis=1))

    def pacc(ps, ys, pt):
        q = PACC(given_classifier(3), fit_classifier=False, val_split=None, solver="exact-raise")
        q.aggregation_fit(ps, ys)
        return q.aggregate(pt)

    def emq(ps, ys, pt):
        q = EMQ(given_classifier(3), fit_classifier=False, val_split=None).fit(ps, ys)  # the training prevalence from ys
        return q.aggregate(pt)

    return acc, pacc, emq


def comparisons():
    rows = []
    sc = three_class_gaussian()
    rng = np.random.default_rng(0)
    peers = available("quapy")
    if peers:
        warnings.filterwarnings("ignore", module="quapy")
        acc, pacc, emq = _quapy_methods()
    for n in (10**4, 10**5, 10**6):
        xs, ys = sc.sample(n, rng, "source")
        xt, _ = sc.sample(n, rng, "target")
        ps, pt = sc.posterior(xs), sc.posterior(xt)
        if peers:
            assert np.allclose(acc(ps, ys, pt), bbse(ps, ys, pt, negative="keep").target_prior, atol=1e-12)
            assert np.allclose(pacc(ps, ys, pt), bbse(ps, ys, pt, soft=True, negative="keep").target_prior, atol=1e-12)
        size = f"n_P = n_Q = {power(n)}, k = 3"
        rows += compare("BBSE-hard (weights from classifier outputs)", size, lambda: bbse(ps, ys, pt, negative="keep"),
                        {"QuaPy ACC (exact solver)": ("peer", lambda: acc(ps, ys, pt))} if peers else {})
        rows += compare("BBSE-soft", size, lambda: bbse(ps, ys, pt, soft=True, negative="keep"),
                        {"QuaPy PACC (exact solver)": ("peer", lambda: pacc(ps, ys, pt))} if peers else {})
        rows += compare("MLLS (EM, tol 1e-10)", size, lambda: mlls(ps, ys, pt),
                        {"QuaPy EMQ (tol 1e-4)": ("peer", lambda: emq(ps, ys, pt))} if peers else {})
    rows += compare("weight-estimation rates (BBSE x2, MLLS, RLLS)", f"n = 5e2..1e4, {N_REPS} repetitions",
                    lambda: weight_estimation_rates("three_class", N_VALUES, N_REPS, rng=np.random.default_rng(7)),
                    {"one call per repetition": ("baseline", lambda: loop_rates(7))})
    return rows


if __name__ == "__main__":
    comparisons()
