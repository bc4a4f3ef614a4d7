r"""Multiclass label shift: estimating the importance weights (BBSE, MLLS, RLLS).

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
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import null_space
from scipy.optimize import brentq, minimize

from .._checks import (
    ConvergenceError,
    as_real_array,
    check_bool,
    check_int,
    check_option,
    check_positive,
    check_real,
    check_tolerance,
    simplex_tolerance,
)
from .correction import _check_rows, _check_same_classes, _class_frequencies, as_simplex_rows, encode_labels
from .scaling import ScalingCalibrator, _SCALINGS, fit_scaling


__all__ = ["BBSEResult", "MLLSResult", "RLLSResult", "bbse", "mlls", "mlls_log_likelihood", "rlls"]


# ---------------------------------------------------------------------------
# BBSE (paper 001 Appendix A)
# ---------------------------------------------------------------------------


class BBSEResult(NamedTuple):
    """Output of :func:`bbse` (book: ``def-lsw-bbse``)."""

    #: Estimated weights :math:`\hat w`, after the negative-weight policy.
    weights: np.ndarray
    #: The solution of :math:`\hat C w = \hat\nu` before the policy.
    raw_weights: np.ndarray
    #: Estimated target prior :math:`\hat p\odot\hat w`.
    target_prior: np.ndarray
    #: Source label frequencies :math:`\hat p`.
    source_prior: np.ndarray
    #: The class labels, in the order of the other arrays.
    classes: np.ndarray
    #: :math:`\hat C_{ij}`, the joint frequency of prediction ``i`` and label ``j`` on the source sample.
    confusion: np.ndarray
    #: :math:`\hat\nu_i`, the frequency of prediction ``i`` on the target sample.
    target_mean: np.ndarray
    #: 2-norm condition number of :math:`\hat C`.
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


def _labelled_source_and_target(probs_source, y_source, probs_target, classes):
    """The validated inputs every weight estimator reads: source and target rows, label codes, classes, source prior."""
    ps = as_simplex_rows(probs_source, "probs_source")
    pt = as_simplex_rows(probs_target, "probs_target")
    _check_same_classes(ps, pt, "probs_source", "probs_target")
    codes, classes = encode_labels(y_source, "y_source", ps.shape[1], classes)
    _check_rows(ps, codes, "probs_source", "y_source")
    return ps, pt, codes, classes, _class_frequencies(codes, classes, "y_source")


def _moment_system(probs_source, y_source, probs_target, soft: bool, classes):
    """Steps 1-3 of ``alg-lsw-bbse-hard`` / ``alg-lsw-bbse-soft``: source prior, classes, joint confusion, target feature means."""
    ps, pt, codes, classes, p_hat = _labelled_source_and_target(probs_source, y_source, probs_target, classes)
    phi_s, phi_t = _features(ps, soft), _features(pt, soft)  # step 1: one-hot arg-max, or the probabilities
    confusion = phi_s.T @ np.eye(ps.shape[1])[codes] / codes.size  # step 2: C_ij = mean of phi_i(x_s) 1{y_s = j}
    return p_hat, classes, confusion, phi_t.mean(axis=0)  # step 3: nu_i = mean of phi_i(x'_t)


def _identifiable(confusion: np.ndarray, max_condition: float) -> float:
    """The condition number of C-hat, refused above ``max_condition`` or when singular (assumption (A2))."""
    cond = float(np.linalg.cond(confusion))
    if not np.isfinite(cond) or cond > max_condition:
        raise ValueError(
            f"the estimated confusion matrix is singular or near-singular (condition number {cond:.3g} > "
            f"max_condition = {max_condition:g}): the weights are not identifiable (assumption (A2)); "
            "a class may never be predicted, or the source sample is too small"
        )
    return cond


def bbse(probs_source, y_source, probs_target, *, soft: bool = False, classes=None,
         negative: str = "raise", max_condition: float = 1e8) -> BBSEResult:
    r"""Black-box shift estimation: solve :math:`\hat C\,w = \hat\nu` (book ``alg-lsw-bbse-hard``, ``alg-lsw-bbse-soft``).

    Paper 001, Appendix A (Lipton et al.).  The features are the one-hot
    arg-max of the classifier (hard; a tie goes to the first class) or its
    probability vector (``soft=True``); :math:`\hat C_{ij}` is the joint
    frequency of feature ``i`` and label ``j`` on the source,
    :math:`\hat\nu_i` the mean feature on the target, and the target prior
    is :math:`\hat p\odot\hat w` (book ``def-lsw-bbse``).

    Parameters
    ----------
    probs_source : array_like, shape (n_P, k)
        Classifier outputs on the labelled source sample: rows of the simplex.
    y_source : array_like, shape (n_P,)
        Source labels; every class must occur.
    probs_target : array_like, shape (n_Q, k)
        Classifier outputs on the unlabelled target sample.
    soft : bool
        BBSE-soft (probability vectors) instead of BBSE-hard (arg-max).
    classes : sequence, optional
        Labels of the columns (see :func:`encode_labels`).
    negative : {"raise", "clip", "keep"}
        Negative solutions (small samples, a target prior near 0): raise a
        ``ValueError`` naming the classes; set them to 0 and rescale so that
        :math:`\hat p^\top\hat w = 1`; or return them.
    max_condition : float
        Largest accepted condition number of :math:`\hat C` (assumption
        (A2)); a larger one, or a singular matrix, raises ``ValueError``.

    Returns
    -------
    BBSEResult
        The weights, the raw solution, both priors, the classes,
        :math:`\hat C`, :math:`\hat\nu` and the condition number.

    Examples
    --------
    >>> probs_source = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.2, 0.8]]
    >>> probs_target = [[0.9, 0.1], [0.3, 0.7], [0.2, 0.8], [0.2, 0.8]]
    >>> res = bbse(probs_source, [0, 0, 1, 1], probs_target)
    >>> res.weights.round(3), res.target_prior.round(3)
    (array([0.5, 1.5]), array([0.25, 0.75]))
    """
    soft = check_bool(soft, "soft")
    negative = check_option(negative, "negative", _NEGATIVE_POLICIES)
    max_condition = check_positive(max_condition, "max_condition")
    p_hat, classes, confusion, nu = _moment_system(probs_source, y_source, probs_target, soft, classes)  # steps 1-3
    cond = _identifiable(confusion, max_condition)
    raw = np.linalg.solve(confusion, nu)  # step 4: C w = nu
    w = _apply_negative_policy(raw, p_hat, negative, classes)  # step 5
    return BBSEResult(w, raw, p_hat * w, p_hat, classes, confusion, nu, cond)


# ---------------------------------------------------------------------------
# MLLS: the EM of Saerens et al., optionally after calibration
# ---------------------------------------------------------------------------


class MLLSResult(NamedTuple):
    """Output of :func:`mlls` (book: ``def-lsw-mlls``)."""

    #: Estimated weights :math:`\hat q/\hat p`.
    weights: np.ndarray
    #: Estimated target prior :math:`\hat q`, the EM limit.
    target_prior: np.ndarray
    #: Source prior :math:`\hat p`: label frequencies, or the prior passed as ``source_prior``.
    source_prior: np.ndarray
    #: The class labels, in the order of the other arrays.
    classes: np.ndarray
    #: EM iterations until the largest change of :math:`\hat q` fell below ``tol``.
    n_iter: int
    #: Final mean log-likelihood per target point (book ``eq-lsw-likelihood``).
    log_likelihood: float
    #: The mean log-likelihood at every iterate, starting at :math:`\hat q = \hat p`.
    log_likelihood_trace: np.ndarray
    #: The scaling calibrator fitted on the source when ``calibration`` is given, else ``None``.
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
    r"""The EM of MLLS (book ``alg-lsw-mlls-em``), vectorised over leading (repetition) axes.

    ``eta`` has shape ``(..., n, k)`` (posteriors calibrated for the source
    prior), ``source_prior`` shape ``(..., k)``, optional ``counts`` shape
    ``(..., n)`` (multiplicities of the rows, for grouped data).  Converged
    repetitions are frozen.  Returns ``(q, n_iter, loglik)`` and, with
    ``trace``, the list of log-likelihoods of all iterates.
    """
    eta_t = np.ascontiguousarray(np.swapaxes(np.asarray(eta, dtype=float), -1, -2))  # class-major (..., k, n)
    batch, k = eta_t.shape[:-2], eta_t.shape[-2]
    p = np.broadcast_to(np.asarray(source_prior, dtype=float), batch + (k,))
    c = None if counts is None else np.asarray(counts, dtype=float)
    total = eta_t.shape[-1] if c is None else c.sum(axis=-1)[..., None]  # n_Q, or the total count
    q = p.copy()  # step 1: start at q = p
    n_iter, active = np.zeros(batch, dtype=np.int64), np.ones(batch, dtype=bool)
    history = [_mean_loglik(eta_t, q / p, c)] if trace else None
    for it in range(1, max_iter + 1):
        ratio = q / p
        # E-step (step 2): r_ty = ratio_y eta_ty / D_t, with D_t = sum_j ratio_j eta_tj
        inv_d = _inverse_mixture(eta_t, ratio, c)
        # M-step (step 3): q_y = mean over t of r_ty = ratio_y * mean over t of eta_ty / D_t
        q_new = ratio * (eta_t @ inv_d[..., None])[..., 0] / total
        change = np.max(np.abs(q_new - q), axis=-1)
        q = np.where(active[..., None], q_new, q)
        n_iter = np.where(active, it, n_iter)
        active = active & (change > tol)  # step 4: stop once no coordinate moves by more than tol
        if trace:
            history.append(_mean_loglik(eta_t, q / p, c))
        if not np.any(active):
            break
    else:
        _not_converged(max_iter, float(np.max(change)), tol)
    loglik = _mean_loglik(eta_t, q / p, c)
    return (q, n_iter, loglik, history) if trace else (q, n_iter, loglik)


def _inverse_mixture(eta_t: np.ndarray, ratio: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """1 / D_t for every sample (times its count, 0 where the count is 0, for grouped data)."""
    mix = _mixture(eta_t, ratio)
    if counts is None:
        return 1.0 / mix
    return np.divide(counts, mix, out=np.zeros_like(mix), where=counts > 0)


def _not_converged(max_iter: int, change: float, tol: float):
    raise ConvergenceError(
        f"MLLS EM did not converge in max_iter = {max_iter} iterations (largest change of the target "
        f"prior in the last step {change:.3g} > tol = {tol:g}); the maximum may lie on the "
        "boundary of the simplex, where EM is slow: raise max_iter or tol"
    )


def _as_prior(prior, name: str, k: int, *, positive: bool) -> np.ndarray:
    """A class prior on ``k`` classes: a point of the simplex (sum 1 within :func:`~companion._checks.simplex_tolerance`), positive if asked."""
    v = as_real_array(prior, name)
    if v.size != k:
        raise ValueError(f"{name} must hold one probability per class ({k}), got {v.size}")
    if np.any(v <= 0.0) if positive else np.any(v < 0.0):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'} for every class")
    if abs(float(v.sum()) - 1.0) > simplex_tolerance(prior, k):
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
         source_prior=None, tol: float = 1e-10, max_iter: int = 10_000) -> MLLSResult:
    r"""Maximum-likelihood label shift by the EM of Saerens et al., optionally after calibration.

    Book ``alg-lsw-mlls-em`` (and ``alg-lsw-bcts-mlls`` with
    ``calibration="bcts"``); paper 001, Appendix A.  The source prior
    :math:`\hat p` is the label frequency of ``y_source`` unless
    ``source_prior`` is given; with ``calibration`` the scaling of
    :func:`fit_scaling` is fitted on the labelled source sample and applied
    to the target outputs.  EM starts at :math:`q = \hat p`, alternates the
    E-step (posteriors under the candidate prior) and the M-step (their
    mean), and stops when no coordinate of :math:`q` moves by more than
    ``tol``; each step increases the likelihood (book ``prop-lsw-em``).

    Parameters
    ----------
    probs_source : array_like, shape (n_P, k)
        Classifier outputs on the labelled source sample: rows of the simplex
        (with ``calibration``, every entry positive).
    y_source : array_like, shape (n_P,)
        Source labels; every class must occur.
    probs_target : array_like, shape (n_Q, k)
        Classifier outputs on the unlabelled target sample.
    calibration : {None, "ts", "bcts", "vs"}
        Scaling fitted before EM (book ``def-lsw-scaling``).
    classes : sequence, optional
        Labels of the columns (see :func:`encode_labels`).
    source_prior : array_like, shape (k,), optional
        A positive point of the simplex used as :math:`\hat p` (a prior known
        exactly, or estimated from more source labels than ``y_source``).
    tol : float
        Stopping tolerance on the largest change of :math:`q`, in (0, 1).
    max_iter : int
        Largest number of EM steps; more raise :class:`ConvergenceError` (a ``ValueError``).

    Returns
    -------
    MLLSResult
        The weights :math:`\hat q/\hat p`, both priors, the classes, the number
        of steps, the log-likelihood and its trace, and the fitted calibrator.

    Examples
    --------
    >>> probs_source = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.2, 0.8]]
    >>> probs_target = [[0.9, 0.1], [0.3, 0.7], [0.2, 0.8], [0.2, 0.8]]
    >>> mlls(probs_source, [0, 0, 1, 1], probs_target).weights.round(3)
    array([0.534, 1.466])
    """
    tol = check_tolerance(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    if calibration is not None:
        calibration = check_option(calibration, "calibration", _SCALINGS)
    ps, pt, codes, classes, p_hat = _labelled_source_and_target(probs_source, y_source, probs_target, classes)
    if source_prior is not None:
        p_hat = _as_prior(source_prior, "source_prior", ps.shape[1], positive=True)
    calibrator = None
    if calibration is not None:
        calibrator = fit_scaling(ps, codes, calibration, classes=np.arange(ps.shape[1]))
        pt = calibrator.transform(pt)
    q, n_iter, loglik, history = _em(pt, p_hat, tol=tol, max_iter=max_iter, trace=True)  # steps 1-4 of the box
    return MLLSResult(q / p_hat, q, p_hat, classes, int(n_iter), float(loglik), np.array(history), calibrator)


# ---------------------------------------------------------------------------
# RLLS (Azizzadenesheli et al. 2019)
# ---------------------------------------------------------------------------


class RLLSResult(NamedTuple):
    """Output of :func:`rlls` (book: ``def-lsw-rlls``)."""

    #: Estimated weights :math:`1 + \hat\theta`.
    weights: np.ndarray
    #: Estimated target prior :math:`\hat p\odot\hat w`.
    target_prior: np.ndarray
    #: Source label frequencies :math:`\hat p`.
    source_prior: np.ndarray
    #: The class labels, in the order of the other arrays.
    classes: np.ndarray
    #: The confusion matrix :math:`\hat C` of the source sample.
    confusion: np.ndarray
    #: The regularized solution :math:`\hat\theta`.
    theta: np.ndarray
    #: The regularization weight :math:`\lambda`.
    regularization: float
    #: The minimum of the regularized objective.
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
    r"""Regularised learning under label shift (Azizzadenesheli et al. 2019; book ``alg-lsw-rlls``).

    With :math:`\hat C`, :math:`\hat\nu` and :math:`\hat p` as in :func:`bbse` and
    :math:`\hat b = \hat\nu - \hat C\mathbf 1`, minimise
    :math:`\|\hat C\theta - \hat b\|_2 + \lambda\|\theta\|_2` (norms not
    squared, as in the paper) subject to :math:`-1 \le \theta_y \le w_{\max} - 1`
    and :math:`\hat p^\top\theta = 0`, and return :math:`\hat w = 1 + \hat\theta`.
    Below a threshold of :math:`\lambda` the result is BBSE exactly (book
    ``prop-lsw-rlls-kink``).  The problem without the bounds is solved
    exactly (:func:`_rlls_without_bounds`), with an active bound by SLSQP.

    Parameters
    ----------
    probs_source, y_source, probs_target, soft, classes
        As in :func:`bbse`.
    regularization : float
        :math:`\lambda \ge 0` (the paper takes it of order :math:`\sqrt{\log(k/\delta)/n_P}`).
    max_weight : float, optional
        Cap :math:`w_{\max} \ge 1` on every weight (default none); a smaller
        cap leaves no feasible point and raises ``ValueError``.
    tol : float
        Tolerance ``ftol`` of SLSQP when a bound is active, in (0, 1).

    Returns
    -------
    RLLSResult
        The weights, the target and source priors, the classes, :math:`\hat C`,
        :math:`\hat\theta`, :math:`\lambda` and the minimum of the objective.

    Examples
    --------
    >>> probs_source = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.2, 0.8]]
    >>> probs_target = [[0.9, 0.1], [0.3, 0.7], [0.2, 0.8], [0.2, 0.8]]
    >>> rlls(probs_source, [0, 0, 1, 1], probs_target, 0.0).weights.round(3)  # BBSE
    array([0.5, 1.5])
    >>> rlls(probs_source, [0, 0, 1, 1], probs_target, 10.0).weights.round(3)  # no shift
    array([1., 1.])
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
    p_hat, classes, confusion, nu = _moment_system(probs_source, y_source, probs_target, soft, classes)  # step 1
    b = nu - confusion.sum(axis=1)  # step 2: b = nu - C 1
    theta, obj = _rlls_solve(confusion, b, p_hat, regularization, upper - 1.0, tol)  # step 3
    w = 1.0 + theta  # step 4
    return RLLSResult(w, p_hat * w, p_hat, classes, confusion, theta, regularization, obj)


def _batched_bbse(eta_s: np.ndarray, onehot_s: np.ndarray, eta_t: np.ndarray, soft: bool) -> np.ndarray:
    """BBSE weights for every repetition (leading axis) by batched ``np.linalg.solve``."""
    confusion = _confusion(_features(eta_s, soft), onehot_s)
    nu = _features(eta_t, soft).mean(axis=-2)
    cond = np.linalg.cond(confusion)
    if not np.all(np.isfinite(cond)):
        raise ValueError("a confusion matrix is singular in some repetition: the samples are too small")
    return np.linalg.solve(confusion, nu[..., None])[..., 0]
