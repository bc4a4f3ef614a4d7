"""Drivers for conformal prediction sets under label shift (paper 001, section 2 and Appendix B).

* :func:`conformal_figure1`: Figure 1 (a)-(c), the three-class Gaussian toy
  with the Bayes-optimal source posterior: one draw of target test data with
  its oracle-weighted sets, and the coverage of standard, oracle-weighted and
  BBSE-weighted conformal sets over many simulations;
* :func:`conformal_figure1_digits`: Figure 1 (d) on a bundled real data set
  (scikit-learn's handwritten digits grouped into three classes; the paper's
  wine quality data are not available offline);
* :func:`randomization_draw`, :func:`randomization_study`,
  :func:`thresholds_by_calibration_size`: Figures 3 and 4 (App. B.2), the
  binary Gaussian example on the source;
* :func:`label_conditional_draw`, :func:`label_conditional_study`: Figures 5
  and 6 (App. B.5), label-conditional against marginal conformal with a
  trained classifier (linear discriminant analysis instead of the paper's
  small MLP; see the chapter);

The simulations behind the guarantees themselves are in
:mod:`companion.conformal_label_shift.guarantee_checks`.

Book labels (chapter ``chap-conformal-label-shift``): ``fig-conf-figure1``,
``fig-conf-figure1d``, ``fig-conf-figure3``, ``fig-conf-figure4``,
``fig-conf-figure5``, ``fig-conf-figure6``, ``thm-conf-split``,
``thm-conf-weighted``, ``cor-conf-estimated``.
"""

from __future__ import annotations


import numpy as np

from .._checks import as_real_array, as_rng, check_int, check_memory, check_nonempty, check_open_unit, check_real, check_size
from .._memo import memoised
from ..label_shift_weights import bbse
from ..scenarios import three_class_gaussian, two_class_gaussian
from .thresholds import (
    coverage,
    label_conditional_thresholds,
    oracle_sets,
    prediction_sets,
    split_threshold,
    weighted_thresholds,
)
from .scores import conformal_scores, true_label_scores


__all__ = [
    "lda_posteriors",
    "conformal_figure1",
    "conformal_figure1_digits",
    "DIGIT_GROUPS",
    "randomization_draw",
    "randomization_study",
    "thresholds_by_calibration_size",
    "label_conditional_draw",
    "label_conditional_study",
]


#: The three classes of the real-data example: digits 0-2, 3-5 and 6-9.
DIGIT_GROUPS = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])


