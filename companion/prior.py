r"""Recalibration of a probabilistic classifier to a target prior (paper 003).

The score takes finitely many values (a rating scale, or the distinct values
of a sample, see :func:`empirical_distribution`).  A *source* posterior
:math:`\eta_P(s)` is known for every value and the *target* distribution of
the score is given by masses :math:`Q[S = s]`; the target prior
:math:`q = Q[Y = 1]` is known, target labels are not.  Every recalibration
method returns a :class:`Recalibrated` pair: the target posterior for every
score value and the fitted parameters.

Root finders use bracketing (Brent's method) with explicit tolerances and
iteration limits; a system without solution raises :class:`InfeasibleSystemError`
and a fixed-point iteration that fails raises :class:`ConvergenceError`, both
subclasses of ``ValueError`` whose messages say which equation failed and why.

Equation numbers such as (8c) are those of Tasche's paper (003); the book's
chapter "Recalibrating to a target prior without target labels"
(``chap-target-prior``) restates each one under a label ``eq-tp-...``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit, ndtr, ndtri

from ._checks import (
    as_masses,
    as_probabilities,
    as_real_array,
    check_int,
    check_open_unit,
    check_option,
    check_same_length,
    check_tolerance,
)
from .labelshift import prior_correction

__all__ = [
    "InfeasibleSystemError",
    "ConvergenceError",
    "Recalibrated",
    "empirical_distribution",
    "midpoint_cdf",
    "implied_auc",
    "conditional_auc",
    "capped_scaling",
    "label_shift",
    "fjs",
    "platt",
    "cspd",
    "cspd_auc_profile",
    "cspd_quantify",
    "ROC_QMM_ITERATIONS",
    "roc_qmm",
    "roc_qmm_trace",
    "roc_qmm_jacobian",
    "two_param_qmm",
]

#: Absolute tolerance on the residual of every solved equation (mean and AUC).
RESIDUAL_TOL = 1e-11
_LINKS: dict[str, tuple[Callable, Callable]] = {"logistic": (expit, logit), "normal": (ndtr, ndtri)}


class InfeasibleSystemError(ValueError):
    """A recalibration equation (or system) has no solution in the searched range."""


class ConvergenceError(ValueError):
    """A fixed-point iteration stopped without converging."""


class Recalibrated(NamedTuple):
    """Target posterior ``Q[Y = 1 | S = s]`` for every score value, and fitted parameters."""

    posteriors: np.ndarray
    params: dict


# ---------------------------------------------------------------------------
# Distributions and AUC (section 3.3, Appendices A.1 and A.2)
# ---------------------------------------------------------------------------


def empirical_distribution(sample) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sample of scores (sorted) and their relative frequencies."""
    sample = as_real_array(sample, "sample")
    values, counts = np.unique(sample, return_counts=True)
    return values, counts / sample.size


def midpoint_cdf(masses) -> np.ndarray:
    r"""Mid-point distribution function :math:`G^*(s_i) = \sum_{j \le i}\pi_j - \pi_i/2` (App. A.2).

    ``masses`` are listed in increasing order of the score.  Unlike the
    distribution function, :math:`G^*` stays below 1 on the support (when
    the last mass is positive), so :math:`\Phi^{-1}` and logit of it are finite.
    """
    return _midpoint_cdf(as_masses(masses, "masses"))


def _midpoint_cdf(masses: np.ndarray) -> np.ndarray:
    return np.cumsum(masses) - 0.5 * masses


def _auc_from_class_masses(m1: np.ndarray, m0: np.ndarray) -> float:
    """Eq. (3a) for class-conditional masses on a common ordered support (unnormalized)."""
    below0 = np.cumsum(m0) - m0  # P0[S < s_i]
    return float(m1 @ (below0 + 0.5 * m0) / (m1.sum() * m0.sum()))


def conditional_auc(masses1, masses0) -> float:
    r"""AUC of eq. (3a) from class-conditional masses on a common support in increasing order.

    :math:`\mathrm{AUC} = \sum_i P_1[S=s_i]\,(P_0[S<s_i] + \tfrac12 P_0[S=s_i])`.
    """
    m1 = as_masses(masses1, "masses1")
    m0 = as_masses(masses0, "masses0")
    check_same_length(masses1=m1, masses0=m0)
    return _auc_from_class_masses(m1, m0)


