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

import math

from typing import Callable, NamedTuple

import numpy as np
from scipy.optimize import brentq
from scipy.special import logit, ndtr, ndtri

from .._checks import (
    ConvergenceError,
    as_masses,
    as_probabilities,
    check_int,
    check_open_unit,
    check_option,
    check_same_length,
    check_tolerance,
)
from .._numerics import _expit
from ..label_shift_recalibration import prior_correction

__all__ = ["DOMAIN", "InfeasibleSystemError", "Recalibrated", "capped_scaling", "label_shift", "fjs"]


#: The posteriors and priors the methods serve (book appendix *Numerical notes*): from 1e-300, which keeps the
#: posteriors of a confident classifier and every product of the methods a normal float, to the largest float
#: below 1 that is not within rounding of it.
DOMAIN = (1e-300, 1.0 - 2.0**-52)
_DOMAIN_TEXT = "[1e-300, 1 - 2**-52]"

#: Absolute tolerance on the residual of every solved equation (mean and AUC).
RESIDUAL_TOL = 1e-11


#: The links F and F^{-1} of (8a)-(8b); the logistic one keeps subnormal values (scipy's expit flushes them to 0).
_LINKS: dict[str, tuple[Callable, Callable]] = {"logistic": (_expit, logit), "normal": (ndtr, ndtri)}


class InfeasibleSystemError(ValueError):
    """A recalibration equation (or system) has no solution in the searched range."""


class Recalibrated(NamedTuple):
    """Target posterior ``Q[Y = 1 | S = s]`` for every score value, and fitted parameters."""

    #: Target posterior Q[Y = 1 | S = s] for every score value.
    posteriors: np.ndarray
    #: The fitted parameters, by name.
    params: dict


# ---------------------------------------------------------------------------
# Shared input checks and the bracketing root finder
# ---------------------------------------------------------------------------


def _target_distribution(target_masses) -> np.ndarray:
    r"""The checked ``target_masses`` divided by their sum (1 within the tolerance of :func:`as_masses`).

    :math:`E_Q` is an expectation under a distribution, so the target-mean
    equations (4b), (7b), (8c) have a root for every ``target_prior`` in (0, 1);
    read literally with masses summing to :math:`S = 1 - 5\cdot 10^{-11}`, a
    prior above :math:`S` could never be met.
    """
    f = as_masses(target_masses, "target_masses")
    return f / math.fsum(f)


def _check_in_domain(x, name: str) -> float:
    """A prior ``x`` in :data:`DOMAIN`; else a ValueError naming ``name`` and the domain."""
    x = check_open_unit(x, name)
    if not DOMAIN[0] <= x <= DOMAIN[1]:
        raise ValueError(f"{name} must lie in {_DOMAIN_TEXT} (the domain of the target-prior methods), got {x!r}")
    return x


def _posteriors_and_masses(posteriors, target_masses) -> tuple[np.ndarray, np.ndarray]:
    """Posteriors in :data:`DOMAIN` and the target distribution of the same length, checked under their names."""
    eta = as_probabilities(posteriors, "posteriors", open_interval=True)
    if not (DOMAIN[0] <= eta.min() and eta.max() <= DOMAIN[1]):
        raise ValueError(f"posteriors must lie in {_DOMAIN_TEXT} (the domain of the target-prior methods), "
                         f"got values from {eta.min()!r} to {eta.max()!r}")
    f = _target_distribution(target_masses)
    check_same_length(posteriors=eta, target_masses=f)
    return eta, f


def _method_inputs(posteriors, target_masses, target_prior) -> tuple[np.ndarray, np.ndarray, float]:
    """The checked posteriors, target distribution and target prior of a method (all in :data:`DOMAIN`)."""
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    return eta, f, _check_in_domain(target_prior, "target_prior")


def _check_odds_factors(rho_lo: float, rho_hi: float, kappa: float) -> None:
    """FJS's bracket and odds factors rho kappa must be normal floats (the domain of :func:`fjs`)."""
    factors = (rho_lo, rho_hi, kappa, rho_lo * kappa, rho_hi * kappa)
    if not all(np.finfo(float).tiny <= v < math.inf for v in factors):
        raise ValueError(
            "posteriors, source_prior and target_prior put the FJS bracket or odds factor beyond the normal float "
            f"range (rho in [{rho_lo:.3g}, {rho_hi:.3g}], kappa = {kappa:.3g}): outside the domain of fjs, which "
            "needs rho's bounds, kappa and rho kappa in [2.2e-308, 1.8e308]"
        )


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