def lda_posteriors(x_train, y_train, x_eval, n_classes: int, *, shrinkage: float = 0.0) -> np.ndarray:
    r"""Fisher's linear discriminant analysis, fitted and evaluated for a batch of training sets.

    Class means, class frequencies and the pooled covariance
    :math:`\hat\Sigma` (divided by :math:`n - k`; with ``shrinkage`` :math:`\lambda`,
    :math:`(1-\lambda)\hat\Sigma + \lambda\,\overline{\operatorname{diag}}\,I`)
    are estimated from ``x_train`` ``(..., n, d)``, ``y_train`` ``(..., n)``;
    the returned posteriors at ``x_eval`` ``(..., m, d)`` are
    :math:`\operatorname{softmax}_y(\log\hat p_y + x^\top\hat\Sigma^{-1}\hat\mu_y - \tfrac12\hat\mu_y^\top\hat\Sigma^{-1}\hat\mu_y)`.
    With Gaussian classes of a shared covariance (the paper's toys) this model
    contains the Bayes rule.  Every class must occur in every training set.
    The posteriors are invariant under a translation of the features and
    (without ``shrinkage``) under scaling each feature, so each training set
    and its evaluation points are first moved by the training set's mean, then
    each feature is divided by the power of two nearest below its largest
    magnitude in the training set (exact in floating point; with ``shrinkage``,
    which is not invariant under scaling one feature, one power of two for all
    features): features at an offset of 1e8 give the posteriors of their
    rounded values at offset 0, where the discriminant's terms of size
    :math:`10^{16}` would cancel; features of size 1e300 or 1e-300, together
    or one at a time, give the posteriors of features of size 1, where the
    pooled covariance would otherwise overflow or underflow.
    """
    arrays = {}
    for name, v in (("x_train", x_train), ("x_eval", x_eval)):
        a = np.asarray(v)
        if a.dtype.kind not in "iuf" or a.ndim < 2 or a.size == 0 or not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be a finite real array of shape (..., n, d), got dtype {a.dtype} and shape {a.shape}")
        arrays[name] = a.astype(float)
    x, xe = arrays["x_train"], arrays["x_eval"]
    y = np.asarray(y_train)
    k = check_int(n_classes, "n_classes", minimum=2)
    if y.dtype.kind not in "iu" or np.any(y < 0) or np.any(y >= k):
        raise ValueError(f"y_train must hold integer class positions 0, ..., {k - 1}")
    shrinkage = check_real(shrinkage, "shrinkage", minimum=0.0, maximum=1.0)
    if shrinkage >= 1.0:
        raise ValueError(f"shrinkage must be a number in [0, 1), got {shrinkage!r}")
    if x.shape[:-1] != y.shape or xe.shape[:-2] != x.shape[:-2] or xe.shape[-1] != x.shape[-1]:
        raise ValueError("x_train (..., n, d), y_train (..., n) and x_eval (..., m, d) must have matching shapes")
    if y.shape[-1] <= k:
        raise ValueError(f"x_train must hold more points than classes ({k}) for the pooled covariance")
    onehot = (y[..., None] == np.arange(k)).astype(float)  # (..., n, k)
    counts = onehot.sum(axis=-2)
    if np.any(counts == 0):
        raise ValueError("every class must occur in every training set (y_train)")
    n = y.shape[-1]
    # translate by the training mean, then a power-of-two scale per feature (one for all with shrinkage): the
    # posteriors do not change, x / scale is exact
    center = x.mean(axis=-2, keepdims=True)
    x, xe = x - center, xe - center
    largest = np.max(np.abs(x), axis=(-2, -1) if shrinkage else -2, keepdims=True)
    scale = np.ldexp(1.0, np.frexp(np.where(largest > 0.0, largest, 1.0))[1] - 1)
    x, xe = x / scale, xe / scale
    means = np.swapaxes(onehot, -1, -2) @ x / counts[..., None]  # (..., k, d)
    resid = x - onehot @ means
    cov = np.swapaxes(resid, -1, -2) @ resid / (n - k)
    if shrinkage:
        d = x.shape[-1]
        avg = np.trace(cov, axis1=-2, axis2=-1)[..., None, None] / d
        cov = (1.0 - shrinkage) * cov + shrinkage * avg * np.eye(d)
    try:
        lin = np.linalg.solve(cov, np.swapaxes(means, -1, -2))  # (..., d, k) = Sigma^-1 mu_y
    except np.linalg.LinAlgError:
        raise ValueError("x_train has a singular pooled covariance (features constant within every class, "
                         "or fewer distinct points than dimensions); use shrinkage > 0") from None
    const = -0.5 * np.sum(np.swapaxes(means, -1, -2) * lin, axis=-2) + np.log(counts / n)  # (..., k)
    with np.errstate(over="ignore", invalid="ignore"):
        logits = xe @ lin + const[..., None, :]
    if not np.all(np.isfinite(logits)):
        raise ValueError("x_eval lies so far from x_train, on the scale of x_train, that the discriminant scores "
                         "exceed the float range")
    logits -= logits.max(axis=-1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=-1, keepdims=True)


def _int_list(values, name: str, length: int | None = None) -> list:
    """A non-empty one-dimensional list of positive integers (sizes); ``length`` fixes its length."""
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {values.shape}")
    items = check_nonempty(values, name)
    if length is not None and len(items) != length:
        raise ValueError(f"{name} must hold {length} sizes, got {len(items)}")
    return [check_int(v, name) for v in items]


