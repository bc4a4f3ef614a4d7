r"""Multiclass label shift: the Bayes correction and estimating the importance weights.

Source: paper 001 (Podkopaev and Ramdas), eq. (16) and Appendix A, and the
estimators it builds on: black-box shift estimation (BBSE, Lipton et al.),
maximum-likelihood label shift (MLLS, the EM of Saerens et al.) with the
bias-corrected calibration of Alexandari et al., and regularised learning
under label shift (RLLS, Azizzadenesheli et al.).

Notation (book chapter ``chap-label-shift-weights``): ``k`` classes, source
prior :math:`p`, target prior :math:`q`, importance weights
:math:`w^*_y = q_y / p_y`; a classifier returns rows of the probability
simplex :math:`\mathcal S_k`.

Labels may be of any hashable, mutually comparable type.  They are mapped
once to ``0, ..., k-1`` in the order of ``classes`` (column ``j`` of every
probability matrix belongs to ``classes[j]``); every result reports
``classes`` and lists weights and priors in that order.

The *source prior* used by every estimator here is the vector of label
frequencies of the labelled source sample.  (Libraries differ: QuaPy's EMQ
also uses the training label frequencies, while the ``abstention`` package by
default takes the mean of the calibrated source posteriors; after bias-corrected
calibration the two coincide, see :func:`fit_scaling`.)

The module also holds the two Gaussian scenarios of paper 001 with exact
posteriors under source and target (:class:`GaussianLabelShift`,
:func:`two_class_gaussian`, :func:`three_class_gaussian`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.integrate import quad
from scipy.linalg import null_space
from scipy.optimize import brentq, minimize
from scipy.special import ndtr

from ._checks import (
    as_real_array,
    as_rng,
    as_weights,
    check_bool,
    check_int,
    check_option,
    check_positive,
    check_real,
    check_tolerance,
)

__all__ = [
    "ConvergenceError",
    "SIMPLEX_ATOL",
    "as_simplex_rows",
    "encode_labels",
    "posterior_correction",
    "scale_probabilities",
    "ScalingCalibrator",
    "fit_scaling",
    "BBSEResult",
    "MLLSResult",
    "RLLSResult",
    "bbse",
    "mlls",
    "mlls_log_likelihood",
    "rlls",
    "GaussianLabelShift",
    "two_class_gaussian",
    "three_class_gaussian",
]

#: Tolerance on the row sums of a probability matrix (rows must sum to 1 within it).
SIMPLEX_ATOL = 1e-9


class ConvergenceError(ValueError):
    """An iterative estimator (the EM of MLLS, a calibration fit, the RLLS solver) did not converge."""


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    """log softmax over the last axis (max-shifted; -inf entries stay -inf)."""
    top = np.max(logits, axis=-1, keepdims=True)
    shifted = logits - top
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _softmax(logits: np.ndarray) -> np.ndarray:
    """softmax over the last axis (max-shifted)."""
    e = np.exp(logits - np.max(logits, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


# ---------------------------------------------------------------------------
# Validation of probability matrices and labels
# ---------------------------------------------------------------------------


def as_simplex_rows(probs, name: str, *, atol: float = SIMPLEX_ATOL) -> np.ndarray:
    """Return ``probs`` as an ``(n, k)`` float array whose rows lie in the probability simplex.

    Every entry must be finite and in [0, 1], every row must sum to 1 within
    ``atol`` (a finite number >= 0), and there must be at least two columns
    (classes).  ``name`` is the caller's argument name, used in the messages.
    """
    atol = check_real(atol, "atol", minimum=0.0)
    arr = as_real_array(probs, name, ndim=2)
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least two columns (one per class), got shape {arr.shape}")
    if np.any((arr < 0.0) | (arr > 1.0)):
        raise ValueError(f"{name} must hold probabilities in [0, 1] (rows of the simplex)")
    worst = float(np.max(np.abs(arr.sum(axis=1) - 1.0)))
    if worst > atol:
        row = int(np.argmax(np.abs(arr.sum(axis=1) - 1.0)))
        raise ValueError(f"{name} must have rows summing to 1 (rows of the simplex); row {row} is off by {worst:.3g}")
    return arr


def encode_labels(y, name: str, n_classes: int, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """Map labels of any hashable, comparable type to codes ``0, ..., n_classes - 1``.

    Parameters
    ----------
    y : array_like, shape (n,)
        Labels.
    name : str
        Argument name used in error messages.
    n_classes : int
        Number of classes ``k`` (columns of the probability matrices).
    classes : sequence, optional
        The ``k`` distinct labels, in the order of the probability columns.
        Default: ``0, ..., k-1`` when ``y`` holds integers in that range,
        otherwise the sorted distinct values of ``y`` (which must then
        number exactly ``k``).

    Returns
    -------
    codes : numpy.ndarray of int64
    classes : numpy.ndarray
        The labels of the columns, in column order.
    """
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    y = _as_label_vector(y, name)
    try:
        uniq, inverse = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"{name} must hold mutually comparable labels ({exc})") from None
    if classes is None:
        if uniq.dtype.kind in "iu" and uniq[0] >= 0 and uniq[-1] < n_classes:
            classes = np.arange(n_classes)
        elif uniq.size == n_classes:
            classes = uniq
        else:
            raise ValueError(
                f"{name} holds {uniq.size} distinct labels but the probabilities have {n_classes} columns; "
                "pass classes= to name the label of every column"
            )
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size != n_classes:
        raise ValueError(f"classes must list one label per probability column ({n_classes}), got {classes.size}")
    lookup = {}
    for j, c in enumerate(classes.tolist()):
        if c in lookup:
            raise ValueError(f"classes must be distinct; {c!r} appears twice")
        lookup[c] = j
    codes_of_uniq = np.empty(uniq.size, dtype=np.int64)
    for i, u in enumerate(uniq.tolist()):  # a loop over the distinct labels only
        if u not in lookup:
            raise ValueError(f"{name} contains the label {u!r}, which is not one of classes {classes.tolist()!r}")
        codes_of_uniq[i] = lookup[u]
    return codes_of_uniq[inverse.reshape(-1)], classes


def _as_label_vector(y, name: str) -> np.ndarray:
    """``y`` as a non-empty 1-D array of labels of a hashable, comparable kind (not complex, not NaN).

    Labels are not parsed: strings stay strings (class ``"0"`` is not class ``0``).
    """
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-dimensional array of labels ({exc})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-dimensional array of labels, got shape {arr.shape}")
    if arr.dtype.kind in "cV" or (arr.dtype.kind == "O" and any(isinstance(v, complex) for v in arr.tolist())):
        raise ValueError(f"{name} must hold real or string labels, got complex entries")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinite labels")
    return arr


def _class_frequencies(codes: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
    """Label frequencies; every class must occur (assumption (A1) needs p(y) > 0 to identify w(y))."""
    counts = np.bincount(codes, minlength=classes.size)
    if np.any(counts == 0):
        absent = classes.tolist()[int(np.flatnonzero(counts == 0)[0])]
        raise ValueError(
            f"class {absent!r} is absent from {name}: its source prior is estimated as 0, so its "
            "importance weight q/p is not identifiable (assumption (A1))"
        )
    return counts / codes.size


def _check_same_classes(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"{name_a} and {name_b} must have the same number of columns (classes), got {a.shape[1]} and {b.shape[1]}")


def _check_rows(probs: np.ndarray, codes: np.ndarray, name_p: str, name_y: str) -> None:
    """``probs`` (validated rows) and the encoded labels ``codes`` must have the same length."""
    if probs.shape[0] != codes.shape[0]:
        raise ValueError(f"{name_p} and {name_y} must have the same length (rows), got {probs.shape[0]} and {codes.shape[0]}")


# ---------------------------------------------------------------------------
# The Bayes correction (paper 001 eq. (16))
# ---------------------------------------------------------------------------


def posterior_correction(probs, weights) -> np.ndarray:
    r"""Bayes correction of posteriors to a new prior: :math:`\eta^Q_y = w_y\eta^P_y / \sum_j w_j\eta^P_j` (paper 001 eq. (16)).

    Book: ``prop-lsw-bayes-correction``.  With the true weights
    :math:`w^* = q/p` and the true source posterior it returns the true
    target posterior; applied to the bin frequencies of a binning
    recalibrator it is eq. (17) of the paper.

    Parameters
    ----------
    probs : array_like, shape (n, k) or (k,)
        Rows of the simplex (source posteriors or bin frequencies).
    weights : array_like, shape (k,)
        Non-negative weights, not all zero (only their ratios matter).

    Returns
    -------
    numpy.ndarray
        The corrected rows, renormalised to sum to 1, of the shape of ``probs``.
    """
    one_row = np.ndim(probs) == 1
    p = as_simplex_rows(np.atleast_2d(probs), "probs")
    w = as_weights(weights, "weights")
    if w.size != p.shape[1]:
        raise ValueError(f"weights must hold one weight per column of probs ({p.shape[1]}), got {w.size}")
    num = p * w
    den = num.sum(axis=1)
    if np.any(den <= 0.0):
        row = int(np.flatnonzero(den <= 0.0)[0])
        raise ValueError(f"probs row {row} puts all its mass on classes of weight 0, so eq. (16) is 0/0 there")
    out = num / den[:, None]
    return out[0] if one_row else out


# ---------------------------------------------------------------------------
# Temperature, bias-corrected temperature and vector scaling
# ---------------------------------------------------------------------------

_SCALINGS = ("ts", "bcts", "vs")


def scale_probabilities(probs, slope, bias=None) -> np.ndarray:
    r"""The scaling map :math:`z \mapsto \mathrm{softmax}(a \odot \log z + b)` applied to rows of the simplex.

    ``slope`` :math:`a` is a scalar (:math:`1/T` for a temperature :math:`T`)
    or a vector of length ``k``; ``bias`` :math:`b` a vector of length ``k``
    (default 0).  Entries equal to 0 stay 0 for a positive slope.  Used by
    the calibrators of :func:`fit_scaling` and to build deliberately
    miscalibrated classifiers (book: ``def-lsw-scaling``).
    """
    p = as_simplex_rows(probs, "probs")
    k = p.shape[1]
    a = np.asarray(as_real_array(np.atleast_1d(slope), "slope"))
    if a.size not in (1, k):
        raise ValueError(f"slope must be a scalar or hold one value per class ({k}), got {a.size}")
    b = np.zeros(k) if bias is None else as_real_array(bias, "bias")
    if b.size != k:
        raise ValueError(f"bias must hold one value per class ({k}), got {b.size}")
    if np.any(a <= 0.0) and np.any(p == 0.0):
        raise ValueError("slope must be positive when probs contains zeros (log 0 = -inf)")
    with np.errstate(divide="ignore"):
        logits = a * np.log(p) + b
    return _softmax(logits)


@dataclass(frozen=True)
class ScalingCalibrator:
    r"""A fitted scaling calibrator (book: ``def-lsw-scaling``).

    ``kind`` is ``"ts"`` (temperature scaling, :math:`a = 1/T`, :math:`b = 0`),
    ``"bcts"`` (bias-corrected temperature scaling: scalar :math:`a`, vector
    :math:`b`) or ``"vs"`` (vector scaling: vectors :math:`a` and :math:`b`).
    ``slope`` and ``bias`` are the fitted :math:`a` and :math:`b` (``b[0] = 0``:
    the softmax is unchanged by a common shift of :math:`b`), and ``nll`` the
    minimised mean negative log-likelihood on the fitting sample.
    """

    kind: str
    slope: np.ndarray
    bias: np.ndarray
    nll: float

    @property
    def temperature(self) -> float:
        """:math:`T = 1/a` for the scalar-slope calibrators (``ts``, ``bcts``)."""
        if self.slope.size != 1:
            raise ValueError("temperature is defined for ts and bcts only (vector scaling has one slope per class)")
        return float(1.0 / self.slope[0])

    def transform(self, probs) -> np.ndarray:
        """Apply the fitted map to rows of the simplex."""
        return scale_probabilities(probs, self.slope, self.bias)


def _unpack_scaling(params: np.ndarray, k: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Slope a and bias b (with b[0] = 0) from the free parameters of a scaling calibrator."""
    if kind == "ts":
        return params[:1], np.zeros(k)
    if kind == "bcts":
        return params[:1], np.concatenate(([0.0], params[1:]))
    return params[:k], np.concatenate(([0.0], params[k:]))