def capped_scaling(posteriors, target_masses, target_prior) -> Recalibrated:
    r"""Capped scaling, eqs. (4a)-(4b): :math:`\eta_Q = \min(t\,\eta_P, 1)` with :math:`E_Q[\eta_Q] = q`.

    The algorithm box ``alg-tp-capped`` of the book: the target mean is
    continuous, concave, piecewise linear and strictly increasing in :math:`t` below 1,
    so the root in :math:`[q / E_Q[\eta_P],\ 1/\min\eta_P]` is unique, and Newton's
    method from the left end reaches it exactly, one step per breakpoint passed at most.

    Parameters
    ----------
    posteriors : array_like of float
        Source posteriors :math:`\eta_P(s)` of the score values, in
        :data:`DOMAIN` = [1e-300, 1 - 2**-52].
    target_masses : array_like of float
        Target masses :math:`Q[S = s]` of the same values (summing to 1).
    target_prior : float
        The target prior :math:`q`, in :data:`DOMAIN`.

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``t``, ``log_t`` and
        ``n_capped`` (values capped at 1).

    Examples
    --------
    >>> fit = capped_scaling([0.1, 0.4, 0.8], [0.5, 0.3, 0.2], 0.5)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["t"], 4)
    ([0.1765, 0.7059, 1.0], 1.7647)
    """
    eta, f, q = _method_inputs(posteriors, target_masses, target_prior)
    t = q / float(f @ eta)  # step 1: the left end of the bracket, where the mean is at most q
    for _ in range(eta.size + 1):  # step 2: Newton's method on the concave, piecewise-linear mean, from the left
        capped = t * eta >= 1.0
        with np.errstate(divide="ignore"):  # the root of the line through the current piece: (q - F) / S
            t_next = (q - float(f[capped].sum())) / float(f[~capped] @ eta[~capped])
        if not t_next > t or np.array_equal(t_next * eta >= 1.0, capped):
            t = max(t, t_next)
            break
        t = t_next
    post = np.minimum(t * eta, 1.0)  # step 3: eq. (4a)
    _check_residual(float(f @ post), q, "eq. (4b) (target mean)")
    return Recalibrated(post, {"t": t, "log_t": math.log(t), "n_capped": int(np.sum(post >= 1.0))})


def label_shift(posteriors, source_prior, target_prior) -> Recalibrated:
    r"""Posterior correction under label shift, eq. (6) (Bayes' rule with the new priors).

    :math:`\eta_Q = \frac{(q/p)\,\eta_P}{(q/p)\,\eta_P + \frac{1-q}{1-p}(1-\eta_P)}`; no target
    masses are used, so the target mean equals :math:`q` only when (5) holds.  The same map
    as :func:`companion.label_shift_recalibration.prior_correction`, with its domain (priors in
    [1e-100, 1)).
    """
    eta = as_probabilities(posteriors, "posteriors", open_interval=True)
    p = check_open_unit(source_prior, "source_prior")
    q = check_open_unit(target_prior, "target_prior")
    return Recalibrated(prior_correction(eta, p, q), {"source_prior": p, "target_prior": q})


def _odds_tilt(eta: np.ndarray, factor: float) -> tuple[np.ndarray, np.ndarray]:
    """Posterior whose odds are ``factor`` times the odds of ``eta``, and its complement (without the
    cancellation of ``1 - posterior`` near 1)."""
    denominator = factor * eta + (1.0 - eta)
    return factor * eta / denominator, (1.0 - eta) / denominator


def _mean_gap(f: np.ndarray, post: np.ndarray, complement: np.ndarray, q: float) -> float:
    """E_Q[eta_Q] - q of eq. (7b); above q = 1/2 read from the other class, 1 - q - E_Q[1 - eta_Q], so that q near
    1 keeps its digits."""
    return float(f @ post) - q if q <= 0.5 else (1.0 - q) - float(f @ complement)


