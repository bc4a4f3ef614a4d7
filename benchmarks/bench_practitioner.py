"""The practitioner's task of the page "Use it in your project", with the companion and every peer on the same data.

Book: book/use_in_your_project.ipynb (label ``use-in-your-project``).

Run: ``.venv/bin/python benchmarks/bench_practitioner.py`` (``make benchmark`` runs it too);
it writes ``benchmarks/practitioner.json``, which the page reads for the peers' numbers and
every time (re-execute the page afterwards, its stored outputs show the file).

The task: scikit-learn's handwritten digits (``load_digits``, bundled with
scikit-learn), a logistic regression trained on a source split, a labelled
source calibration split, and an unlabelled target drawn from the remaining
points at another class balance (its labels are used for scoring only).  Two
versions: the ten digits, and one binary task (digits 5-9 against 0-4) for the
composite recalibrator, which serves two classes.  Each side does what its
library offers for the task:

* the companion (:mod:`companion.estimators`): the target prior
  (``TargetPriorEstimator``, MLLS after BCTS), recalibrated probabilities
  (``LabelShiftCalibratedClassifier``) and prediction sets under the shift
  (``WeightedConformalClassifier``, weighted and label-conditional);
* scikit-learn: ``CalibratedClassifierCV`` on the source calibration split (a
  frozen model), which ignores the shift; its prior is the mean of its
  probabilities on the target;
* QuaPy: EMQ (the EM of Saerens et al., the same algorithm as MLLS) with and
  without BCTS, and PACC (BBSE-soft); EMQ's posteriors on the target are its
  recalibrated probabilities;
* MAPIE: split conformal with the LAC score (``SplitConformalClassifier``);
* crepes: class-conditional (Mondrian by label) conformal sets (``WrapClassifier``).

Every side is timed from the fitted classifier to its outputs (fit and
predict), the sides alternately, best of ``ROUNDS`` rounds (:mod:`harness`).
A peer that is not installed gets a row saying so and no numbers.
"""

from __future__ import annotations

import datetime
import json
import os
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from harness import Row, available, best_of, machine

RESULT = Path(__file__).resolve().parent / "practitioner.json"
SEED = 38
ALPHA = 0.1
N_TRAIN, N_CAL = 600, 500  # the rest of the 1797 digits is the pool the target is drawn from
N_TARGET = 300
TARGET_PRIOR = np.array([0.05, 0.05, 0.06, 0.07, 0.08, 0.09, 0.11, 0.13, 0.16, 0.2])  # digits 0..9: more of 8 and 9
BINARY_TARGET_PRIOR = np.array([0.8, 0.2])  # digits 0-4, digits 5-9
ROUNDS = 15  # the sides take milliseconds: more rounds than the harness's five
# each companion step against the peers' sides doing the same step (rows of the benchmarks page)
#: Each companion side -> (its row's name on the benchmarks page, the peers it is timed against).  The
#: names say the step in words: a class name such as LabelShiftCalibratedClassifier does not wrap, and
#: the page's table must fit the column (tests/built_book/test_browser.py).
PAIRS = {"companion prior": ("target prior, MLLS after BCTS", ["quapy emq-bcts", "quapy emq", "quapy pacc"]),
         "companion composite": ('recalibrated, method "composite"', ["sklearn sigmoid", "quapy emq-bcts"]),
         "companion bcts": ('recalibrated, method "bcts"', ["sklearn temperature", "quapy emq-bcts"]),
         "companion weighted sets": ("prediction sets, MLLS weights", ["mapie split"]),
         "companion label-conditional sets": ("prediction sets, label-conditional", ["crepes class-conditional"])}
notes = ["The rows *use in your project* time the steps of {doc}`use_in_your_project` on its data (the target "
         "prior: `TargetPriorEstimator`; recalibrated: `LabelShiftCalibratedClassifier`; prediction sets: "
         "`WeightedConformalClassifier`); every side's numbers and times are in `benchmarks/practitioner.json`, "
         "which that page reads (re-execute it after `make benchmark`)."]
LIBRARIES = ("companion", "scikit-learn", "QuaPy", "MAPIE", "crepes")
DISTRIBUTIONS = {"scikit-learn": "scikit-learn", "QuaPy": "QuaPy", "MAPIE": "MAPIE", "crepes": "crepes"}
MODULES = {"scikit-learn": "sklearn", "QuaPy": "quapy", "MAPIE": "mapie", "crepes": "crepes"}


