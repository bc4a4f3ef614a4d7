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
from scipy.special import logit, logsumexp, ndtr, ndtri

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
from .._numerics import _expit, _offset_cumsum
from ..label_shift_recalibration import prior_correction

__all__ = ["InfeasibleSystemError", "Recalibrated", "capped_scaling", "label_shift", "fjs"]


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


def _posteriors_and_masses(posteriors, target_masses) -> tuple[np.ndarray, np.ndarray]:
    eta = as_probabilities(posteriors, "posteriors", open_interval=True)
    f = _target_distribution(target_masses)
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


def capped_scaling(posteriors, target_masses, target_prior) -> Recalibrated:
    r"""Capped scaling (4a)-(4b): :math:`\eta_Q = \min(t\,\eta_P, 1)` with :math:`t` solving :math:`E_Q[\eta_Q] = q`.

    Solved with one sort and no iteration.  The mean is continuous and
    increasing in :math:`t` and linear between the breakpoints
    :math:`1/\eta_P`: with the posteriors in decreasing order and the first
    :math:`k` of them capped, :math:`t_k = (q - F_k)/S_k`, :math:`F_k` the
    target mass of the capped scores and :math:`S_k = E_Q[\eta_P\,1\{\text{uncapped}\}]`.
    The root caps exactly the first :math:`k` values when :math:`q` is at most the
    mean at the breakpoint :math:`1/\eta_{(k)}`, :math:`M_k = F_{k+1} + S_{k+1}/\eta_{(k)}`,
    and exceeds :math:`M_{k-1}`; :math:`q \le M_k` is tested as
    :math:`t_{k+1}\eta_{(k)} \le 1`, from the next segment's small terms
    (:math:`q - F_{k+1}` and :math:`S_{k+1}`), each accurate to a few roundings
    of its own size, so a :math:`q` one ulp past :math:`M_k` takes the next
    segment; tied posteriors share one breakpoint, tested at the group's last
    member (whatever the order of the tied atoms).  Just past a breakpoint where :math:`S_{k+1} \ll S_k` the root is
    ill-conditioned (an ulp of :math:`q` moves :math:`t` by about
    :math:`\mathrm{ulp}(q)/S_{k+1}`), and it is computed from these accurate terms.  Above :math:`q = 1/2` the
    numerator is written :math:`(1 - F_k) - (1 - q)`, the uncapped mass summed
    from below, so a prior within rounding of 1 keeps its digits.  The
    posteriors are scaled by a power of two (exact) before the products, so
    subnormal posteriors keep their digits.  ``params["log_t"]`` holds
    :math:`\log t`, finite where :math:`t` itself is beyond the largest float
    (a posterior below about ``1e-308`` that stays uncapped): ``params["t"]`` is
    then ``inf`` and the posteriors, computed from :math:`t`'s mantissa and
    exponent, are right (as ``params["log_rho"]`` of :func:`fjs`).
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q = check_open_unit(target_prior, "target_prior")
    order = np.argsort(-eta, kind="stable")
    e, w = eta[order], f[order]
    shift = min(1022, 1 - math.frexp(float(e[-1]))[1])  # w e 2^shift: exact scaling, no term below the normal range
    below = np.cumsum((w * np.ldexp(e, shift))[::-1])[::-1]  # S_k 2^shift, summed from the smallest term
    if q <= 0.5:  # q - F_k, compensated: near the root it cancels to a few ulps of q
        numerator = _offset_cumsum(w, q)[:-1]
    else:  # (1 - F_k) - (1 - q) = -((1 - q) - (1 - F_k)), the uncapped mass summed from the smallest term
        numerator = -_offset_cumsum(w[::-1], 1.0 - q)[::-1][:-1]
    # t_k = numerator / below * 2^shift as a mantissa and an exponent: no product below can overflow or underflow
    n_mant, n_exp = np.frexp(numerator)
    b_mant, b_exp = np.frexp(below)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_mant, t_exp = n_mant / b_mant, n_exp - b_exp + shift
    e_mant, e_exp = np.frexp(e)

    def scaled(i, k):  # t_k * e[i], under/overflowing only where the value itself does
        with np.errstate(over="ignore", under="ignore"):
            return np.ldexp(t_mant[k] * e_mant[i], t_exp[k] + e_exp[i])

    # the root caps exactly the first k values iff q <= M_k, the mean at the breakpoint t = 1/e_k, and
    # q - M_k = (q - F_(k+1)) - S_(k+1)/e_k: so q <= M_k iff t_(k+1) e_k <= 1, decided from the next segment's
    # small terms (compensated numerator) rather than from t_k e_k, which rounds to 1 when q is an ulp past M_k
    ks = np.arange(e.size)
    with np.errstate(invalid="ignore"):
        uncapped = np.append(~(scaled(ks[:-1], ks[1:]) > 1.0), True)  # t_(k+1) e_k <= 1 (0/0: q = F_(k+1) = M_k)
    # tied posteriors share one breakpoint: decide at each tie group's last member, where the next segment's
    # terms are the small ones (inside the group t_(k+1) is formed from the group's rest and rounds to 1/e_k)
    ends = np.flatnonzero(np.append(e[:-1] != e[1:], True))
    k = int(np.argmax(uncapped[ends[np.searchsorted(ends, ks)]]))
    with np.errstate(over="ignore"):
        t = float(np.ldexp(t_mant[k], t_exp[k]))  # inf beyond the largest float: the posteriors below still exist
    log_t = math.log(t) if np.finfo(float).tiny <= t < math.inf else float(np.log(t_mant[k]) + t_exp[k] * np.log(2.0))
    post = np.empty_like(eta)
    post[order] = np.minimum(scaled(ks, np.full(e.size, k)), 1.0)
    _check_residual(float(f @ post), q, "eq. (4b) (target mean)")
    return Recalibrated(post, {"t": t, "log_t": log_t, "n_capped": int(np.sum(post >= 1.0))})


def label_shift(posteriors, source_prior, target_prior) -> Recalibrated:
    r"""Posterior correction under label shift, eq. (6) (Bayes' rule with the new priors).

    :math:`\eta_Q = \frac{(q/p)\,\eta_P}{(q/p)\,\eta_P + \frac{1-q}{1-p}(1-\eta_P)}`; no target
    masses are used, so the target mean equals :math:`q` only when (5) holds.  The same map
    as :func:`companion.label_shift_recalibration.prior_correction`, whose products are formed from
    mantissas and exponents, so subnormal posteriors and priors (``5e-324``) give the correct posterior,
    not NaN or 0.
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
    r"""Factorizable joint shift, eqs. (7a)-(7b): solve for :math:`\varrho`.

    (7a) multiplies the label-shift odds by :math:`\varrho`.  The target mean
    increases strictly in :math:`\varrho`, so the root is unique; Jensen's
    inequality confines it to
    :math:`[\frac{p}{(1-p)E_Q[\eta_P/(1-\eta_P)]},\ \frac{p}{1-p}E_Q[(1-\eta_P)/\eta_P]]`,
    which is the bracket used (on the log scale, widened by a relative
    :math:`10^{-9}`: at a tiny ``target_prior`` the root lies within rounding
    of the lower bound, the tilt being nearly linear in the odds).  Where a factor leaves the
    float range (a subnormal posterior or prior: :math:`1/\eta_P` or
    :math:`q/p` overflows), the bracket and the tilt are computed in logs,
    :math:`\eta_Q = \operatorname{expit}(\operatorname{logit}\eta_P + \log\varrho + \log\frac{q(1-p)}{p(1-q)})`
    (subnormal posteriors kept; each log-odds near 745 carries its rounding, so there the posteriors hold
    to about :math:`10^{-13}` relative).  On the direct route Newton steps on the odds factor
    :math:`\varrho\,q(1-p)/(p(1-q))` itself follow the bracketed solve for :math:`\log\varrho`, whose
    rounding (near 690 for posteriors of 1e-300) would cost 1e-13 of the factor.
    On the log route ``params["rho_bounds"]`` holds ``inf`` for a bound beyond the largest float.
    The masses are read as a distribution (divided by their sum, see
    ``_target_distribution``), and for ``target_prior`` above 1/2 eq. (7b) is
    solved as the other class's mean, :math:`1 - q = E_Q[1 - \eta_Q]`, so that
    the equation for a prior within rounding of 1 keeps its digits (:math:`1 - q` is exact in
    floats there; the posteriors themselves are floats, next to 1 within an ulp or two).  ``params["log_rho"]`` holds :math:`\log\varrho`, which
    stays finite where :math:`\varrho` itself is beyond the largest float
    (``params["rho"]`` is then ``inf``; the posteriors are computed from
    :math:`\log\varrho` and are right).
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    p = check_open_unit(source_prior, "source_prior")
    q = check_open_unit(target_prior, "target_prior")
    xtol, max_iter = _check_solver(xtol, max_iter)
    odds = eta / (1.0 - eta)
    with np.errstate(divide="ignore", over="ignore"):  # numpy floats: a denominator rounding to 0 gives inf
        rho_lo = float(np.float64(p) / ((1.0 - p) * (f[f > 0.0] @ odds[f > 0.0])))
        rho_hi = float(np.float64(p) / (1.0 - p) * (f[f > 0.0] @ (1.0 / odds[f > 0.0])))
        shift = float(np.float64(q / p) / ((1.0 - q) / (1.0 - p)))
    # the direct route while every factor, and the odds factor rho * shift across the bracket, is a normal float
    # (a subnormal factor keeps only its top bits: 4e-9 relative at q = 1e-300 with a posterior of 1 - 2^-53)
    direct = all(np.finfo(float).tiny <= v < np.inf for v in (rho_lo, rho_hi, shift, rho_lo * shift, rho_hi * shift))
    if direct:
        def tilt(log_rho: float) -> tuple[np.ndarray, np.ndarray]:  # the posteriors and their complements
            return _odds_tilt(eta, np.exp(log_rho) * shift)

        log_lo, log_hi, bounds = np.log(rho_lo), np.log(rho_hi), (rho_lo, rho_hi)
    else:  # in logs: a factor beyond the float range
        log_prior_odds, x = np.log(p) - np.log1p(-p), logit(eta)
        log_shift = np.log(q) - np.log1p(-q) - log_prior_odds
        log_lo = log_prior_odds - float(logsumexp(x[f > 0.0], b=f[f > 0.0]))  # f @ odds may round to 0
        log_hi = log_prior_odds + float(logsumexp(-x[f > 0.0], b=f[f > 0.0]))

        def tilt(log_rho: float) -> tuple[np.ndarray, np.ndarray]:
            log_odds = x + (log_rho + log_shift)
            return _expit(log_odds), _expit(-log_odds)

        with np.errstate(over="ignore"):
            bounds = (float(np.exp(log_lo)), float(np.exp(log_hi)))

    def excess(log_rho: float) -> float:
        return _mean_gap(f, *tilt(log_rho), q)

    margin = 1e-9 * (1.0 + max(abs(log_lo), abs(log_hi)))
    log_rho = _solve_increasing(excess, log_lo - margin, log_hi + margin, what="eq. (7b) for rho", xtol=xtol,
                                max_iter=max_iter, expand=False)
    with np.errstate(over="ignore"):
        rho = float(np.exp(log_rho))
    post = tilt(log_rho)[0]
    if direct:  # direct route: Newton steps on the odds factor itself, whose float keeps the
        post, factor = _polish_tilt(eta, f, q, rho * shift)  # digits that log rho (690 at 1e-300) rounds away
        rho = factor / shift
        log_rho = float(np.log(rho))
    _check_residual(float(f @ post), q, "eq. (7b) (target mean)")
    return Recalibrated(post, {"rho": rho, "log_rho": float(log_rho), "rho_bounds": bounds})