#: Memory of one sampled point in the simulations: a 2-d feature, its label, three posteriors, three scores
#: and a prediction set, in 8-byte entries (a generous round figure).
_POINT_BYTES = 128


def _check_sample_sizes(n_at_once: int, **sizes) -> None:
    """Refuse, naming it, a per-simulation sample size whose ``n_at_once`` simultaneous draws exceed the memory limit."""
    for name, n in sizes.items():
        check_memory(n_at_once * n, name, item_bytes=_POINT_BYTES,
                     what=f"{n_at_once} simulation(s) at a time x {name} points, each with features, posteriors and scores")


def _chunks(total: int, size: int):
    start = 0
    while start < total:
        yield start, min(size, total - start)
        start += size


@memoised
def conformal_figure1(
    n_sims: int = 1000,
    n_cal: int = 500,
    n_weights: int = 1000,
    n_test: int = 500,
    alpha: float = 0.1,
    rng=0,
    chunk: int = 250,
) -> dict:
    r"""Figure 1 (a)-(c) of paper 001: conformal sets on the three-class Gaussian toy under label shift.

    The predictor is the Bayes-optimal source posterior :math:`\eta^P`; scores
    are the randomised scores of eq. (6).  Each simulation draws ``n_cal``
    labelled source points (calibration), ``n_weights`` labelled source and
    ``n_weights`` unlabelled target points (BBSE-soft weights, negative values
    clipped) and ``n_test`` target test points.  Methods: ``standard``
    (eq. (7)), ``oracle`` (eqs. (8)-(9) with :math:`w^* = q/p`), ``bbse``
    (the same with the BBSE weights).  The paper does not give its sample
    sizes; these are the book's.

    Returns ``coverage`` and ``size`` (dicts of ``(n_sims,)`` arrays),
    ``weights_hat`` ``(n_sims, 3)``, and ``draw``: the first simulation's test
    points ``x``, labels ``y`` and oracle-weighted ``sets``.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    n_sims, n_cal, n_weights, n_test, chunk = (check_int(v, name) for v, name in
                                               ((n_sims, "n_sims"), (n_cal, "n_cal"), (n_weights, "n_weights"),
                                                (n_test, "n_test"), (chunk, "chunk")))
    check_memory(n_sims, "n_sims", item_bytes=72, what="coverage and size of three methods and three weights per simulation")
    _check_sample_sizes(min(chunk, n_sims), n_cal=n_cal, n_weights=n_weights, n_test=n_test)
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = three_class_gaussian()
    w_star = sc.weights
    methods = ("standard", "oracle", "bbse")
    cov = {m: np.empty(n_sims) for m in methods}
    size = {m: np.empty(n_sims) for m in methods}
    w_hat = np.empty((n_sims, 3))
    draw = None
    for start, r in _chunks(n_sims, chunk):
        xc, yc = sc.sample(n_cal, rng, "source", size=(r,))
        xs, ys = sc.sample(n_weights, rng, "source", size=(r,))
        xt, _ = sc.sample(n_weights, rng, "target", size=(r,))
        xe, ye = sc.sample(n_test, rng, "target", size=(r,))
        pc, pe = sc.posterior(xc), sc.posterior(xe)
        cal = true_label_scores(conformal_scores(pc, "randomized", rng), yc)
        test = conformal_scores(pe, "randomized", rng)
        ps, pt = sc.posterior(xs), sc.posterior(xt)
        for i in range(r):  # BBSE per simulation (k x k solves)
            w_hat[start + i] = bbse(ps[i], ys[i], pt[i], soft=True, negative="clip").weights
        thr = {
            "standard": split_threshold(cal, alpha),
            "oracle": weighted_thresholds(cal, yc, w_star, alpha),
            "bbse": weighted_thresholds(cal, yc, w_hat[start:start + r], alpha),
        }
        for m in methods:
            sets = prediction_sets(test, thr[m])
            res = coverage(sets, ye)
            cov[m][start:start + r] = res.marginal
            size[m][start:start + r] = res.mean_size
            if draw is None and m == "oracle":
                draw = {"x": xe[0], "y": ye[0], "sets": sets[0], "thresholds": thr[m][0]}
    return {"coverage": cov, "size": size, "weights_hat": w_hat, "true_weights": w_star, "draw": draw,
            "methods": methods, "alpha": alpha, "sizes": {"calibration": n_cal, "weights": n_weights, "test": n_test}}


def _resample_classes(idx: np.ndarray, labels: np.ndarray, shares: np.ndarray, total: int, rng) -> np.ndarray:
    """Subsample ``idx`` without replacement to ``round(total * shares)`` points of each class, shuffled."""
    counts = np.round(total * shares).astype(int)
    parts = []
    for c, m in enumerate(counts):  # a loop over classes
        pool = idx[labels[idx] == c]
        if m > pool.size:
            raise ValueError(f"class {c} has {pool.size} points, fewer than the {m} the shares ask for")
        parts.append(rng.choice(pool, size=m, replace=False))
    out = np.concatenate(parts)
    return out[rng.permutation(out.size)]


@memoised
def conformal_figure1_digits(
    n_splits: int = 200,
    source_prior=(0.1, 0.4, 0.5),
    target_prior=(0.4, 0.5, 0.1),
    source_size: int = 600,
    target_size: int = 500,
    split_source=(300, 100),
    n_weights_target: int = 200,
    alpha: float = 0.1,
    shrinkage: float = 0.5,
    rng=0,
) -> dict:
    r"""Figure 1 (d) of paper 001 on scikit-learn's digits, grouped into three classes (:data:`DIGIT_GROUPS`).

    As in the paper's App. B.4, each split halves the data at random (within
    each class, so that both halves hold enough points of every class) and
    resamples (without replacement) the first half to the source class shares
    ``source_prior`` and the second to ``target_prior`` (the paper's shares).
    The source part is divided into training (``split_source[0]``),
    calibration (``split_source[1]``) and weight estimation (the rest); the
    target part into unlabelled weight estimation (``n_weights_target``) and
    test (the rest).  Classifier: linear discriminant analysis with
    ``shrinkage`` on the 64 pixels (:func:`lda_posteriors`), instead of the
    paper's neural network.  Weights: BBSE-soft (negative values clipped).
    Scores: randomised, eq. (6).

    Returns ``coverage`` and ``size`` per method (``(n_splits,)``),
    ``weights_hat``, ``accuracy`` (target test accuracy of the classifier),
    the part sizes, and the scores at the true labels with their labels,
    ``cal_scores``, ``cal_labels`` (``(n_splits, n_cal)``) and
    ``test_scores``, ``test_labels`` (``(n_splits, n_test)``), for checks such
    as :func:`~companion.conformal_label_shift.coverage_given_values`.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    from sklearn.datasets import load_digits

    n_splits = check_size(n_splits, "n_splits", item_bytes=64, what="coverage, size and weights per split")
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    p = as_real_array(source_prior, "source_prior")
    q = as_real_array(target_prior, "target_prior")
    for name, v in (("source_prior", p), ("target_prior", q)):
        if v.shape != (3,) or np.any(v <= 0) or abs(v.sum() - 1.0) > 1e-12:
            raise ValueError(f"{name} must hold three positive shares summing to 1")
    source_size = check_int(source_size, "source_size", maximum=1797)
    target_size = check_int(target_size, "target_size", maximum=1797)
    n_weights_target = check_int(n_weights_target, "n_weights_target")
    n_train, n_cal = _int_list(split_source, "split_source", length=2)  # (training size, calibration size)
    if n_train + n_cal >= source_size:
        raise ValueError(f"split_source must leave source points for the weights: {n_train} + {n_cal} >= source_size {source_size}")
    if n_weights_target >= target_size:
        raise ValueError(f"n_weights_target must leave target test points: {n_weights_target} >= target_size {target_size}")
    x, digit = load_digits(return_X_y=True)
    x = x / 16.0
    y = DIGIT_GROUPS[digit]
    w_star = q / p
    methods = ("standard", "oracle", "bbse")
    cov = {m: np.empty(n_splits) for m in methods}
    size = {m: np.empty(n_splits) for m in methods}
    w_hat = np.empty((n_splits, 3))
    acc = np.empty(n_splits)
    n_test = target_size - n_weights_target
    scores = {"cal_scores": np.empty((n_splits, n_cal)), "cal_labels": np.empty((n_splits, n_cal), dtype=np.int64),
              "test_scores": np.empty((n_splits, n_test)), "test_labels": np.empty((n_splits, n_test), dtype=np.int64)}
    for s in range(n_splits):  # one classifier per split
        perm = rng.permutation(y.size)
        first = np.zeros(y.size, dtype=bool)
        for c in range(3):  # halve every class at random (stratified), so both halves can meet the shares
            members = perm[y[perm] == c]
            first[members[: members.size // 2]] = True
        src = _resample_classes(np.flatnonzero(first), y, p, source_size, rng)
        tgt = _resample_classes(np.flatnonzero(~first), y, q, target_size, rng)
        train, cal, wsrc = src[:n_train], src[n_train:n_train + n_cal], src[n_train + n_cal:]
        wtgt, test = tgt[:n_weights_target], tgt[n_weights_target:]
        prob = lda_posteriors(x[train], y[train], x, 3, shrinkage=shrinkage)
        acc[s] = np.mean(np.argmax(prob[test], axis=1) == y[test])
        w_hat[s] = bbse(prob[wsrc], y[wsrc], prob[wtgt], soft=True, negative="clip").weights
        cal_s = true_label_scores(conformal_scores(prob[cal], "randomized", rng), y[cal])
        test_s = conformal_scores(prob[test], "randomized", rng)
        thr = {"standard": split_threshold(cal_s, alpha),
               "oracle": weighted_thresholds(cal_s, y[cal], w_star, alpha),
               "bbse": weighted_thresholds(cal_s, y[cal], w_hat[s], alpha)}
        for m in methods:
            res = coverage(prediction_sets(test_s, thr[m]), y[test])
            cov[m][s], size[m][s] = res.marginal, res.mean_size
        scores["cal_scores"][s], scores["cal_labels"][s] = cal_s, y[cal]
        scores["test_scores"][s], scores["test_labels"][s] = true_label_scores(test_s, y[test]), y[test]
    sizes = {"train": n_train, "calibration": n_cal, "weights_source": source_size - n_train - n_cal,
             "weights_target": n_weights_target, "test": n_test}
    return {"coverage": cov, "size": size, "weights_hat": w_hat, "true_weights": w_star, "accuracy": acc,
            "methods": methods, "alpha": alpha, "sizes": sizes, **scores}


RANDOMIZATION_METHODS = ("oracle", "oracle randomized", "conformal rho", "scheme 1", "scheme 2")


def randomization_draw(n_cal: int = 1000, n_test: int = 1000, alpha: float = 0.05, rng=0) -> dict:
    r"""Figure 3 of paper 001 (App. B.2): one draw of the binary Gaussian example on the source.

    Sets of the non-randomised oracle (3), the randomised oracle (4), the
    conformal sets with the non-randomised score (19), scheme 1 (7) and
    scheme 2 (20), all with the exact source posterior.  Oracle and conformal
    sets of a point share its uniform :math:`u`.  Returns the test points
    ``x`` and ``sets[name]`` (``(n_test, 2)`` boolean), ``thresholds``.
    """
    n_cal, n_test = check_int(n_cal, "n_cal"), check_int(n_test, "n_test")
    _check_sample_sizes(1, n_cal=n_cal, n_test=n_test)
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = two_class_gaussian()
    xc, yc = sc.sample(n_cal, rng, "source")
    xe, ye = sc.sample(n_test, rng, "source")
    pc, pe = sc.posterior(xc), sc.posterior(xe)
    uc, ue = rng.random(n_cal), rng.random(n_test)
    sets, thr = {}, {}
    sets["oracle"] = oracle_sets(pe, alpha)
    sets["oracle randomized"] = oracle_sets(pe, alpha, randomized=True, u=ue)
    for name, kind in (("conformal rho", "rho"), ("scheme 1", "randomized"), ("scheme 2", "scheme2")):
        thr[name] = split_threshold(true_label_scores(conformal_scores(pc, kind, u=uc), yc), alpha)
        sets[name] = prediction_sets(conformal_scores(pe, kind, u=ue), thr[name])
    return {"x": xe, "y": ye, "eta1": pe[:, 1], "sets": sets, "thresholds": thr, "alpha": alpha}


@memoised
def randomization_study(n_sims: int = 1000, n_cal: int = 1000, n_test: int = 500, alpha: float = 0.05,
                        rng=0, chunk: int = 250) -> dict:
    r"""Figure 4 (a)-(c) of paper 001: coverage, size and learned threshold of the three conformal schemes.

    Binary Gaussian example on the source, exact posterior, ``n_sims``
    repetitions.  Returns ``coverage``, ``size``, ``threshold`` (dicts of
    ``(n_sims,)`` arrays keyed by ``"conformal rho"``, ``"scheme 1"``,
    ``"scheme 2"``), and ``agreement``: the fraction of test points whose
    conformal set equals the randomised oracle set (same uniform), a direct
    measure of how close each scheme comes to the oracle.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    n_sims, n_cal, n_test, chunk = (check_int(v, nm) for v, nm in
                                    ((n_sims, "n_sims"), (n_cal, "n_cal"), (n_test, "n_test"), (chunk, "chunk")))
    check_memory(n_sims, "n_sims", item_bytes=96, what="coverage, size, threshold and agreement of three schemes per simulation")
    _check_sample_sizes(min(chunk, n_sims), n_cal=n_cal, n_test=n_test)
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = two_class_gaussian()
    names = (("conformal rho", "rho"), ("scheme 1", "randomized"), ("scheme 2", "scheme2"))
    out = {key: {nm: np.empty(n_sims) for nm, _ in names} for key in ("coverage", "size", "threshold", "agreement")}
    for start, r in _chunks(n_sims, chunk):
        xc, yc = sc.sample(n_cal, rng, "source", size=(r,))
        xe, ye = sc.sample(n_test, rng, "source", size=(r,))
        pc, pe = sc.posterior(xc), sc.posterior(xe)
        uc, ue = rng.random((r, n_cal)), rng.random((r, n_test))
        oracle = oracle_sets(pe, alpha, randomized=True, u=ue)
        for nm, kind in names:
            t = split_threshold(true_label_scores(conformal_scores(pc, kind, u=uc), yc), alpha)
            sets = prediction_sets(conformal_scores(pe, kind, u=ue), t)
            res = coverage(sets, ye)
            sl = slice(start, start + r)
            out["coverage"][nm][sl], out["size"][nm][sl], out["threshold"][nm][sl] = res.marginal, res.mean_size, t
            out["agreement"][nm][sl] = np.mean(np.all(sets == oracle, axis=-1), axis=-1)
    out["alpha"] = alpha
    return out


@memoised
def thresholds_by_calibration_size(n_values=(100, 300, 1000, 3000, 10000), n_sims: int = 50, alpha: float = 0.05,
                                   rng=0) -> dict:
    r"""Figure 4 (d) of paper 001: learned thresholds of the three schemes against the calibration-set size.

    Returns ``n_values`` and ``threshold[name]`` of shape ``(len(n_values), n_sims)``.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    n_values = np.asarray(_int_list(n_values, "n_values"))
    n_sims = check_int(n_sims, "n_sims")
    check_memory(n_sims * (3 * n_values.size + int(n_values.max())), "n_sims", item_bytes=_POINT_BYTES,
                 what="three thresholds per calibration size and a calibration sample of the largest size per simulation")
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = two_class_gaussian()
    names = (("conformal rho", "rho"), ("scheme 1", "randomized"), ("scheme 2", "scheme2"))
    thr = {nm: np.empty((n_values.size, n_sims)) for nm, _ in names}
    for a, n in enumerate(n_values):
        xc, yc = sc.sample(int(n), rng, "source", size=(n_sims,))
        pc = sc.posterior(xc)
        uc = rng.random((n_sims, int(n)))
        for nm, kind in names:
            thr[nm][a] = split_threshold(true_label_scores(conformal_scores(pc, kind, u=uc), yc), alpha)
    return {"n_values": n_values, "threshold": thr, "alpha": alpha}


def _lc_setting(sc, rng, r, n_train, n_cal, n_test, domain, alpha, weighted):
    """One batch of the label-conditional study: marginal (weighted when shifted) and label-conditional sets."""
    xtr, ytr = sc.sample(n_train, rng, "source", size=(r,))
    xc, yc = sc.sample(n_cal, rng, "source", size=(r,))
    xe, ye = sc.sample(n_test, rng, domain, size=(r,))
    prob = lda_posteriors(xtr, ytr, np.concatenate([xc, xe], axis=-2), sc.n_classes)
    pc, pe = prob[:, :n_cal], prob[:, n_cal:]
    cal = true_label_scores(conformal_scores(pc, "randomized", rng), yc)
    test = conformal_scores(pe, "randomized", rng)
    marginal_thr = weighted_thresholds(cal, yc, sc.weights, alpha) if weighted else split_threshold(cal, alpha)
    lc_thr = label_conditional_thresholds(cal, yc, alpha, sc.n_classes)
    absent = np.sum(np.all(yc[..., None] != np.arange(sc.n_classes), axis=-2), axis=-1)  # classes without calibration points
    return {"marginal": coverage(prediction_sets(test, marginal_thr, True, probs=pe), ye),
            "label-conditional": coverage(prediction_sets(test, lc_thr, True, probs=pe), ye)}, absent


def label_conditional_draw(n_train: int = 1000, n_cal: int = 350, n_test: int = 1000, alpha: float = 0.1, rng=0) -> dict:
    r"""Figure 5 of paper 001 (App. B.5): marginal and label-conditional sets for one draw of the three-class toy.

    Source only; an LDA classifier trained on ``n_train`` points; randomised
    scores; sets forced to contain the most likely label.  Returns test
    points ``x``, labels ``y`` and ``sets`` for ``"marginal"`` and
    ``"label-conditional"``.
    """
    rng = as_rng(rng)
    alpha = check_open_unit(alpha, "alpha")
    sc = three_class_gaussian()
    n_train, n_cal, n_test = check_int(n_train, "n_train"), check_int(n_cal, "n_cal"), check_int(n_test, "n_test")
    _check_sample_sizes(1, n_train=n_train, n_cal=n_cal, n_test=n_test)
    xtr, ytr = sc.sample(n_train, rng, "source")
    xc, yc = sc.sample(n_cal, rng, "source")
    xe, ye = sc.sample(n_test, rng, "source")
    prob = lda_posteriors(xtr, ytr, np.concatenate([xc, xe]), 3)
    pc, pe = prob[:n_cal], prob[n_cal:]
    cal = true_label_scores(conformal_scores(pc, "randomized", rng), yc)
    test = conformal_scores(pe, "randomized", rng)
    sets = {"marginal": prediction_sets(test, split_threshold(cal, alpha), True, probs=pe),
            "label-conditional": prediction_sets(test, label_conditional_thresholds(cal, yc, alpha, 3), True, probs=pe)}
    return {"x": xe, "y": ye, "sets": sets, "alpha": alpha}


@memoised
def label_conditional_study(n_sims: int = 1000, n_train: int = 1000, n_test: int = 500, alpha: float = 0.1,
                            settings=(("source", 350), ("target", 350), ("target", 100)), rng=0,
                            chunk: int = 250) -> dict:
    r"""Figure 6 of paper 001 (App. B.5): coverage and size of marginal against label-conditional conformal.

    For each setting ``(domain, n_cal)``: ``n_sims`` simulations of the
    three-class toy, an LDA classifier trained on ``n_train`` source points
    per simulation, ``n_cal`` source calibration points and ``n_test`` test
    points from ``domain``.  The marginal sets are standard (source) or
    weighted with the true weights (target); the label-conditional sets use
    eq. (10) with :math:`\alpha_y = \alpha` (a class without calibration
    points, which happens at small ``n_cal``, gets threshold 1 as eq. (10)
    says); both always contain the most likely label.  Returns
    ``results[(domain, n_cal)][method]`` with ``coverage`` ``(n_sims,)``,
    ``per_class`` ``(n_sims, 3)`` and ``size``, and ``absent[(domain, n_cal)]``
    ``(n_sims,)``: the number of classes without calibration points in each
    simulation.  Every sample size, each setting's ``n_cal`` included, is
    bounded by the memory its ``chunk`` simultaneous simulations take.

    Memoised (:func:`companion._memo.memoised`): a second call with the same
    arguments (an integer ``rng``) returns a copy of the first result, so a
    figure cell can call it again at no cost.
    """
    n_sims, chunk = check_int(n_sims, "n_sims"), check_int(chunk, "chunk")
    n_train, n_test = check_int(n_train, "n_train", minimum=4), check_int(n_test, "n_test")
    check_memory(n_sims, "n_sims", item_bytes=64, what="coverage, three per-class coverages, size and absent count per simulation and method")
    _check_sample_sizes(min(chunk, n_sims), n_train=n_train, n_test=n_test)
    alpha = check_open_unit(alpha, "alpha")
    rng = as_rng(rng)
    sc = three_class_gaussian()
    if isinstance(settings, (str, bytes)) or not isinstance(settings, (list, tuple)) or not settings:
        raise ValueError(f"settings must be a non-empty list of (domain, n_cal) pairs, got {settings!r}")
    for item in settings:
        if not isinstance(item, (list, tuple)) or len(item) != 2 or item[0] not in ("source", "target"):
            raise ValueError(f"settings must hold (domain, n_cal) pairs with domain 'source' or 'target', got {item!r}")
        _check_sample_sizes(min(chunk, n_sims), **{"settings n_cal": check_int(item[1], "settings n_cal")})
    results, absent = {}, {}
    for domain, n_cal in settings:
        acc = {m: {"coverage": [], "per_class": [], "size": []} for m in ("marginal", "label-conditional")}
        missing = []
        for _, r in _chunks(n_sims, chunk):
            res, n_absent = _lc_setting(sc, rng, r, n_train, check_int(n_cal, "n_cal"), n_test, domain, alpha,
                                        weighted=domain == "target")
            missing.append(n_absent)
            for m, cv in res.items():
                acc[m]["coverage"].append(cv.marginal)
                acc[m]["per_class"].append(cv.per_class)
                acc[m]["size"].append(cv.mean_size)
        results[(domain, int(n_cal))] = {m: {key: np.concatenate(v) for key, v in d.items()} for m, d in acc.items()}
        absent[(domain, int(n_cal))] = np.concatenate(missing)
    return {"results": results, "absent": absent, "alpha": alpha}