def _polish_tilt(eta, f, q, factor, steps: int = 2) -> tuple[np.ndarray, float]:
    """Posteriors ``_odds_tilt(eta, factor)`` after Newton steps on ``factor`` for E_Q[eta_Q] = q, and the factor.

    A step multiplies ``factor`` by exp(-gap / E_Q[eta_Q (1 - eta_Q)]) and is kept only if the gap
    (``_mean_gap``) shrinks.
    """
    post, complement = _odds_tilt(eta, factor)
    gap = _mean_gap(f, post, complement, q)
    for _ in range(steps):
        slope = float(f @ (post * complement))
        if gap == 0.0 or not slope > 0.0:
            break
        better = factor * float(np.exp(-gap / slope))
        new_post, new_complement = _odds_tilt(eta, better)
        new_gap = _mean_gap(f, new_post, new_complement, q)
        if not abs(new_gap) < abs(gap):
            break
        factor, gap, post, complement = better, new_gap, new_post, new_complement
    return post, factor


def fjs(
    posteriors, target_masses, source_prior, target_prior, *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""Factorizable joint shift, eqs. (7a)-(7b): the label-shift odds times :math:`\varrho`, target mean :math:`q`.

    The algorithm box ``alg-tp-fjs`` of the book.  The target mean increases
    strictly in :math:`\varrho`, and Jensen's inequality brackets the root
    (``prop-tp-fjs``).  Brent's method runs on :math:`\log\varrho` in that
    bracket, widened by a relative :math:`10^{-9}`; Newton steps on the odds
    factor :math:`\varrho\kappa` follow (``_polish_tilt``).

    Parameters
    ----------
    posteriors : array_like of float
        Source posteriors :math:`\eta_P(s)`, in :data:`DOMAIN` = [1e-300, 1 - 2**-52].
    target_masses : array_like of float
        Target masses :math:`Q[S = s]` of the same values (summing to 1).
    source_prior, target_prior : float
        :math:`p` and :math:`q`, in :data:`DOMAIN`; with the posteriors they
        must keep the bracket of :math:`\varrho` and the odds factor
        :math:`\varrho\kappa` normal floats (a ValueError says when not).
    xtol : float, default 1e-15
        Brent's absolute tolerance on :math:`\log\varrho`.
    max_iter : int, default 200
        Brent's iteration limit.

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``rho``, ``log_rho`` and
        ``rho_bounds`` (the bracket of eq. ``eq-tp-fjs-bounds``).

    Examples
    --------
    >>> fit = fjs([0.1, 0.4, 0.8], [0.5, 0.3, 0.2], 0.3, 0.5)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["rho"], 4)
    ([0.2398, 0.6543, 0.9191], 1.2167)
    """
    eta, f, q = _method_inputs(posteriors, target_masses, target_prior)
    p = _check_in_domain(source_prior, "source_prior")
    xtol, max_iter = _check_solver(xtol, max_iter)
    odds, kept = eta / (1.0 - eta), f > 0.0  # step 1: the odds o and the label-shift factor kappa
    kappa = (q / p) / ((1.0 - q) / (1.0 - p))
    rho_lo = p / ((1.0 - p) * float(f[kept] @ odds[kept]))  # step 2: the bounds eq-tp-fjs-bounds
    rho_hi = p / (1.0 - p) * float(f[kept] @ (1.0 / odds[kept]))
    _check_odds_factors(rho_lo, rho_hi, kappa)

    def excess(log_rho: float) -> float:  # step 3: eq. (7b), the target mean minus q
        return _mean_gap(f, *_odds_tilt(eta, math.exp(log_rho) * kappa), q)

    margin = 1e-9  # relative slack: at a tiny q the root lies within rounding of the lower bound
    log_rho = _solve_increasing(excess, math.log(rho_lo) - margin, math.log(rho_hi) + margin,
                                what="eq. (7b) for rho", xtol=xtol, max_iter=max_iter, expand=False)
    post, factor = _polish_tilt(eta, f, q, math.exp(log_rho) * kappa)  # step 4: eq. (7a)
    rho = factor / kappa
    _check_residual(float(f @ post), q, "eq. (7b) (target mean)")
    return Recalibrated(post, {"rho": rho, "log_rho": math.log(rho), "rho_bounds": (rho_lo, rho_hi)})
