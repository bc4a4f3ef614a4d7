"""Conformal prediction sets (paper 001, section 2) against MAPIE and crepes, and against naive baselines.

Book: chap-conformal-label-shift (def-conf-split, def-conf-weighted, def-conf-label-conditional,
fig-conf-figure1).

Run: ``.venv/bin/python benchmarks/bench_conformal.py``.

* Split conformal with the LAC score (threshold from the calibration scores,
  then the sets of the test points) against MAPIE's
  ``SplitConformalClassifier(conformity_score="lac")`` on the same
  probabilities; label-conditional conformal against crepes'
  ``ConformalClassifier`` with the labels as Mondrian categories.  The
  libraries agree with the companion's sets except where their level
  conventions differ (see the chapter's section on the two libraries).
* Weighted thresholds (eqs. (8)-(9)): one sort and exact per-class counts,
  against the straightforward reading of eq. (8), a Python loop over the
  sorted points for each candidate label.
* Figure 1 (a)-(c): the batched driver against the same steps one simulation
  at a time.
"""

from __future__ import annotations

import numpy as np

from companion.conformal_label_shift import (
    conformal_figure1,
    conformal_scores,
    coverage,
    label_conditional_thresholds,
    prediction_sets,
    split_threshold,
    true_label_scores,
    weighted_thresholds,
)
from companion.label_shift_weights import bbse
from companion.scenarios import three_class_gaussian
from harness import available, compare, given_classifier, power

ALPHA = 0.1


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


def naive_figure1(n_sims, rng, n_cal=500, n_weights=1000, n_test=500, alpha=ALPHA):
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


def _peers(k):
    """MAPIE's split conformal and crepes' class-conditional conformal on given probabilities."""
    out = {}
    if available("mapie"):
        from mapie.classification import SplitConformalClassifier

        def mapie_split(p_cal, y_cal, p_test):
            m = SplitConformalClassifier(given_classifier(k), confidence_level=1 - ALPHA, conformity_score="lac", prefit=True)
            return m.conformalize(p_cal, y_cal).predict_set(p_test)[1]

        out["mapie"] = mapie_split
    if available("crepes"):
        from crepes import ConformalClassifier

        def crepes_label_conditional(p_cal, y_cal, p_test):
            """Label-conditional sets: the labels are the Mondrian categories, so label j is tested in category j."""
            cc = ConformalClassifier().fit(1.0 - p_cal[np.arange(y_cal.size), y_cal], bins=y_cal)
            n = p_test.shape[0]
            return np.column_stack([cc.predict_set(1.0 - p_test[:, [j]], bins=np.full(n, j), confidence=1 - ALPHA,
                                                   smoothing=False)[:, 0] for j in range(k)])

        out["crepes"] = crepes_label_conditional
    return out


def comparisons():
    rows = []
    rng = np.random.default_rng(0)
    sc = three_class_gaussian()
    for n in (10**4, 10**5):
        x_cal, y_cal = sc.sample(n, rng, "source")
        x_test, _ = sc.sample(n, rng, "target")
        p_cal, p_test = sc.posterior(x_cal), sc.posterior(x_test)
        peers = _peers(3)

        def ours_split():
            cal = true_label_scores(conformal_scores(p_cal, "lac"), y_cal)
            return prediction_sets(conformal_scores(p_test, "lac"), split_threshold(cal, ALPHA))

        def ours_label_conditional():
            cal = true_label_scores(conformal_scores(p_cal, "lac"), y_cal)
            return prediction_sets(conformal_scores(p_test, "lac"), label_conditional_thresholds(cal, y_cal, ALPHA, 3))

        size = f"n_cal = n_test = {power(n)}, k = 3"
        rows += compare("split conformal, LAC score: threshold and sets", size, ours_split,
                        {"MAPIE SplitConformalClassifier": ("peer", lambda: peers["mapie"](p_cal, y_cal, p_test))}
                        if "mapie" in peers else {})
        rows += compare("label-conditional conformal: thresholds and sets", size, ours_label_conditional,
                        {"crepes ConformalClassifier (Mondrian by label)": ("peer", lambda: peers["crepes"](p_cal, y_cal, p_test))}
                        if "crepes" in peers else {})
    for n, k in ((1_000, 3), (100_000, 3)):
        s = rng.random(n)
        labels = rng.integers(0, k, size=n)
        w = rng.gamma(1.0, size=k)
        assert np.array_equal(weighted_thresholds(s, labels, w, ALPHA), naive_weighted_thresholds(s, labels, w, ALPHA))
        rows += compare("weighted thresholds, eqs. (8)-(9)", f"n = {power(n)}, k = {k}", lambda: weighted_thresholds(s, labels, w, ALPHA),
                        {"per-label loop over the sorted points": ("baseline", lambda: naive_weighted_thresholds(s, labels, w, ALPHA))})
    rows += compare("Figure 1 (a)-(c), 100 simulations", "n_cal = 500", lambda: conformal_figure1(n_sims=100, rng=np.random.default_rng(0)),
                    {"one simulation at a time": ("baseline", lambda: naive_figure1(100, np.random.default_rng(0)))})
    return rows


if __name__ == "__main__":
    comparisons()