def _scaling_design(logp: np.ndarray, kind: str) -> np.ndarray:
    """Derivatives D[..., j, y, i] of the logits a * log p_iy + b_y with respect to free parameter j.

    ``logp`` has shape ``(..., n, k)``; the result ``(..., P, k, n)`` (class-major,
    so that every reduction below is a matrix product or a sum of k rows).
    """
    L = np.swapaxes(logp, -1, -2)  # (..., k, n)
    k = L.shape[-2]
    eye = np.eye(k)[:, :, None]
    rows = [L * eye[j] for j in range(k)] if kind == "vs" else [L]
    if kind != "ts":
        rows += [np.broadcast_to(eye[j], L.shape) for j in range(1, k)]
    return np.stack(rows, axis=-3)


def _scaling_objective(params: np.ndarray, design: np.ndarray, onehot: np.ndarray):
    """Mean NLL of the scaled softmax, its gradient and Hessian, batched over leading axes.

    ``design`` has shape ``(..., P, k, n)`` (:func:`_scaling_design`),
    ``onehot`` ``(..., k, n)`` and ``params`` ``(..., P)``; the objective is a
    convex multinomial logit.
    """
    n_par, k, n = design.shape[-3:]
    flat = design.reshape(design.shape[:-2] + (k * n,))
    logits = (params[..., None, :] @ flat)[..., 0, :].reshape(onehot.shape)
    shifted = logits - logits.max(axis=-2, keepdims=True)
    logq = shifted - np.log(np.sum(np.exp(shifted), axis=-2, keepdims=True))
    s = np.exp(logq)
    nll = -np.sum(onehot * logq, axis=(-2, -1)) / n
    resid = (s - onehot).reshape(onehot.shape[:-2] + (k * n, 1))
    grad = (flat @ resid)[..., 0] / n
    s_flat = s.reshape(onehot.shape[:-2] + (1, k * n))
    sj = np.sum(design * s[..., None, :, :], axis=-2)  # (..., P, n)
    hess = ((flat * s_flat) @ np.swapaxes(flat, -1, -2) - sj @ np.swapaxes(sj, -1, -2)) / n
    return nll, grad, hess