def implied_auc(posteriors, masses) -> float:
    r"""Implied AUC of an auto-calibrated discrete score, eq. (13) (with the tie term of every grade).

    The class-conditional masses follow from (3b):
    :math:`P_1[S=s] \propto \pi_s s` and :math:`P_0[S=s] \propto \pi_s (1-s)`;
    equal posterior values are merged into one grade, so ties count one half.
    """
    s = as_probabilities(posteriors, "posteriors")
    pi = as_masses(masses, "masses")
    check_same_length(posteriors=s, masses=pi)
    mean = float(pi @ s)
    if not (0.0 < mean < 1.0):
        raise ValueError(f"posteriors must have a mean in (0, 1) under masses, got {mean!r}")
    grades, grade_of = np.unique(s, return_inverse=True)
    m1 = np.bincount(grade_of, weights=pi * s, minlength=grades.size)
    m0 = np.bincount(grade_of, weights=pi * (1.0 - s), minlength=grades.size)
    return _auc_from_class_masses(m1, m0)


# ---------------------------------------------------------------------------
# Shared input checks and the bracketing root finder
# ---------------------------------------------------------------------------


def _posteriors_and_masses(posteriors, target_masses) -> tuple[np.ndarray, np.ndarray]:
    eta = as_probabilities(posteriors, "posteriors", open_interval=True)
    f = as_masses(target_masses, "target_masses")
    check_same_length(posteriors=eta, target_masses=f)
    return eta, f


def _check_link(link) -> str:
    """``link`` if it names a link of :data:`_LINKS` (a string compared exactly); else a ValueError naming ``link``."""
    return check_option(link, "link", sorted(_LINKS))


def _check_solver(xtol, max_iter) -> tuple[float, int]:
    """Brent's tolerance ``xtol`` in (0, 1) and the iteration limit ``max_iter`` >= 1, checked under their public names."""
    return check_tolerance(xtol, "xtol"), check_int(max_iter, "max_iter")


def _check_auc(auc) -> float:
    auc = check_open_unit(auc, "auc")
    if auc <= 0.5:
        raise ValueError(
            f"auc must exceed 0.5 (an increasing recalibration cannot rank worse than chance), got {auc!r}"
        )
    return auc


def _solve_increasing(
    g: Callable[[float], float], lo: float, hi: float, *, what: str, xtol: float, max_iter: int, expand: bool = True
) -> float:
    """Root of an increasing ``g`` by Brent's method, widening [lo, hi] by doubling when ``expand``.

    Raises :class:`InfeasibleSystemError` naming ``what`` when no sign change is
    found within ``max_iter`` widenings, :class:`ConvergenceError` when Brent's
    method does not converge within ``max_iter`` iterations.
    """
    g_lo, g_hi = g(lo), g(hi)
    for _ in range(max_iter if expand else 0):
        if g_lo <= 0.0 <= g_hi:
            break
        width = hi - lo
        if g_lo > 0.0:
            lo, g_lo = lo - width, g(lo - width)
        else:
            hi, g_hi = hi + width, g(hi + width)
    if not (g_lo <= 0.0 <= g_hi):
        raise InfeasibleSystemError(
            f"{what} has no solution in [{lo:.6g}, {hi:.6g}]: "
            f"residual {g_lo:.6g} at the left end, {g_hi:.6g} at the right"
        )
    return _brent(g, lo, hi, what=what, xtol=xtol, max_iter=max_iter)


def _brent(g: Callable[[float], float], lo: float, hi: float, *, what: str, xtol: float, max_iter: int) -> float:
    """Brent's method on a bracket with a sign change; :class:`ConvergenceError` if it does not converge."""
    root, info = brentq(
        g, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=max_iter, full_output=True, disp=False
    )
    if not info.converged:
        raise ConvergenceError(f"Brent's method for {what} did not converge in {max_iter} iterations ({info.flag})")
    return float(root)


def _check_residual(value: float, target: float, what: str) -> None:
    if not abs(value - target) <= RESIDUAL_TOL:
        raise InfeasibleSystemError(
            f"{what} cannot be met: the best solution found gives {value!r} instead of {target!r} "
            f"(tolerance {RESIDUAL_TOL:g})"
        )