def task(binary: bool = False) -> dict:
    """The page's data and classifier: source training, source calibration and target splits of the digits."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    X, y = load_digits(return_X_y=True)
    X = X / 16
    prior = TARGET_PRIOR
    if binary:
        y = (y >= 5).astype(int)
        prior = BINARY_TARGET_PRIOR
    rng = np.random.default_rng(SEED)
    order = rng.permutation(y.size)
    train, cal, pool = order[:N_TRAIN], order[N_TRAIN:N_TRAIN + N_CAL], order[N_TRAIN + N_CAL:]
    counts = np.round(prior * N_TARGET).astype(int)
    target = np.concatenate([pool[y[pool] == c][:m] for c, m in enumerate(counts)])
    if not np.array_equal(np.bincount(y[target]), counts):
        raise RuntimeError("the pool is too small for the target prior")
    model = LogisticRegression(max_iter=5000).fit(X[train], y[train])
    return {"X_cal": X[cal], "y_cal": y[cal], "X_target": X[target], "y_target": y[target], "model": model,
            "true_prior": counts / counts.sum()}


def scores(y, probs=None, prior=None, sets=None, true_prior=None) -> dict:
    """The page's measures: prior L1 error, Brier score and top-label ECE, coverage and mean set size on the target."""
    from companion.multiclass_lp import squared_error, top_label_ece

    out = {}
    if prior is not None:
        out["prior_l1"] = float(np.abs(np.asarray(prior) - true_prior).sum())
    if probs is not None:
        out["brier"] = float(squared_error(probs, y))
        out["ece"] = float(top_label_ece(probs, y))
    if sets is not None:
        sets = np.asarray(sets, dtype=bool)
        out["coverage"] = float(sets[np.arange(y.size), y].mean())
        out["set_size"] = float(sets.sum(axis=1).mean())
    return out


# ---------------------------------------------------------------------------------------------
# The sides: name -> (library, what it computes, callable(t) -> dict of outputs)
# ---------------------------------------------------------------------------------------------


def companion_sides(binary: bool) -> dict:
    from companion.estimators import LabelShiftCalibratedClassifier, TargetPriorEstimator, WeightedConformalClassifier

    def prior(t):
        est = TargetPriorEstimator(t["model"]).fit(t["X_cal"], t["y_cal"], t["X_target"])
        return {"prior": est.target_prior_}

    def recalibrate(method):
        def side(t):
            clf = LabelShiftCalibratedClassifier(t["model"], method=method).fit(t["X_cal"], t["y_cal"], t["X_target"])
            return {"prior": clf.target_prior_, "probs": clf.predict_proba(t["X_target"])}
        return side

    def conformal(label_conditional):
        def side(t):
            cp = WeightedConformalClassifier(t["model"], alpha=ALPHA, label_conditional=label_conditional)
            target = () if label_conditional else (t["X_target"],)  # label-conditional sets need no weights
            return {"sets": cp.fit(t["X_cal"], t["y_cal"], *target).predict_set(t["X_target"])}
        return side

    sides = {"companion prior": ("companion", "TargetPriorEstimator, MLLS after BCTS", prior)}
    if binary:
        sides["companion composite"] = ("companion", 'LabelShiftCalibratedClassifier, method "composite"',
                                        recalibrate("composite"))
    sides["companion bcts"] = ("companion", 'LabelShiftCalibratedClassifier, method "bcts"', recalibrate("bcts"))
    if not binary:
        sides["companion weighted sets"] = ("companion", "WeightedConformalClassifier, MLLS weights", conformal(False))
        sides["companion label-conditional sets"] = ("companion", "WeightedConformalClassifier, label-conditional",
                                                     conformal(True))
    return sides


