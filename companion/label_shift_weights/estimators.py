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
    r"""Maximum-likelihood label shift: the EM of Saerens et al., optionally after calibration (book ``def-lsw-mlls``).

    1. Source prior :math:`\hat p` = label frequencies of the labelled source
       sample, or ``source_prior`` when given (a positive point of the simplex,
       one entry per class in the order of ``classes``: e.g. a prior known
       exactly, or estimated from more source labels than ``y_source``).
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
    ps, pt, codes, classes, p_hat = _labelled_source_and_target(probs_source, y_source, probs_target, classes)
    if source_prior is not None:
        p_hat = _as_prior(source_prior, "source_prior", ps.shape[1], positive=True)
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


def _batched_bbse(eta_s: np.ndarray, onehot_s: np.ndarray, eta_t: np.ndarray, soft: bool) -> np.ndarray:
    """BBSE weights for every repetition (leading axis) by batched ``np.linalg.solve``."""
    confusion = _confusion(_features(eta_s, soft), onehot_s)
    nu = _features(eta_t, soft).mean(axis=-2)
    cond = np.linalg.cond(confusion)
    if not np.all(np.isfinite(cond)):
        raise ValueError("a confusion matrix is singular in some repetition: the samples are too small")
    return np.linalg.solve(confusion, nu[..., None])[..., 0]