# ---------------------------------------------------------------------------
# Section 4.1-4.3: capped scaling, label shift, factorizable joint shift
# ---------------------------------------------------------------------------


def capped_scaling(
    posteriors, target_masses, target_prior, *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""Capped scaling (4a)-(4b): :math:`\eta_Q = \min(t\,\eta_P, 1)` with :math:`t` solving :math:`E_Q[\eta_Q] = q`.

    The mean is continuous and increasing in :math:`t`, from 0 to 1, so the
    root is bracketed by :math:`[q / E_Q\eta_P,\ 1/\min\eta_P]`.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q = check_open_unit(target_prior, "target_prior")
    xtol, max_iter = _check_solver(xtol, max_iter)

    def excess(t: float) -> float:
        return float(f @ np.minimum(t * eta, 1.0)) - q

    t = _solve_increasing(
        excess, q / float(f @ eta), 1.0 / eta.min(), what="eq. (4b) for t", xtol=xtol, max_iter=max_iter
    )
    post = np.minimum(t * eta, 1.0)
    _check_residual(float(f @ post), q, "eq. (4b) (target mean)")
    return Recalibrated(post, {"t": t, "n_capped": int(np.sum(t * eta >= 1.0))})


def label_shift(posteriors, source_prior, target_prior) -> Recalibrated:
    r"""Posterior correction under label shift, eq. (6) (Bayes' rule with the new priors).

    :math:`\eta_Q = \frac{(q/p)\,\eta_P}{(q/p)\,\eta_P + \frac{1-q}{1-p}(1-\eta_P)}`; no target
    masses are used, so the target mean equals :math:`q` only when (5) holds.  The same map
    as :func:`companion.labelshift.prior_correction`, evaluated in logit space, so subnormal
    priors (``5e-324``) give the correct posterior, not NaN.
    """
    eta = as_probabilities(posteriors, "posteriors", open_interval=True)
    p = check_open_unit(source_prior, "source_prior")
    q = check_open_unit(target_prior, "target_prior")
    return Recalibrated(prior_correction(eta, p, q), {"source_prior": p, "target_prior": q})


def _odds_tilt(eta: np.ndarray, factor: float) -> np.ndarray:
    """Posterior whose odds are ``factor`` times the odds of ``eta``."""
    return factor * eta / (factor * eta + (1.0 - eta))


def fjs(
    posteriors, target_masses, source_prior, target_prior, *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""Factorizable joint shift, eqs. (7a)-(7b): solve for :math:`\varrho`.

    (7a) multiplies the label-shift odds by :math:`\varrho`.  The target mean
    increases strictly in :math:`\varrho`, so the root is unique; Jensen's
    inequality confines it to
    :math:`[\frac{p}{(1-p)E_Q[\eta_P/(1-\eta_P)]},\ \frac{p}{1-p}E_Q[(1-\eta_P)/\eta_P]]`,
    which is the bracket used (on the log scale).
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    p = check_open_unit(source_prior, "source_prior")
    q = check_open_unit(target_prior, "target_prior")
    xtol, max_iter = _check_solver(xtol, max_iter)
    odds = eta / (1.0 - eta)
    rho_lo = p / ((1.0 - p) * float(f @ odds))
    rho_hi = p / (1.0 - p) * float(f @ (1.0 / odds))
    shift = (q / p) / ((1.0 - q) / (1.0 - p))

    def excess(log_rho: float) -> float:
        return float(f @ _odds_tilt(eta, np.exp(log_rho) * shift)) - q

    log_rho = _solve_increasing(
        excess, np.log(rho_lo), np.log(rho_hi), what="eq. (7b) for rho", xtol=xtol, max_iter=max_iter, expand=False
    )
    rho = float(np.exp(log_rho))
    post = _odds_tilt(eta, rho * shift)
    _check_residual(float(f @ post), q, "eq. (7b) (target mean)")
    return Recalibrated(post, {"rho": rho, "rho_bounds": (rho_lo, rho_hi)})


# ---------------------------------------------------------------------------
# Sections 4.4-4.5: quasi moment matching with a two-parameter family F(a x + b)
# ---------------------------------------------------------------------------


def _intercept(x, f, q, a, link, *, xtol, max_iter) -> float:
    """The b solving E_Q[F(a x + b)] = q (increasing in b)."""
    F, F_inv = _LINKS[link]
    b0 = float(F_inv(q)) - a * float(f @ x)
    return _solve_increasing(
        lambda b: float(f @ F(a * x + b)) - q, b0 - 1.0, b0 + 1.0, what=f"the target-mean equation for b (a = {a:.6g})",
        xtol=xtol, max_iter=max_iter,
    )


def _qmm(x, f, q, auc, link, *, what, xtol, max_iter) -> tuple[float, float, np.ndarray]:
    r"""Solve a QMM system like (8c): mean :math:`q` and implied AUC ``auc`` for :math:`F(a x + b)`, ``a > 0``.

    For each slope ``a`` the intercept is fixed by the mean equation; the
    implied AUC then starts at 1/2 (``a -> 0``) and ``a`` is bracketed by
    doubling until the AUC reaches ``auc`` (then Brent's method) or the map
    saturates (then the system has no solution).
    """
    F = _LINKS[link][0]
    if np.ptp(x[f > 0.0]) == 0.0:  # includes a one-hot target mass: Q puts all its mass on one score value
        raise InfeasibleSystemError(
            f"{what} has no solution: under the target masses the score takes a single value, so every implied AUC is 1/2"
        )

    def fitted(log_a: float) -> tuple[float, np.ndarray]:
        a = float(np.exp(log_a))
        b = _intercept(x, f, q, a, link, xtol=xtol, max_iter=max_iter)
        return b, F(a * x + b)

    def auc_gap(log_a: float) -> float | None:
        """Implied AUC minus ``auc``; None once rounding saturates the map so the mean cannot be met."""
        post = fitted(log_a)[1]
        if abs(float(f @ post) - q) > RESIDUAL_TOL or np.any((post <= 0.0) | (post >= 1.0)):
            return None
        return implied_auc(post, f) - auc

    lo = np.log(1e-3 / float(np.sqrt(f @ (x - f @ x) ** 2)))
    g_lo = auc_gap(lo)
    if g_lo is None or g_lo >= 0.0:
        raise InfeasibleSystemError(
            f"{what} has no solution: even a nearly flat map does not have an implied AUC below {auc!r}"
        )
    hi = lo + np.log(2.0)
    for _ in range(max_iter):
        g_hi = auc_gap(hi)
        if g_hi is None:
            # The doubling overshot into saturation. Bisect on log a for the last unsaturated slope
            # (to a relative 1e-12) before declaring the system infeasible: between the last doubling
            # and the saturation point the AUC still rises, and the root may lie there.
            sat = hi
            for _ in range(60):
                mid = 0.5 * (lo + sat)
                g_mid = auc_gap(mid)
                if g_mid is None:
                    sat = mid
                elif g_mid >= 0.0:
                    hi, g_hi = mid, g_mid
                    break
                else:
                    lo, g_lo = mid, g_mid
                if sat - lo < 1e-12:
                    break
            if g_hi is None:
                raise InfeasibleSystemError(
                    f"{what} has no solution: the implied AUC rises only to {auc + g_lo:.6g} < {auc!r} "
                    f"before the map saturates at a = {np.exp(sat):.6g}"
                )
            break
        if g_hi >= 0.0:
            break
        lo, g_lo, hi = hi, g_hi, hi + np.log(2.0)
    else:
        raise InfeasibleSystemError(
            f"{what} has no solution for a up to {np.exp(hi):.6g} (max_iter = {max_iter} doublings)"
        )
    log_a = _brent(auc_gap, lo, hi, what=f"the AUC equation of {what}", xtol=xtol, max_iter=max_iter)
    b, post = fitted(log_a)
    _check_residual(float(f @ post), q, f"{what} (target mean)")
    _check_residual(implied_auc(post, f), auc, f"{what} (implied AUC)")
    return float(np.exp(log_a)), b, post


def _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter):
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q, auc = check_open_unit(target_prior, "target_prior"), _check_auc(auc)
    return (eta, f, q, auc, *_check_solver(xtol, max_iter))


def platt(posteriors, target_masses, target_prior, auc, *, xtol: float = 1e-15, max_iter: int = 200) -> Recalibrated:
    r"""Platt scaling (8b), :math:`\eta_Q = 1/(1+e^{-(a\eta_P + b)})`, with :math:`a, b` from the QMM system (8c).

    ``auc`` is the AUC to preserve, usually the source AUC
    ``implied_auc(posteriors, source_masses)``.
    """
    eta, f, q, auc, xtol, max_iter = _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter)
    a, b, post = _qmm(eta, f, q, auc, "logistic", what="system (8c) for Platt scaling", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": a, "b": b})


def cspd(
    posteriors, target_masses, target_prior, auc, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""Parametric CSPD (8a), :math:`\eta_Q = F(a F^{-1}(\eta_P) + b)`, with :math:`a, b` from (8c).

    ``link="logistic"`` takes :math:`F` = inverse logit (logistic CSPD),
    ``link="normal"`` takes :math:`F = \Phi` (normal CSPD).
    """
    eta, f, q, auc, xtol, max_iter = _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter)
    link = _check_link(link)
    x = _LINKS[link][1](eta)
    a, b, post = _qmm(x, f, q, auc, link, what=f"system (8c) for {link} CSPD", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": a, "b": b, "link": link})


def cspd_auc_profile(
    posteriors, target_masses, target_prior, slopes, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> np.ndarray:
    r"""Implied target AUC of :math:`F(a F^{-1}(\eta_P) + b(a))` for each slope ``a``, ``b(a)`` fixing the mean.

    Shows which AUCs the system (8c) can reach: one with no slope reaching
    it has no solution.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q = check_open_unit(target_prior, "target_prior")
    slopes = as_real_array(slopes, "slopes")
    if np.any(slopes <= 0):
        raise ValueError("slopes must be positive")
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    F, F_inv = _LINKS[link]
    x = F_inv(eta)
    out = np.empty(slopes.size)
    for i, a in enumerate(slopes):  # one root per slope (a handful of slopes)
        post = F(a * x + _intercept(x, f, q, float(a), link, xtol=xtol, max_iter=max_iter))
        out[i] = implied_auc(post, f)
    return out


def cspd_quantify(
    posteriors, target_masses, auc, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""One-parameter CSPD quantifier of Remark 1: solve (9a) for :math:`a` with :math:`b = 0`, then (9b).

    Returns the target posteriors :math:`F(a F^{-1}(\eta_P))` and, in
    ``params["prior_estimate"]``, :math:`\hat q = E_Q[F(a F^{-1}(\eta_P))]`.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    auc = _check_auc(auc)
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    F, F_inv = _LINKS[link]
    x = F_inv(eta)

    def auc_gap(log_a: float) -> float:
        post = F(np.exp(log_a) * x)
        if np.any((post <= 0.0) | (post >= 1.0)):
            raise InfeasibleSystemError(
                f"eq. (9a) for {link} one-parameter CSPD has no solution: the map saturates at a = {np.exp(log_a):.6g} "
                f"before the implied AUC reaches {auc!r}"
            )
        return implied_auc(post, f) - auc

    log_a = _solve_increasing(
        auc_gap, -1.0, 0.0, what=f"eq. (9a) for {link} one-parameter CSPD", xtol=xtol, max_iter=max_iter
    )
    post = F(np.exp(log_a) * x)
    _check_residual(implied_auc(post, f), auc, f"eq. (9a) for {link} one-parameter CSPD (implied AUC)")
    return Recalibrated(post, {"a": float(np.exp(log_a)), "prior_estimate": float(f @ post), "link": link})


#: The readings of the fixed-point iteration (11b) that :func:`roc_qmm` offers.
#: ``"normalized"``: rescale every iterate to a probability vector (the default);
#: ``"literal"``: divide by :math:`1-q` as (11b) is written and take :math:`F_0` as the
#: (mid-point) distribution function of the iterate rescaled to total mass 1;
#: ``"literal-raw"``: divide by :math:`1-q` and accumulate :math:`G^*` from the raw,
#: unnormalized iterate (leaves the domain of :math:`\Phi^{-1}` once the masses exceed 1).
ROC_QMM_ITERATIONS = ("normalized", "literal", "literal-raw")


class _RocFixedPoint(NamedTuple):
    class0_masses: np.ndarray
    posteriors: np.ndarray
    changes: np.ndarray


def _roc_posterior(class0_masses: np.ndarray, q: float, c: float, *, raw_cdf: bool = False) -> np.ndarray:
    """Eq. (10b) with the mid-point distribution function of the class-0 masses.

    ``raw_cdf=False`` accumulates :math:`G^*` from the masses rescaled to total 1
    (a distribution function); ``raw_cdf=True`` from the masses as they are.
    """
    masses = class0_masses if raw_cdf else class0_masses / class0_masses.sum()
    F0 = _midpoint_cdf(masses)
    if np.any((F0 <= 0.0) | (F0 >= 1.0)):
        raise ConvergenceError(
            "ROC-QMM fixed-point iteration (11b) left the domain of Phi^-1: the class-0 masses sum to "
            f"{class0_masses.sum():.6g}, so the mid-point distribution function accumulated from them reaches "
            f"{F0.max():.6g} >= 1 (take G* of the normalized masses: iteration='literal' or 'normalized')"
        )
    return expit(np.log(q / (1.0 - q)) - 0.5 * c * c + c * ndtri(F0))


def _roc_step(f0: np.ndarray, f: np.ndarray, q: float, c: float, iteration: str) -> np.ndarray:
    """One step of (11b) in the reading ``iteration`` (see :data:`ROC_QMM_ITERATIONS`)."""
    new = f * (1.0 - _roc_posterior(f0, q, c, raw_cdf=iteration == "literal-raw"))
    return new / new.sum() if iteration == "normalized" else new / (1.0 - q)


def _roc_fixed_point(f, q, c, *, iteration, tol, max_iter) -> _RocFixedPoint:
    """Iterate (11b) from f0 = f until the sup-norm change is at most ``tol``."""
    f0 = f.copy()
    changes = []
    for _ in range(max_iter):  # a fixed-point iteration is sequential by nature
        new = _roc_step(f0, f, q, c, iteration)
        changes.append(float(np.max(np.abs(new - f0))))
        f0 = new
        if changes[-1] <= tol:
            return _RocFixedPoint(f0, _roc_posterior(f0, q, c, raw_cdf=iteration == "literal-raw"), np.array(changes))
    raise ConvergenceError(
        f"ROC-QMM fixed-point iteration (11b) did not converge: after max_iter = {max_iter} iterations the "
        f"class-0 masses still change by {changes[-1]:.3g} > tol = {tol:g}"
    )


def _roc_inputs(target_masses, target_prior, auc, iteration) -> tuple[np.ndarray, float, float]:
    """Checked target masses, prior and binormal parameter c = sqrt(2) Phi^-1(AUC), eq. (10c)."""
    f = as_masses(target_masses, "target_masses")
    q = check_open_unit(target_prior, "target_prior")
    auc = _check_auc(auc)
    check_option(iteration, "iteration", ROC_QMM_ITERATIONS)
    if f[-1] <= 0.0 or f[0] <= 0.0:
        raise ValueError(
            "target_masses must be positive at the lowest and highest score (the mid-point cdf must lie in (0, 1))"
        )
    return f, q, float(np.sqrt(2.0) * ndtri(auc))


def roc_qmm(
    target_masses, target_prior, auc, *, iteration: str = "normalized", tol: float = 1e-12, max_iter: int = 1000
) -> Recalibrated:
    r"""ROC-based QMM, eqs. (10b)-(10c), with the fixed-point iteration (11b) for the class-0 masses.

    ``target_masses`` are listed in increasing order of the score.  With
    :math:`c = \sqrt2\,\Phi^{-1}(\mathrm{AUC})`, iterate
    :math:`f_0 \leftarrow f\,(1 - \eta(f_0))` where :math:`\eta(f_0)` is (10b) with
    the mid-point distribution function of :math:`f_0`.  ``iteration`` picks
    the reading of (11b) (:data:`ROC_QMM_ITERATIONS`): ``"normalized"``
    rescales each iterate to a probability vector; ``"literal"`` divides by
    :math:`1-q` as (11b) is written and takes the distribution function of the
    rescaled iterate, which gives the same fixed point up to the total mass of
    :math:`f_0` (the book's proposition ``prop-tp-literal-iteration``);
    ``"literal-raw"`` accumulates :math:`G^*` from the unnormalized iterate,
    which fails once the masses sum to more than 1.  ``params["changes"]``
    holds the sup-norm change per iteration; below a floor set by rounding
    (about 1e-11 for AUC 0.99) the changes are noise, so a smaller ``tol``
    makes the number of iterations depend on the last bits of the input.
    For a discrete score the target mean and AUC are met only approximately.
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, iteration)
    tol = check_tolerance(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    fp = _roc_fixed_point(f, q, c, iteration=iteration, tol=tol, max_iter=max_iter)
    return Recalibrated(fp.posteriors, {"c": c, "class0_masses": fp.class0_masses, "changes": fp.changes})


def roc_qmm_trace(target_masses, target_prior, auc, n_iter: int, *, iteration: str = "normalized") -> np.ndarray:
    """Sup-norm change of the class-0 masses in each of exactly ``n_iter`` steps of (11b), without a stopping rule.

    Shows the geometric phase of the iteration and the rounding floor below
    it; ``iteration`` as in :func:`roc_qmm`.
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, iteration)
    n_iter = check_int(n_iter, "n_iter", minimum=1)
    f0 = f.copy()
    changes = np.empty(n_iter)
    for k in range(n_iter):  # sequential by nature
        new = _roc_step(f0, f, q, c, iteration)
        changes[k] = np.max(np.abs(new - f0))
        f0 = new
    return changes


def roc_qmm_jacobian(target_masses, target_prior, auc, class0_masses) -> np.ndarray:
    r"""Jacobian of the normalized ROC-QMM map :math:`N(f_0) = U(f_0)/\sum_s U(f_0)(s)` at ``class0_masses``.

    Here :math:`U = f\,(1 - \eta)` with :math:`\eta` from (10b) and
    :math:`z = \Phi^{-1}(G^*(f_0))`, :math:`G^* = L f_0` (``L`` lower triangular
    with 1/2 on the diagonal).  Since :math:`\partial\eta_i/\partial G_i =
    c\,\eta_i(1-\eta_i)/\varphi(z_i)`,

    .. math:: J = \frac{1}{\sum_s U(s)}\,(I - N\mathbf 1^\top)\,
              \operatorname{diag}\bigl(-f\,\eta(1-\eta)\,c/\varphi(z)\bigr)\,L .

    At the fixed point its spectral radius is the asymptotic contraction
    factor of the iteration per step (the book's :math:`\lambda_J`).
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, "normalized")
    f0 = as_masses(class0_masses, "class0_masses")
    check_same_length(target_masses=f, class0_masses=f0)
    n = f.size
    lower = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    z = ndtri(_midpoint_cdf(f0))
    eta = expit(np.log(q / (1.0 - q)) - 0.5 * c * c + c * z)
    h = f * (1.0 - eta)
    total = h.sum()
    dh = (-f * eta * (1.0 - eta) * c * np.sqrt(2.0 * np.pi) * np.exp(0.5 * z * z))[:, None] * lower
    return (dh - np.outer(h / total, dh.sum(axis=0))) / total


def two_param_qmm(
    target_masses, target_prior, auc, *, tol: float = 1e-12, xtol: float = 1e-15, max_iter: int = 1000
) -> Recalibrated:
    r"""2-parameter QMM, eqs. (12a)-(12b): :math:`\eta_Q = 1/(1+\exp(b + a\,\Phi^{-1}(F_0^*)))`.

    :math:`F_0^*` is the mid-point distribution function of the class-0 masses
    found by :func:`roc_qmm`; :math:`a, b` solve mean :math:`= q` and implied
    AUC :math:`=` ``auc`` exactly (``a < 0`` for an increasing posterior).
    """
    f, q, _ = _roc_inputs(target_masses, target_prior, auc, "normalized")
    auc = _check_auc(auc)
    tol = check_tolerance(tol, "tol")
    xtol, max_iter = _check_solver(xtol, max_iter)
    fit = roc_qmm(f, q, auc, tol=tol, max_iter=max_iter)
    f0 = fit.params["class0_masses"]
    x = ndtri(_midpoint_cdf(f0))
    a, b, post = _qmm(x, f, q, auc, "logistic", what="system (12b) for 2-parameter QMM", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": -a, "b": -b, "class0_masses": f0})