def peer_sides(binary: bool) -> dict:
    sides = {}
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    def sklearn_side(method):
        def side(t):
            cal = CalibratedClassifierCV(FrozenEstimator(t["model"]), method=method).fit(t["X_cal"], t["y_cal"])
            probs = cal.predict_proba(t["X_target"])
            return {"prior": probs.mean(axis=0), "probs": probs}
        return side

    sides["sklearn sigmoid"] = ("scikit-learn", "CalibratedClassifierCV, sigmoid, source only",
                                sklearn_side("sigmoid"))
    sides["sklearn temperature"] = ("scikit-learn", "CalibratedClassifierCV, temperature, source only",
                                    sklearn_side("temperature"))
    if available("quapy"):
        warnings.filterwarnings("ignore", module="quapy")
        from quapy.method.aggregative import EMQ, PACC

        def emq(calib):
            def side(t):
                q = EMQ(t["model"], fit_classifier=False, calib=calib,
                        val_split=None if calib is None else (t["X_cal"], t["y_cal"])).fit(t["X_cal"], t["y_cal"])
                return {"prior": q.predict(t["X_target"]), "probs": q.predict_proba(t["X_target"])}
            return side

        def pacc(t):
            q = PACC(t["model"], fit_classifier=False, val_split=None).fit(t["X_cal"], t["y_cal"])
            return {"prior": q.predict(t["X_target"])}

        sides["quapy emq"] = ("QuaPy", "EMQ", emq(None))
        sides["quapy emq-bcts"] = ("QuaPy", 'EMQ, calib "bcts"', emq("bcts"))
        sides["quapy pacc"] = ("QuaPy", "PACC", pacc)
    else:
        sides["quapy"] = ("QuaPy", "not installed", None)
    if binary:
        return sides
    if available("mapie"):
        from mapie.classification import SplitConformalClassifier

        def mapie_side(t):
            m = SplitConformalClassifier(t["model"], confidence_level=1 - ALPHA, conformity_score="lac", prefit=True)
            return {"sets": m.conformalize(t["X_cal"], t["y_cal"]).predict_set(t["X_target"])[1][:, :, 0]}

        sides["mapie split"] = ("MAPIE", "SplitConformalClassifier (LAC score)", mapie_side)
    else:
        sides["mapie"] = ("MAPIE", "not installed", None)
    if available("crepes"):
        from crepes import WrapClassifier

        def crepes_side(t):
            w = WrapClassifier(t["model"])
            w.calibrate(t["X_cal"], t["y_cal"], class_cond=True)
            return {"sets": w.predict_set(t["X_target"], labels=False, confidence=1 - ALPHA, smoothing=False)}

        sides["crepes class-conditional"] = ("crepes", "WrapClassifier, class-conditional", crepes_side)
    else:
        sides["crepes"] = ("crepes", "not installed", None)
    return sides


def reference_row(t) -> dict:
    """The classifier as trained, no recalibration: what every side starts from."""
    probs = t["model"].predict_proba(t["X_target"])
    return {"library": "reference", "estimator": "the classifier as trained",
            **scores(t["y_target"], probs=probs, prior=probs.mean(axis=0), true_prior=t["true_prior"])}


def companion_rows(binary: bool = False) -> list[dict]:
    """The companion's rows without times: what the page computes live and the test compares with the file."""
    t = task(binary)
    rows = []
    for library, what, fn in companion_sides(binary).values():
        rows.append({"library": library, "estimator": what,
                     **scores(t["y_target"], **fn(t), true_prior=t["true_prior"])})
    return rows


def run_task(binary: bool, rounds: int = ROUNDS) -> tuple[dict, list]:
    """Every side's numbers and best time on one task; also the harness rows (each companion step against its peers)."""
    t = task(binary)
    sides = {**companion_sides(binary), **peer_sides(binary)}
    runnable = {name: (lambda fn=fn: fn(t)) for name, (_, _, fn) in sides.items() if fn is not None}
    load = os.getloadavg()[0]
    times = best_of(runnable, rounds)
    load = max(load, os.getloadavg()[0])
    rows = [reference_row(t)]
    for name, (library, what, fn) in sides.items():
        if fn is None:
            rows.append({"library": library, "estimator": what})
            continue
        rows.append({"library": library, "estimator": what, **scores(t["y_target"], **fn(t), true_prior=t["true_prior"]),
                     "time": times[name]})
    size = f"n_cal = {N_CAL}, n_target = {N_TARGET}, k = {2 if binary else 10}"
    harness_rows = []
    for ours, (step, theirs) in PAIRS.items():
        for other in (p for p in theirs if p in times and ours in times):
            harness_rows.append(Row(f"use in your project: {step}", size, times[ours],
                                    f"{sides[other][0]} {sides[other][1]}", "peer", times[other], load))
    return {"true_prior": t["true_prior"].tolist(), "load": load, "rows": rows}, harness_rows


def versions() -> dict:
    out = {"numpy": np.__version__}
    for label, dist in DISTRIBUTIONS.items():
        try:
            out[label] = version(dist)
        except PackageNotFoundError:
            out[label] = None
    return out


def comparisons():
    """Run both tasks, write ``benchmarks/practitioner.json`` and return the harness rows (``run_all.py``)."""
    result = {"generated_by": "benchmarks/bench_practitioner.py", "date": datetime.date.today().isoformat(),
              "machine": machine(), "versions": versions(), "alpha": ALPHA, "rounds": ROUNDS, "tasks": {}}
    rows = []
    for key, binary in (("digits", False), ("binary", True)):
        result["tasks"][key], more = run_task(binary)
        rows += more
    RESULT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written to {RESULT}")
    return rows


if __name__ == "__main__":
    comparisons()
