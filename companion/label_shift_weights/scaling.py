"""Temperature, bias-corrected temperature and vector scaling: the calibration MLLS needs (Alexandari et al.).

Fitted by Newton's method with the exact Hessian; book chapter
``chap-label-shift-weights``, section on calibration before MLLS.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._checks import ConvergenceError, as_real_array, check_option, check_tolerance
from .._numerics import _softmax
from .correction import _check_rows, as_simplex_rows, encode_labels

__all__ = ["scale_probabilities", "ScalingCalibrator", "fit_scaling"]


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

    Examples
    --------
    >>> scale_probabilities([[0.8, 0.2]], 2.0).round(4)  # temperature 1/2: more confident
    array([[0.9412, 0.0588]])
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


class ScalingCalibrator(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    r"""Temperature, bias-corrected temperature or vector scaling, a scikit-learn transformer of probability rows (book: ``def-lsw-scaling``).

    ``fit(probs, y)`` minimises the mean negative log-likelihood of
    :math:`s_{a,b}(z) = \mathrm{softmax}(a\odot\log z + b)` by Newton's method
    (the algorithm of :func:`fit_scaling`, which returns this estimator
    fitted); ``transform(probs)`` (or ``predict``) applies :math:`s_{a,b}`.

    Parameters
    ----------
    kind : {"ts", "bcts", "vs"}
        ``"ts"`` (temperature scaling, :math:`a = 1/T`, :math:`b = 0`),
        ``"bcts"`` (bias-corrected temperature scaling: scalar :math:`a`,
        vector :math:`b`) or ``"vs"`` (vector scaling: vectors :math:`a` and
        :math:`b`).
    gtol : float
        Largest accepted entry of the final gradient, in (0, 1) (see :func:`fit_scaling`).

    Attributes
    ----------
    slope_ : numpy.ndarray
        The fitted :math:`a` (one entry for ``ts`` and ``bcts``, ``k`` for ``vs``).
    bias_ : numpy.ndarray, shape (k,)
        The fitted :math:`b`, with ``b[0] = 0`` (the softmax is unchanged by a common shift of :math:`b`).
    nll_ : float
        The minimised mean negative log-likelihood on the fitting sample.
    classes_ : numpy.ndarray
        Labels of the columns.
    n_features_in_ : int
        :math:`k`.

    Examples
    --------
    >>> probs = [[0.9, 0.1], [0.6, 0.4], [0.4, 0.6], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]]
    >>> cal = ScalingCalibrator("ts").fit(probs, ["no", "no", "no", "yes", "yes", "yes"])
    >>> round(cal.temperature_, 4), cal.classes_.tolist()
    (1.4125, ['no', 'yes'])
    >>> cal.transform([[0.8, 0.2]]).round(4)
    array([[0.7274, 0.2726]])
    """

    def __init__(self, kind: str = "bcts", gtol: float = 1e-10):
        self.kind = kind
        self.gtol = gtol

    def fit(self, probs, y, classes=None) -> "ScalingCalibrator":
        """Fit the slope and bias by maximum likelihood on rows ``probs`` (every entry positive) and labels ``y`` (:func:`fit_scaling`)."""
        kind = check_option(self.kind, "kind", _SCALINGS)
        gtol = check_tolerance(self.gtol, "gtol")
        probs, y = _frame_values(probs), _frame_values(y)
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
        self.slope_, self.bias_, self.nll_ = slope.copy(), bias.copy(), nll
        self.classes_ = classes
        self.n_features_in_ = k
        return self

    @property
    def temperature_(self) -> float:
        """Fitted attribute: :math:`T = 1/a` for the scalar-slope calibrators (``ts``, ``bcts``)."""
        check_is_fitted(self, "slope_")
        if self.slope_.size != 1:
            raise ValueError("temperature_ is defined for ts and bcts only (vector scaling has one slope per class)")
        return float(1.0 / self.slope_[0])

    def transform(self, probs) -> np.ndarray:
        """Apply the fitted map :math:`s_{a,b}` to rows of the simplex (one column per fitted class)."""
        check_is_fitted(self, "slope_")
        p = as_simplex_rows(_frame_values(probs), "probs")
        if p.shape[1] != self.bias_.size:
            raise ValueError(f"probs must have one column per fitted class ({self.bias_.size}), got shape {p.shape}")
        return scale_probabilities(p, self.slope_, self.bias_)

    def predict(self, probs) -> np.ndarray:
        """The same as :meth:`transform`."""
        return self.transform(probs)


def _frame_values(x):
    """A pandas DataFrame or Series as its numpy array (dtype kept); anything else unchanged."""
    return x.to_numpy() if hasattr(x, "to_numpy") and hasattr(x, "iloc") else x


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

    Returns
    -------
    ScalingCalibrator
        The estimator, fitted: slope ``slope_`` (:math:`a`), bias ``bias_``
        (:math:`b`) and minimised mean NLL ``nll_``; its ``transform``
        applies :math:`s_{a,b}`.

    Examples
    --------
    >>> probs = [[0.9, 0.1], [0.6, 0.4], [0.4, 0.6], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]]
    >>> cal = fit_scaling(probs, [0, 0, 0, 1, 1, 1], "bcts")
    >>> cal.transform(probs).mean(axis=0).round(6)  # the bias makes the mean equal the label frequencies
    array([0.5, 0.5])
    """
    return ScalingCalibrator(kind, gtol).fit(probs, y, classes=classes)