def _scaling_nll_only(params: np.ndarray, design: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """The mean NLL alone (for the line search of :func:`_fit_scaling_batch`)."""
    n_par, k, n = design.shape[-3:]
    flat = design.reshape(design.shape[:-2] + (k * n,))
    logits = (params[..., None, :] @ flat)[..., 0, :].reshape(onehot.shape)
    shifted = logits - logits.max(axis=-2, keepdims=True)
    logq = shifted - np.log(np.sum(np.exp(shifted), axis=-2, keepdims=True))
    return -np.sum(onehot * logq, axis=(-2, -1)) / n


def _fit_scaling_batch(logp: np.ndarray, onehot: np.ndarray, kind: str, gtol: float, max_iter: int = 100):
    """Newton's method with backtracking for the scaling NLL, vectorised over leading (repetition) axes.

    Returns the free parameters ``(..., P)``, the NLL and the largest final
    gradient entry of every repetition.
    """
    k = logp.shape[-1]
    design = _scaling_design(logp, kind)
    onehot = np.swapaxes(onehot, -1, -2)
    n_par = design.shape[-3]
    batch = logp.shape[:-2]
    params = np.zeros(batch + (n_par,))
    params[..., : (k if kind == "vs" else 1)] = 1.0
    nll, grad, hess = _scaling_objective(params, design, onehot)
    for _ in range(max_iter):
        if np.max(np.abs(grad)) <= gtol:
            break
        hess_reg = hess + 1e-12 * np.eye(n_par)
        step = np.linalg.solve(hess_reg, grad[..., None])[..., 0]
        slope = np.sum(grad * step, axis=-1)
        t = np.ones(batch)
        # Backtracking (Armijo) per repetition; once the predicted decrease is at the rounding level
        # of the objective, the full Newton step is taken (there the quadratic model is exact).
        near = slope <= 1e-12 * (1.0 + np.abs(nll))
        for _ in range(60):
            trial = params - t[..., None] * step
            nll_trial = _scaling_nll_only(trial, design, onehot)
            bad = (nll_trial > nll - 1e-4 * t * slope) & ~near
            if not np.any(bad):
                break
            t = np.where(bad, t / 2.0, t)
        params = params - t[..., None] * step
        nll, grad, hess = _scaling_objective(params, design, onehot)
    return params, nll, np.max(np.abs(grad), axis=-1)


def fit_scaling(probs, y, kind: str = "bcts", *, classes=None, gtol: float = 1e-10) -> ScalingCalibrator:
    r"""Fit temperature (``"ts"``), bias-corrected temperature (``"bcts"``) or vector (``"vs"``) scaling by maximum likelihood.

    Minimises the mean negative log-likelihood
    :math:`-\frac1n\sum_i \log \mathrm{softmax}(a\odot\log z_i + b)_{y_i}`
    over :math:`(a, b)` with :math:`b_0 = 0` (the softmax ignores a common
    shift of :math:`b`).  The objective is convex (a multinomial logistic
    regression on the features :math:`\log z_{iy}`); it is minimised by
    Newton's method with a backtracking line search and the exact Hessian,
    from :math:`a = 1`, :math:`b = 0`.  Book: ``def-lsw-scaling``.

    At the optimum of ``bcts`` and ``vs`` the gradient in :math:`b` vanishes,
    so the calibrated posteriors average exactly to the label frequencies of
    the fitting sample; this is why, after such a calibration, using the
    label frequencies or the mean calibrated posterior as the source prior of
    MLLS gives the same result.

    Parameters
    ----------
    probs : array_like, shape (n, k)
        Rows of the simplex with every entry positive (their logarithms are the features).
    y : array_like, shape (n,)
        Labels.
    kind : {"ts", "bcts", "vs"}
    classes : sequence, optional
        Labels of the columns (see :func:`encode_labels`).
    gtol : float
        Largest accepted entry of the final gradient, in (0, 1); a larger one raises
        :class:`ConvergenceError`.  When the scores separate the classes
        perfectly no finite minimiser exists; a mean NLL below 1e-8 is taken
        as that case and also raises :class:`ConvergenceError`.
    """
    kind = check_option(kind, "kind", _SCALINGS)
    gtol = check_tolerance(gtol, "gtol")
    p = as_simplex_rows(probs, "probs")
    if np.any(p <= 0.0):
        raise ValueError("probs must be strictly positive for scaling (the calibrators act on log-probabilities)")
    codes, classes = encode_labels(y, "y", p.shape[1], classes)
    _check_rows(p, codes, "probs", "y")
    k = p.shape[1]
    params, nll, grad_max = _fit_scaling_batch(np.log(p), np.eye(k)[codes], kind, gtol)
    nll, grad_max = float(nll), float(grad_max)
    if nll < 1e-8:
        raise ConvergenceError(
            f"{kind} calibration has no finite minimiser: the scores separate the classes perfectly "
            f"(the likelihood tends to 1; mean NLL {nll:.1e} at slope {np.round(params[:k], 3).tolist()})"
        )
    if not np.all(np.isfinite(params)) or grad_max > gtol:
        raise ConvergenceError(
            f"{kind} calibration did not converge: largest gradient entry {grad_max:.3g} > gtol = {gtol:g}"
        )
    slope, bias = _unpack_scaling(params, k, kind)
    return ScalingCalibrator(kind, slope.copy(), bias.copy(), nll)


# ---------------------------------------------------------------------------
# BBSE (paper 001 Appendix A)
# ---------------------------------------------------------------------------


class BBSEResult(NamedTuple):
    r"""Output of :func:`bbse` (book: ``def-lsw-bbse``).

    ``weights`` (:math:`\hat w`, after the negative-weight policy),
    ``raw_weights`` (the solution of :math:`\hat C w = \hat\nu`),
    ``target_prior`` (:math:`\hat p\odot\hat w`), ``source_prior``
    (:math:`\hat p`, label frequencies), ``classes``, ``confusion``
    (:math:`\hat C_{ij}`, the joint frequency of prediction ``i`` and label
    ``j``), ``target_mean`` (:math:`\hat\nu_i`) and ``condition_number`` of
    :math:`\hat C` (2-norm).
    """

    weights: np.ndarray
    raw_weights: np.ndarray
    target_prior: np.ndarray
    source_prior: np.ndarray
    classes: np.ndarray
    confusion: np.ndarray
    target_mean: np.ndarray
    condition_number: float


_NEGATIVE_POLICIES = ("raise", "clip", "keep")


def _features(probs: np.ndarray, soft: bool) -> np.ndarray:
    """BBSE features: the probability rows (soft) or the one-hot argmax (hard), over the last axis."""
    if soft:
        return probs
    return (probs.argmax(axis=-1)[..., None] == np.arange(probs.shape[-1])).astype(float)


def _confusion(phi: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """Joint confusion matrix C_ij = mean(phi_i * 1{Y = j}), batched over leading axes."""
    return np.einsum("...ni,...nj->...ij", phi, onehot) / phi.shape[-2]


def _apply_negative_policy(w: np.ndarray, p_hat: np.ndarray, policy: str, classes: np.ndarray) -> np.ndarray:
    if not np.any(w < 0.0) or policy == "keep":
        return w
    if policy == "raise":
        negative = classes[w < 0.0].tolist()
        raise ValueError(
            f"the estimated weights are negative for classes {negative!r} (weights {np.round(w, 4).tolist()}); "
            "choose negative='clip' to set them to 0 and rescale, or negative='keep' to return them"
        )
    w = np.maximum(w, 0.0)
    mass = float(p_hat @ w)
    if mass <= 0.0:
        raise ValueError("every estimated weight is negative or zero: the clipped weights give no target prior")
    return w / mass


def _moment_system(probs_source, y_source, probs_target, soft: bool, classes):
    """The estimated moment system of BBSE and RLLS (``prop-lsw-moment``): source prior, classes, joint confusion, target feature means."""
    ps = as_simplex_rows(probs_source, "probs_source")
    pt = as_simplex_rows(probs_target, "probs_target")
    _check_same_classes(ps, pt, "probs_source", "probs_target")
    codes, classes = encode_labels(y_source, "y_source", ps.shape[1], classes)
    _check_rows(ps, codes, "probs_source", "y_source")
    p_hat = _class_frequencies(codes, classes, "y_source")
    confusion = _confusion(_features(ps, soft), np.eye(ps.shape[1])[codes])
    return p_hat, classes, confusion, _features(pt, soft).mean(axis=0)


def bbse(probs_source, y_source, probs_target, *, soft: bool = False, classes=None,
         negative: str = "raise", max_condition: float = 1e8) -> BBSEResult:
    r"""Black-box shift estimation: solve :math:`\hat C\,w = \hat\nu` (paper 001 App. A; book ``def-lsw-bbse``).

    With features :math:`\phi(x)` equal to the one-hot arg-max of the
    classifier (hard) or to its probability vector (``soft=True``),
    :math:`\hat C_{ij} = \frac1{n_P}\sum_s \phi_i(x_s)1\{y_s=j\}` on the
    labelled source sample and :math:`\hat\nu_i = \frac1{n_Q}\sum_t\phi_i(x'_t)`
    on the unlabelled target sample.  Under label shift
    :math:`\nu = C w^*` (book ``prop-lsw-moment``), and BBSE is its plug-in
    solution.  Since the columns of :math:`\hat C` sum to the source label
    frequencies :math:`\hat p` and :math:`\hat\nu` sums to 1, the raw
    solution always has :math:`\hat p^\top\hat w = 1`.

    Parameters
    ----------
    probs_source : array_like, shape (n_P, k)
        Classifier outputs on the labelled source sample.
    y_source : array_like, shape (n_P,)
        Source labels; every class must occur.
    probs_target : array_like, shape (n_Q, k)
        Classifier outputs on the unlabelled target sample.
    soft : bool
        BBSE-soft (probability vectors) instead of BBSE-hard (arg-max).
    classes : sequence, optional
        Labels of the columns (see :func:`encode_labels`).
    negative : {"raise", "clip", "keep"}
        Policy for negative solutions, which occur at small samples or when
        some target prior is near 0: ``"raise"`` a ``ValueError`` naming the
        classes; ``"clip"`` set them to 0 and rescale so that
        :math:`\hat p^\top\hat w = 1`; ``"keep"`` return the raw solution.
    max_condition : float
        Largest accepted condition number of :math:`\hat C` (identifiability,
        assumption (A2)); above it, or for a singular matrix, a ``ValueError``
        reports the condition number.
    """
    soft = check_bool(soft, "soft")
    negative = check_option(negative, "negative", _NEGATIVE_POLICIES)
    max_condition = check_positive(max_condition, "max_condition")
    p_hat, classes, confusion, nu = _moment_system(probs_source, y_source, probs_target, soft, classes)
    cond = float(np.linalg.cond(confusion))
    if not np.isfinite(cond) or cond > max_condition:
        raise ValueError(
            f"the estimated confusion matrix is singular or near-singular (condition number {cond:.3g} > "
            f"max_condition = {max_condition:g}): the weights are not identifiable (assumption (A2)); "
            "a class may never be predicted, or the source sample is too small"
        )
    raw = np.linalg.solve(confusion, nu)
    w = _apply_negative_policy(raw, p_hat, negative, classes)
    return BBSEResult(w, raw, p_hat * w, p_hat, classes, confusion, nu, cond)


# ---------------------------------------------------------------------------
# MLLS: the EM of Saerens et al., optionally after calibration
# ---------------------------------------------------------------------------


class MLLSResult(NamedTuple):
    r"""Output of :func:`mlls` (book: ``def-lsw-mlls``).

    ``weights`` (:math:`\hat q/\hat p`), ``target_prior`` (:math:`\hat q`, the
    EM limit), ``source_prior`` (:math:`\hat p`, label frequencies),
    ``classes``, ``n_iter`` (EM iterations until the largest change of
    :math:`\hat q` fell below ``tol``), ``log_likelihood`` (final mean
    log-likelihood per target point, eq. ``eq-lsw-likelihood``),
    ``log_likelihood_trace`` (its value at every iterate, starting at
    :math:`\hat q = \hat p`) and ``calibrator`` (the fitted
    :class:`ScalingCalibrator`, or ``None``).
    """

    weights: np.ndarray
    target_prior: np.ndarray
    source_prior: np.ndarray
    classes: np.ndarray
    n_iter: int
    log_likelihood: float
    log_likelihood_trace: np.ndarray
    calibrator: ScalingCalibrator | None


def _mixture(eta_t: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """sum_y ratio_y eta_iy for every sample i; ``eta_t`` is class-major ``(..., k, n)``."""
    return (ratio[..., None, :] @ eta_t)[..., 0, :]


def _mean_loglik(eta_t: np.ndarray, ratio: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """Mean over the samples of log sum_y ratio_y eta_iy (batched), counts-weighted if given."""
    with np.errstate(divide="ignore"):
        logs = np.log(_mixture(eta_t, ratio))
    if counts is None:
        return logs.mean(axis=-1)
    return np.sum(counts * np.where(counts > 0, logs, 0.0), axis=-1) / counts.sum(axis=-1)


def _em(eta: np.ndarray, source_prior: np.ndarray, *, counts: np.ndarray | None = None, tol: float = 1e-10,
        max_iter: int = 10_000, trace: bool = False):
    r"""The EM of MLLS, vectorised over leading (repetition) axes.

    ``eta`` has shape ``(..., n, k)`` (posteriors calibrated for the source
    prior), ``source_prior`` shape ``(..., k)``, optional ``counts`` shape
    ``(..., n)`` (multiplicities of the rows, for grouped data).  Iterates
    :math:`q_y \leftarrow \frac1n\sum_i r_{iy}(q)` with
    :math:`r_{iy}(q) = (q_y/p_y)\eta_{iy}/\sum_j (q_j/p_j)\eta_{ij}`,
    starting at :math:`q = p`, until :math:`\max_y |\Delta q_y| \le` ``tol``
    in every repetition; converged repetitions are frozen.  Each step is two
    matrix-vector products per repetition.  Returns ``(q, n_iter, loglik)``
    and, with ``trace``, the list of log-likelihoods of all iterates.
    """
    eta_t = np.ascontiguousarray(np.swapaxes(np.asarray(eta, dtype=float), -1, -2))  # (..., k, n)
    batch, k = eta_t.shape[:-2], eta_t.shape[-2]
    p = np.broadcast_to(np.asarray(source_prior, dtype=float), batch + (k,))
    c = None if counts is None else np.asarray(counts, dtype=float)
    total = (eta_t.shape[-1] if c is None else c.sum(axis=-1)[..., None])
    q = p.copy()
    n_iter = np.zeros(batch, dtype=np.int64)
    active = np.ones(batch, dtype=bool)
    history = [_mean_loglik(eta_t, q / p, c)] if trace else None
    for it in range(1, max_iter + 1):
        ratio = q / p
        mix = _mixture(eta_t, ratio)
        weight = 1.0 / mix if c is None else np.divide(c, mix, out=np.zeros_like(mix), where=c > 0)
        q_new = ratio * (eta_t @ weight[..., None])[..., 0] / total
        change = np.max(np.abs(q_new - q), axis=-1)
        q = np.where(active[..., None], q_new, q)
        n_iter = np.where(active, it, n_iter)
        active = active & (change > tol)
        if trace:
            history.append(_mean_loglik(eta_t, q / p, c))
        if not np.any(active):
            break
    else:
        raise ConvergenceError(
            f"MLLS EM did not converge in max_iter = {max_iter} iterations (largest change of the target "
            f"prior in the last step {float(np.max(change)):.3g} > tol = {tol:g}); the maximum may lie on the "
            "boundary of the simplex, where EM is slow: raise max_iter or tol"
        )
    loglik = _mean_loglik(eta_t, q / p, c)
    return (q, n_iter, loglik, history) if trace else (q, n_iter, loglik)


def _as_prior(prior, name: str, k: int, *, positive: bool) -> np.ndarray:
    """A class prior on ``k`` classes: a point of the simplex (sum 1 within :data:`SIMPLEX_ATOL`), positive if asked."""
    v = as_real_array(prior, name)
    if v.size != k:
        raise ValueError(f"{name} must hold one probability per class ({k}), got {v.size}")
    if np.any(v <= 0.0) if positive else np.any(v < 0.0):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'} for every class")
    if abs(float(v.sum()) - 1.0) > SIMPLEX_ATOL:
        raise ValueError(f"{name} must sum to 1 (a point of the simplex), got sum {float(v.sum())!r}")
    return v


def mlls_log_likelihood(target_prior, probs_target, source_prior) -> float:
    r"""Mean MLLS log-likelihood :math:`\frac1n\sum_i\log\sum_y (q_y/p_y)\,\eta_{iy}` (book ``eq-lsw-likelihood``).

    Up to a term free of :math:`q`, this is the mean log-density of the target
    sample under the label-shifted model with target prior ``target_prior``.
    Both priors must be points of the simplex (rows summing to 1 within
    :data:`SIMPLEX_ATOL`), ``source_prior`` with every entry positive.
    """
    eta = as_simplex_rows(probs_target, "probs_target")
    q = _as_prior(target_prior, "target_prior", eta.shape[1], positive=False)
    p = _as_prior(source_prior, "source_prior", eta.shape[1], positive=True)
    return float(_mean_loglik(np.ascontiguousarray(eta.T), q / p, None))


def mlls(probs_source, y_source, probs_target, *, calibration: str | None = None, classes=None,
         tol: float = 1e-10, max_iter: int = 10_000) -> MLLSResult:
    r"""Maximum-likelihood label shift: the EM of Saerens et al., optionally after calibration (book ``def-lsw-mlls``).

    1. Source prior :math:`\hat p` = label frequencies of the labelled source sample.
    2. With ``calibration`` (``"ts"``, ``"bcts"`` or ``"vs"``), fit that
       scaling by maximum likelihood on the labelled source sample
       (:func:`fit_scaling`) and apply it to the source and the target outputs.
    3. Maximise the mean log-likelihood
       :math:`\ell(q) = \frac1{n_Q}\sum_i\log\sum_y (q_y/\hat p_y)\eta_{iy}`
       over the simplex by EM from :math:`q = \hat p`:
       :math:`q_y \leftarrow \frac1{n_Q}\sum_i r_{iy}(q)`,
       :math:`r_{iy}(q) = (q_y/\hat p_y)\eta_{iy}/\sum_j(q_j/\hat p_j)\eta_{ij}`.
       Each step increases :math:`\ell` (book ``prop-lsw-em``); the loop
       stops when no coordinate of :math:`q` moves by more than ``tol``.

    Raises :class:`ConvergenceError` (a ``ValueError``) after ``max_iter``
    iterations without convergence.
    """
    tol = check_tolerance(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    if calibration is not None:
        calibration = check_option(calibration, "calibration", _SCALINGS)
    ps = as_simplex_rows(probs_source, "probs_source")
    pt = as_simplex_rows(probs_target, "probs_target")
    _check_same_classes(ps, pt, "probs_source", "probs_target")
    codes, classes = encode_labels(y_source, "y_source", ps.shape[1], classes)
    _check_rows(ps, codes, "probs_source", "y_source")
    p_hat = _class_frequencies(codes, classes, "y_source")
    calibrator = None
    if calibration is not None:
        calibrator = fit_scaling(ps, codes, calibration, classes=np.arange(ps.shape[1]))
        pt = calibrator.transform(pt)
    q, n_iter, loglik, history = _em(pt, p_hat, tol=tol, max_iter=max_iter, trace=True)
    return MLLSResult(q / p_hat, q, p_hat, classes, int(n_iter), float(loglik), np.array(history), calibrator)


# ---------------------------------------------------------------------------
# RLLS (Azizzadenesheli et al. 2019)
# ---------------------------------------------------------------------------


class RLLSResult(NamedTuple):
    r"""Output of :func:`rlls` (book: ``def-lsw-rlls``): ``weights`` :math:`1 + \hat\theta`,
    ``target_prior`` :math:`\hat p\odot\hat w`, ``source_prior``, ``classes``,
    ``confusion`` :math:`\hat C`, ``theta`` :math:`\hat\theta`,
    ``regularization`` :math:`\lambda` and ``objective`` (the minimum)."""

    weights: np.ndarray
    target_prior: np.ndarray
    source_prior: np.ndarray
    classes: np.ndarray
    confusion: np.ndarray
    theta: np.ndarray
    regularization: float
    objective: float


def _rlls_without_bounds(A: np.ndarray, b: np.ndarray, lam: float) -> np.ndarray:
    r"""Exact minimiser of :math:`\|Az - b\|_2 + \lambda\|z\|_2` for ``A`` of full column rank and ``b`` in its range.

    With the thin SVD :math:`A = USV^\top` and :math:`c = U^\top b`, the
    optimality conditions of this convex problem give three cases:
    :math:`z = 0` when :math:`\|Sc\|_2 \le \lambda\|c\|_2`
    (:math:`= \|A^\top b\|_2 \le \lambda\|b\|_2`); the exact solution
    :math:`z_0 = VS^{-1}c` of :math:`Az = b` when
    :math:`\lambda\|S^{-2}c\|_2 \le \|S^{-1}c\|_2` (the residual norm is
    not differentiable there); otherwise the point
    :math:`z(t) = VS(S^2 + tI)^{-1}c` of the ridge path with
    :math:`\|S(S^2+tI)^{-1}c\|_2 = \lambda\|(S^2+tI)^{-1}c\|_2`, found by
    Brent's method in :math:`\log t`.  Working with :math:`c` avoids the
    cancellation in :math:`Az(t) - b`.
    """
    u, sv, vt = np.linalg.svd(A, full_matrices=False)
    c = u.T @ b
    if not np.any(c) or np.linalg.norm(sv * c) <= lam * np.linalg.norm(c):
        return np.zeros(A.shape[1])
    if lam * np.linalg.norm(c / sv**2) <= np.linalg.norm(c / sv):
        return vt.T @ (c / sv)

    def gap(log_t):
        d = c / (sv**2 + np.exp(log_t))
        return np.linalg.norm(sv * d) - lam * np.linalg.norm(d)

    lo, hi = np.log(sv.min() ** 2) - 30.0, np.log(sv.max() ** 2) + 30.0
    if gap(lo) >= 0.0:  # at the threshold within rounding: the exact solution
        return vt.T @ (c / sv)
    if gap(hi) <= 0.0:
        return np.zeros(A.shape[1])
    t = np.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500))
    return vt.T @ (sv * c / (sv**2 + t))


def _rlls_solve(confusion: np.ndarray, b: np.ndarray, p_hat: np.ndarray, lam: float, upper: float, tol: float):
    r"""Minimise :math:`\|C\theta - b\|_2 + \lambda\|\theta\|_2` over :math:`-1 \le \theta \le` ``upper``, :math:`\hat p^\top\theta = 0`.

    On the hyperplane :math:`\theta = Nz` (:math:`N` an orthonormal basis of
    :math:`\hat p^\perp`) the problem without the bounds is solved exactly by
    :func:`_rlls_without_bounds` (``b`` lies in the range of :math:`CN`,
    because :math:`\mathbf 1^\top C = \hat p^\top` and :math:`\mathbf 1^\top b = 0`).
    If that solution violates a bound, SLSQP solves the bounded problem
    from the clipped point, with the norms evaluated as
    :math:`\sqrt{s^2 + \epsilon^2}`, :math:`\epsilon = 10^{-12}` (this moves
    the minimum value by at most :math:`(1+\lambda)\epsilon`).
    """
    eps2 = 1e-24
    k = b.size
    basis = null_space(p_hat[None, :])

    def objective(theta):
        return float(np.linalg.norm(confusion @ theta - b) + lam * np.linalg.norm(theta))

    theta = basis @ _rlls_without_bounds(confusion @ basis, b, lam)
    if np.all(theta >= -1.0) and np.all(theta <= upper):
        return theta, objective(theta)

    def fun(t):
        r = confusion @ t - b
        nr, nt = np.sqrt(r @ r + eps2), np.sqrt(t @ t + eps2)
        return nr + lam * nt, confusion.T @ r / nr + lam * t / nt

    start = np.clip(theta, -1.0, min(upper, 1e6))
    cons = [{"type": "eq", "fun": lambda t: p_hat @ t, "jac": lambda t: p_hat}]
    res = minimize(fun, start, jac=True, method="SLSQP", bounds=[(-1.0, upper)] * k, constraints=cons,
                   options={"maxiter": 1000, "ftol": tol})
    if not res.success:
        raise ConvergenceError(f"the RLLS solver did not converge: {res.message}")
    theta = np.clip(res.x, -1.0, upper)  # SLSQP may overshoot a bound by rounding (order 1e-16)
    return theta, objective(theta)


def rlls(probs_source, y_source, probs_target, regularization: float, *, soft: bool = False, classes=None,
         max_weight: float | None = None, tol: float = 1e-14) -> RLLSResult:
    r"""Regularised learning under label shift (Azizzadenesheli et al. 2019; book ``def-lsw-rlls``).

    With :math:`\hat C` and :math:`\hat\nu` as in :func:`bbse` and
    :math:`\hat b = \hat\nu - \hat C\mathbf 1` (target minus source mean of
    the features), solve

    .. math:: \hat\theta = \arg\min_{\theta}\ \|\hat C\theta - \hat b\|_2 + \lambda\|\theta\|_2
              \quad\text{s.t.}\quad -1 \le \theta_y \le w_{\max} - 1,\ \ \hat p^\top\theta = 0,

    and return :math:`\hat w = 1 + \hat\theta`.  The norms are not squared,
    as in the paper.  Because :math:`\hat C\theta = \hat b` has an exact
    solution (BBSE), the residual norm has a kink there: for
    :math:`\lambda` below a threshold of the order of the smallest singular
    value of :math:`\hat C`, RLLS returns BBSE exactly (when it is feasible);
    above it the weights shrink towards :math:`\mathbf 1` (no shift), which
    they reach for :math:`\lambda \ge \|\hat C_N^\top\hat b\|_2/\|\hat b\|_2`.
    The problem without the bounds is solved exactly (see
    :func:`_rlls_without_bounds`), with the bounds by SLSQP.  The equality constraint makes the
    implied target prior :math:`\hat p\odot\hat w` sum to 1 (the authors'
    code imposes only :math:`\theta \ge -1` and renormalises afterwards).

    Parameters
    ----------
    regularization : float
        :math:`\lambda \ge 0`.  The paper takes it of order
        :math:`\sqrt{\log(k/\delta)/n_P}`; the caller chooses.
    max_weight : float, optional
        Upper bound :math:`w_{\max}` on every weight (default none).  The
        feasible set is empty when :math:`w_{\max} < 1`, since
        :math:`\hat p^\top w \le w_{\max}`; that raises ``ValueError``.
    tol : float
        Tolerance ``ftol`` of SLSQP when a bound is active, in (0, 1).
    """
    regularization = check_real(regularization, "regularization", minimum=0.0)
    soft = check_bool(soft, "soft")
    tol = check_tolerance(tol, "tol")
    upper = np.inf if max_weight is None else check_positive(max_weight, "max_weight")
    if upper < 1.0:
        raise ValueError(
            f"max_weight must be at least 1: no weights w with 0 <= w <= max_weight = {upper:g} satisfy "
            "p_hat^T w = 1, so the RLLS problem is infeasible"
        )
    p_hat, classes, confusion, nu = _moment_system(probs_source, y_source, probs_target, soft, classes)
    b = nu - confusion.sum(axis=1)
    theta, obj = _rlls_solve(confusion, b, p_hat, regularization, upper - 1.0, tol)
    w = 1.0 + theta
    return RLLSResult(w, p_hat * w, p_hat, classes, confusion, theta, regularization, obj)


# ---------------------------------------------------------------------------
# Scenarios with exact posteriors (paper 001, sections 2.2 and 3.2)
# ---------------------------------------------------------------------------


#: Largest Gauss-Hermite order of :meth:`GaussianLabelShift.confusion_matrix` and its node budget.
_MAX_HERMITE_ORDER = 1000
_MAX_QUADRATURE_NODES = 10**7
#: Largest number of points :meth:`GaussianLabelShift.sample` draws in one call.
_MAX_POINTS = 10**8


@dataclass(frozen=True)
class GaussianLabelShift:
    r"""Gaussian classes with a shared covariance under a source and a target prior (paper 001 s2.2, s3.2).

    :math:`X \mid Y=y \sim N(\mu_y, \Sigma)` in both domains;
    :math:`P[Y=y] = p_y`, :math:`Q[Y=y] = q_y`.  Classes are ``0, ..., k-1``.
    The posteriors are exact (Bayes' rule in log space):
    :math:`\eta^D_y(x) \propto d_y\,\varphi(x;\mu_y,\Sigma)` with :math:`d = p`
    or :math:`q`.  With a shared covariance every log-ratio
    :math:`\log(\eta_y/\eta_j)` is affine in :math:`x`, which makes the
    quantities of the binning chapter (``chap-binning-label-shift``)
    computable in closed form: see :meth:`projection_probabilities`,
    :meth:`log_ratio_map` and :meth:`confusion_matrix`.
    """

    means: tuple
    covariance: tuple
    source_prior: tuple
    target_prior: tuple

    def __post_init__(self):
        m = as_real_array(self.means, "means", ndim=2)
        s = as_real_array(self.covariance, "covariance", ndim=2)
        if s.shape != (m.shape[1], m.shape[1]):
            raise ValueError(f"covariance must be {m.shape[1]} x {m.shape[1]} to match the means, got {s.shape}")
        if not np.allclose(s, s.T) or np.any(np.linalg.eigvalsh(s) <= 0):
            raise ValueError("covariance must be symmetric positive definite")
        for name in ("source_prior", "target_prior"):
            v = as_real_array(getattr(self, name), name)
            if v.size != m.shape[0]:
                raise ValueError(f"{name} must hold one probability per class ({m.shape[0]}), got {v.size}")
            if np.any(v <= 0) or abs(v.sum() - 1.0) > 1e-12:
                raise ValueError(f"{name} must be positive and sum to 1")

    # -- parameters as arrays ------------------------------------------------
    @cached_property
    def _m(self) -> np.ndarray:
        return np.asarray(self.means, dtype=float)

    @cached_property
    def _cov(self) -> np.ndarray:
        return np.asarray(self.covariance, dtype=float)

    @cached_property
    def _chol(self) -> np.ndarray:
        return np.linalg.cholesky(self._cov)

    @cached_property
    def _precision(self) -> np.ndarray:
        return np.linalg.inv(self._cov)

    @property
    def n_classes(self) -> int:
        return self._m.shape[0]

    @property
    def dim(self) -> int:
        return self._m.shape[1]

    def prior(self, domain: str = "source") -> np.ndarray:
        """The class prior :math:`p` (``"source"``) or :math:`q` (``"target"``)."""
        if domain == "source":
            return np.asarray(self.source_prior, dtype=float)
        if domain == "target":
            return np.asarray(self.target_prior, dtype=float)
        raise ValueError(f"domain must be 'source' or 'target', got {domain!r}")

    @property
    def weights(self) -> np.ndarray:
        """True importance weights :math:`w^*_y = q_y / p_y`."""
        return self.prior("target") / self.prior("source")

    # -- sampling --------------------------------------------------------------
    def sample(self, n, rng, domain: str = "source", *, size=()) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``n`` IID pairs from the source or the target; return ``x`` (``size + (n, d)``) and ``y``.

        ``size`` adds leading axes (independent repetitions), e.g. ``size=(R,)``:
        an integer or a sequence of positive integers.  At most
        :math:`10^8` points are drawn in one call (memory bound).
        """
        n = check_int(n, "n", maximum=_MAX_POINTS)
        rng = as_rng(rng)
        prior = self.prior(domain)
        if isinstance(size, tuple) and not size:
            shape = ()
        elif isinstance(size, (str, bytes)) or np.ndim(size) > 1:
            raise ValueError(f"size must be an integer or a sequence of integers, got {size!r}")
        else:
            shape = tuple(check_int(v, "size entries", maximum=_MAX_POINTS) for v in np.atleast_1d(np.asarray(size, dtype=object)))
        if n * int(np.prod(shape, dtype=object)) > _MAX_POINTS:
            raise ValueError(f"n times the product of size must be at most {_MAX_POINTS} points, got {n} and size {shape}")
        u = rng.random(shape + (n,))
        y = np.searchsorted(np.cumsum(prior)[:-1], u, side="right")
        z = rng.standard_normal(shape + (n, self.dim))
        return self._m[y] + z @ self._chol.T, y

    # -- exact posteriors -------------------------------------------------------
    def log_class_densities(self, x) -> np.ndarray:
        r"""Log densities :math:`\log\varphi(x;\mu_y,\Sigma)`, shape ``x.shape[:-1] + (k,)``.

        Expanded as :math:`\mu_y^\top\Sigma^{-1}x - \tfrac12\mu_y^\top\Sigma^{-1}\mu_y - \tfrac12 x^\top\Sigma^{-1}x`
        plus the normalising constant (the covariance is shared).
        """
        x = _as_points(x, "x")
        if x.shape[-1] != self.dim:
            raise ValueError(f"x must have {self.dim} coordinates in its last axis, got shape {x.shape}")
        lin = self._m @ self._precision  # (k, d)
        white = x @ np.linalg.inv(self._chol).T  # L^{-1} x, so |white|^2 = x^T Sigma^{-1} x
        quad = np.sum(white * white, axis=-1, keepdims=True)
        logdet = 2.0 * np.sum(np.log(np.diag(self._chol)))
        const = -0.5 * (np.einsum("kd,kd->k", lin, self._m) + logdet + self.dim * np.log(2.0 * np.pi))
        return x @ lin.T - 0.5 * quad + const

    def posterior(self, x, domain: str = "source") -> np.ndarray:
        r"""Exact posterior :math:`\eta^D(x)` (rows of the simplex) under the source or the target prior."""
        return _softmax(self.log_class_densities(x) + np.log(self.prior(domain)))

    def log_ratio_map(self, contrasts) -> tuple[np.ndarray, np.ndarray]:
        r"""Affine map :math:`x \mapsto Gx + g` equal to ``contrasts @ log eta^P(x)``.

        Each row of ``contrasts`` (shape ``(r, k)``) must sum to 0, so the
        normaliser of the posterior cancels and the quadratic terms of the
        log-densities too (shared covariance).  Returns ``(G, g)``.
        """
        c = as_real_array(contrasts, "contrasts", ndim=2)
        if c.shape[1] != self.n_classes or np.any(np.abs(c.sum(axis=1)) > 1e-12):
            raise ValueError(f"contrasts must have {self.n_classes} columns and rows summing to 0")
        lin = self._m @ self._precision  # (k, d): mu_y^T Sigma^-1
        const = -0.5 * np.einsum("kd,kd->k", lin, self._m) + np.log(self.prior("source"))
        return c @ lin, c @ const

    def projection_probabilities(self, direction, offset, edges) -> np.ndarray:
        r"""Exact :math:`P[a^\top X + c \in (e_{j-1}, e_j] \mid Y = y]`, shape ``(k, len(edges) - 1)``.

        ``direction`` :math:`a` has ``dim`` coordinates (not all zero),
        ``offset`` :math:`c` is a finite number, ``edges`` are sorted and may
        start at ``-inf`` and end at ``+inf``.  Since
        :math:`a^\top X \mid Y=y \sim N(a^\top\mu_y, a^\top\Sigma a)`, these are
        normal distribution-function differences.
        """
        return self._projection_probabilities(direction, offset, edges, "direction", "offset", "edges")

    def _projection_probabilities(self, direction, offset, edges, name_a: str, name_c: str, name_e: str) -> np.ndarray:
        a = as_real_array(direction, name_a)
        if a.size != self.dim:
            raise ValueError(f"{name_a} must hold {self.dim} coordinates, got {a.size}")
        offset = check_real(offset, name_c)
        e = _as_cut_points(edges, name_e)
        sd = float(np.sqrt(a @ self._cov @ a))
        if not sd > 0.0:
            raise ValueError(f"{name_a} must not be zero (a^T Sigma a = 0)")
        mean = self._m @ a + offset
        cdf = ndtr((e[None, :] - mean[:, None]) / sd)
        return np.diff(cdf, axis=1)

    def grid_cell_probabilities(self, contrasts, edges) -> np.ndarray:
        r"""Exact :math:`P[u(X) \in \text{cell} \mid Y = y]` for a grid in log-ratio coordinates :math:`u = A\log\eta^P`.

        The cells are those of
        :class:`companion.multiclass_binning.LogRatioGridPartition` with the
        same ``contrasts`` and ``edges`` (C order).  Given :math:`Y=y`,
        :math:`u = GX + g` is normal with covariance :math:`G\Sigma G^\top`;
        this must be diagonal (one or two coordinates chosen orthogonal in
        the metric of :math:`\Sigma`), so a cell's probability is a product
        of normal distribution-function differences.  Returns shape
        ``(k, n_cells)``.
        """
        G, g = self.log_ratio_map(contrasts)
        edges = _as_cut_point_list(edges, "edges", G.shape[0])
        cov = G @ self._cov @ G.T
        off = cov - np.diag(np.diag(cov))
        if np.max(np.abs(off)) > 1e-10 * np.max(np.abs(cov)):
            raise ValueError("the log-ratio coordinates must be uncorrelated given the class (G Sigma G^T diagonal)")
        probs = np.ones((self.n_classes, 1))
        for r in range(G.shape[0]):
            marginal = self._projection_probabilities(G[r], g[r], edges[r], f"contrasts[{r}]", f"contrasts[{r}]",
                                                      f"edges[{r}]")  # (k, cells along axis r)
            probs = (probs[:, :, None] * marginal[:, None, :]).reshape(self.n_classes, -1)
        return probs

    def confusion_matrix(self, kind: str = "soft", *, order: int = 64) -> np.ndarray:
        r"""Exact joint confusion matrix :math:`C_{ij} = E_P[\phi_i(X)1\{Y=j\}]` of the Bayes source posterior.

        ``kind="soft"``: :math:`\phi = \eta^P`; the class-conditional
        expectations are computed by a tensor Gauss-Hermite rule of ``order``
        nodes per axis (the integrand is smooth).  ``kind="hard"``:
        :math:`\phi` is the one-hot arg-max of :math:`\eta^P`; the region where
        class ``i`` wins is an intersection of half-spaces, and its
        probability is a normal distribution function (``k = 2``) or a
        bivariate normal orthant probability written as a one-dimensional
        integral (``k = 3``).  ``order`` is an integer in [1, 1000] with
        ``order ** dim`` at most :math:`10^7` nodes.
        """
        kind = check_option(kind, "kind", ("soft", "hard"))
        order = check_int(order, "order", maximum=_MAX_HERMITE_ORDER)
        if order**self.dim > _MAX_QUADRATURE_NODES:
            raise ValueError(f"order must satisfy order ** dim <= {_MAX_QUADRATURE_NODES} (quadrature nodes), got "
                             f"{order} ** {self.dim}")
        k = self.n_classes
        p = self.prior("source")
        if kind == "soft":
            t, wgt = np.polynomial.hermite_e.hermegauss(order)
            wgt = wgt / np.sqrt(2.0 * np.pi)
            grids = np.meshgrid(*([t] * self.dim), indexing="ij")
            nodes = np.stack([g.ravel() for g in grids], axis=1)
            weights = np.prod(np.meshgrid(*([wgt] * self.dim), indexing="ij"), axis=0).ravel()
            cond = np.empty((k, k))
            for j in range(k):  # k classes: E[eta^P(X) | Y = j]
                x = self._m[j] + nodes @ self._chol.T
                cond[:, j] = weights @ self.posterior(x, "source")
            return cond * p[None, :]
        if k > 3:
            raise ValueError("the exact hard confusion matrix is implemented for k <= 3 classes")
        cond = np.empty((k, k))
        for i in range(k):
            others = [j for j in range(k) if j != i]
            contrasts = np.zeros((len(others), k))
            for r, j in enumerate(others):
                contrasts[r, i], contrasts[r, j] = 1.0, -1.0
            G, g = self.log_ratio_map(contrasts)  # class i wins iff G x + g >= 0
            for j in range(k):
                mean = G @ self._m[j] + g
                cov = G @ self._cov @ G.T
                cond[i, j] = _orthant_probability(mean, cov)
        return cond * p[None, :]


def _as_points(x, name: str) -> np.ndarray:
    """``x`` as a non-empty, finite float array of at least one dimension (points along the last axis)."""
    try:
        nd = np.ndim(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if nd < 1 or x is None:
        raise ValueError(f"{name} must be an array of points (coordinates in its last axis), got {x!r}")
    return as_real_array(x, name, ndim=nd)


def _as_cut_points(edges, name: str, *, strict: bool = False) -> np.ndarray:
    """Sorted cut points of a real line: a 1-D real array of at least two entries, no NaN.

    The first entry may be ``-inf`` and the last ``+inf`` (open end bins); every
    other entry is finite.  ``strict``: strictly increasing.
    """
    try:
        raw = np.asarray(edges)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of cut points ({exc})") from None
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a 1-D array of real cut points, got {raw.dtype} entries")
    e = raw.astype(float)
    if e.ndim != 1 or e.size < 2:
        raise ValueError(f"{name} must be a 1-D array with at least two cut points, got shape {e.shape}")
    if np.any(np.isnan(e)) or not np.all(np.isfinite(e[1:-1])) or e[0] == np.inf or e[-1] == -np.inf:
        raise ValueError(f"{name} must be finite except for a first entry -inf and a last entry +inf")
    gaps = np.diff(e)
    if np.any(gaps <= 0) if strict else np.any(gaps < 0):
        raise ValueError(f"{name} must be {'strictly increasing' if strict else 'sorted in non-decreasing order'}")
    return e


def _as_cut_point_list(edges, name: str, n_axes: int, *, strict: bool = False) -> list:
    """One array of cut points per axis (a list, tuple or 2-D array of ``n_axes`` rows)."""
    if isinstance(edges, (str, bytes, dict)) or not isinstance(edges, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a list holding one array of cut points per contrast ({n_axes}), got {type(edges).__name__}")
    if len(edges) != n_axes:
        raise ValueError(f"{name} must hold one array of cut points per contrast ({n_axes}), got {len(edges)}")
    return [_as_cut_points(e, f"{name}[{r}]", strict=strict) for r, e in enumerate(edges)]


def _orthant_probability(mean: np.ndarray, cov: np.ndarray) -> float:
    """P[U >= 0] for U ~ N(mean, cov) of dimension 1 or 2 (the latter as a 1-D integral)."""
    sd = np.sqrt(np.diag(cov))
    if mean.size == 1:
        return float(ndtr(mean[0] / sd[0]))
    rho = cov[0, 1] / (sd[0] * sd[1])
    s = np.sqrt(1.0 - rho**2)
    m0, m1 = mean[0] / sd[0], mean[1] / sd[1]
    # U0 = m0 + Z0 (standardised); U1 >= 0 given Z0 = z has probability Phi((m1 + rho z) / s)
    integrand = lambda z: np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * ndtr((m1 + rho * z) / s)  # noqa: E731
    value, _ = quad(integrand, -m0, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    return float(value)


def two_class_gaussian() -> GaussianLabelShift:
    r"""The binary example of paper 001, section 3.2.

    :math:`p = (1/2, 1/2)`, :math:`q = (0.2, 0.8)`, :math:`\mu_0 = (-1, 0)`,
    :math:`\mu_1 = (1, 0)`, :math:`\Sigma = [[0.75, 0.25], [0.25, 0.75]]`.
    """
    return GaussianLabelShift(((-1.0, 0.0), (1.0, 0.0)), ((0.75, 0.25), (0.25, 0.75)), (0.5, 0.5), (0.2, 0.8))


def three_class_gaussian() -> GaussianLabelShift:
    r"""The three-class example of paper 001, section 2.2 (its classes 1, 2, 3 are ``0, 1, 2`` here).

    :math:`p = (0.1, 0.6, 0.3)`, :math:`q = (0.3, 0.2, 0.5)`, means
    :math:`(-2, 0)`, :math:`(2, 0)`, :math:`(0, 2\sqrt3)`, :math:`\Sigma = 4I`.
    """
    return GaussianLabelShift(
        ((-2.0, 0.0), (2.0, 0.0), (0.0, 2.0 * np.sqrt(3.0))),
        ((4.0, 0.0), (0.0, 4.0)),
        (0.1, 0.6, 0.3),
        (0.3, 0.2, 0.5),
    )
