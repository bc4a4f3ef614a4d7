"""Quasi moment matching (paper 003, section 3): Platt scaling, CSPD, ROC QMM and two-parameter QMM.

Each method matches the target prior and the implied AUC (eq. (8c) and its
variants); a system without solution raises
:class:`~companion.target_prior.InfeasibleSystemError`, a failing iteration
:class:`~companion._checks.ConvergenceError`.  Posteriors and priors lie in
:data:`~companion.target_prior.DOMAIN`; the slopes searched are those of
:data:`SLOPE_RANGE` (the book's appendix *Numerical notes* says why).

The posteriors of Platt scaling, CSPD and 2-parameter QMM are evaluated as
:math:`F(a (x - x_k) + c)` around the score :math:`x_k` of the step (``_intercept``);
``params["b"]`` :math:`= c - a x_k` gives the paper's form :math:`F(a x + b)`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import log_expit, log_ndtr, ndtri

from .._checks import (
    ConvergenceError,
    as_real_array,
    check_int,
    check_option,
    check_tolerance,
)
from .._numerics import _expit
from .auc import _auc_from_class_masses, _midpoint_cdf
from .recalibration import (
    DOMAIN,
    InfeasibleSystemError,
    Recalibrated,
    _LINKS,
    _brent,
    _check_auc,
    _check_link,
    _check_residual,
    _check_in_domain,
    _check_solver,
    _posteriors_and_masses,
    _target_distribution,
    _solve_increasing,
)

__all__ = [
    "SLOPE_RANGE",
    "platt",
    "cspd",
    "cspd_auc_profile",
    "cspd_quantify",
    "ROC_QMM_ITERATIONS",
    "roc_qmm",
    "two_param_qmm",
]


# ---------------------------------------------------------------------------
# Sections 4.4-4.5: quasi moment matching with a two-parameter family F(a x + b)
# ---------------------------------------------------------------------------


#: The slopes the QMM methods search, as ``a * sd`` with ``sd`` the target standard deviation of the transformed
#: score: from a nearly flat map (1e-9) to a step at the resolution of the scores (1e6).
SLOPE_RANGE = (1e-9, 1e6)


def _target_sd(x: np.ndarray, f: np.ndarray) -> float:
    """The standard deviation of the scores ``x`` under the target masses ``f`` (scaled first: no underflow)."""
    dev = x - f @ x
    scale = float(np.max(np.abs(dev)))
    return scale * float(np.sqrt(f @ (dev / scale) ** 2)) if scale > 0.0 else 0.0


def _step_index(x: np.ndarray, f: np.ndarray, q: float) -> int:
    """Index k of the score x_k at which the target mass of the scores >= x_k first reaches q (the step's score)."""
    order = np.argsort(-x, kind="stable")
    return int(order[min(int(np.searchsorted(np.cumsum(f[order]), q)), x.size - 1)])


def _step_auc(x: np.ndarray, f: np.ndarray, q: float) -> float:
    """Implied AUC (13) of the step map, the limit a -> inf of the maps F(a x + b(a)) with target mean q.

    Its posterior is 1 above x_k (``_step_index``), 0 below, and x_k carries
    the rest: class-1 mass q - Q[S > x_k], class-0 mass (1 - q) - Q[S < x_k]
    (1 - q exact above q = 1/2).  The implied AUC of the family tends to it as a -> inf;
    ``_qmm`` refuses an AUC at or above it (see there for when that is right).
    """
    k = _step_index(x, f, q)
    above, below = x > x[k], x < x[k]
    grades, grade_of = np.unique(x, return_inverse=True)
    m1 = np.bincount(grade_of, weights=np.where(above, f, 0.0), minlength=grades.size)
    m0 = np.bincount(grade_of, weights=np.where(below, f, 0.0), minlength=grades.size)
    # the masses at x_k are in [0, Q[S = x_k]] exactly; max() only removes a rounding-level negative
    m1[grade_of[k]] = max(q - float(f[above].sum()), 0.0)
    m0[grade_of[k]] = max((1.0 - q) - float(f[below].sum()), 0.0)
    return _auc_from_class_masses(m1, m0)


def _intercept(x, f, q, a, link, *, xtol, max_iter) -> tuple[float, np.ndarray]:
    """The b solving E_Q[F(a x + b)] = q (increasing in b), and the arguments a x + b of F (posteriors F of them).

    The map is written F(a (x - x_k) + c) around the score x_k at which the
    target mass above reaches q (the step of the limit a -> inf), solved for c,
    and b = c - a x_k: the offsets a (x - x_k) carry a relative rounding error
    only, so the mean equation is met at every slope.  The search starts at
    whichever guess has the smaller residual: the linearisation
    c = F^{-1}(q) - E_Q[a (x - x_k)] (exact as a -> 0) or the step's
    c = F^{-1}((q - mass above x_k) / mass at x_k) (exact as a -> inf).
    Above q = 1/2 the equation is solved as the other class's mean,
    1 - q = E_Q[F(-(a x + b))] (F(-z) = 1 - F(z) for both links).
    """
    F, F_inv = _LINKS[link]
    k = _step_index(x, f, q)
    dx = a * (x - x[k])
    linear = float(F_inv(q)) - float(f @ dx)
    step_share = (q - float(f[x > x[k]].sum())) / float(f[x == x[k]].sum())  # in (0, 1] up to rounding
    step = float(F_inv(min(max(step_share, DOMAIN[0]), DOMAIN[1])))

    def excess(c: float) -> float:  # above 1/2 from the other class, 1 - q = E_Q[F(-z)]: q near 1 keeps its digits
        return float(f @ F(dx + c)) - q if q <= 0.5 else (1.0 - q) - float(f @ F(-(dx + c)))

    c0 = min((linear, step), key=lambda c: abs(excess(c)))
    c = _solve_increasing(excess, c0 - 1.0, c0 + 1.0, what=f"the target-mean equation for b (a = {a:.6g})",
                          xtol=xtol, max_iter=max_iter)
    return c - a * float(x[k]), dx + c


def _map_auc(x: np.ndarray, f: np.ndarray, z: np.ndarray, link: str) -> float:
    """Implied AUC (13) of the posteriors F(z), z increasing in the scores ``x`` (a grade per distinct score).

    The class masses f F(z) and f F(-z) = f (1 - F(z)) come from log F, so a
    posterior that underflows, and the complement of one within rounding of 1
    (a target prior near 1), still weigh in with their true sizes: from the
    rounded posteriors, 1 - F(z) would keep only the digits above the ulp of 1.
    """
    log_F = log_expit if link == "logistic" else log_ndtr
    grades, grade_of = np.unique(x, return_inverse=True)
    with np.errstate(divide="ignore"):
        log_f = np.log(f)
    l1, l0 = log_f + log_F(z), log_f + log_F(-z)
    m1 = np.bincount(grade_of, weights=np.exp(l1 - l1.max()), minlength=grades.size)
    m0 = np.bincount(grade_of, weights=np.exp(l0 - l0.max()), minlength=grades.size)
    return _auc_from_class_masses(m1, m0)


def _qmm(x, f, q, auc, link, *, what, xtol, max_iter) -> tuple[float, float, np.ndarray]:
    r"""Steps 2-4 of the box ``alg-tp-qmm``: mean :math:`q` and implied AUC ``auc`` for :math:`F(a x + b)`, ``a > 0``.

    For each slope ``a`` the intercept is fixed by the mean equation
    (``_intercept``); the implied AUC then increases from 1/2 (``a -> 0``)
    to the AUC of the step map (``a -> inf``, ``_step_auc``).  An ``auc`` at or
    above that limit is refused; that is right when the profile stays below its
    limit, as it does for the book's example (``fig-target-prior-auc-profile``) --
    not proven in general.  Brent's method on ``log a`` runs over :data:`SLOPE_RANGE`.
    """
    F = _LINKS[link][0]
    if np.ptp(x[f > 0.0]) == 0.0:  # includes a one-hot target mass: Q puts all its mass on one score value
        raise InfeasibleSystemError(
            f"{what} has no solution: under the target masses the score takes a single value, so every implied AUC is 1/2"
        )
    limit = _step_auc(x, f, q)
    if not auc < limit:
        raise InfeasibleSystemError(
            f"{what} has no solution: the implied AUC rises only to {limit:.6g} as a -> infinity (the AUC of the step "
            f"map), and auc = {auc!r} is not below it"
        )

    def fitted(log_a: float) -> tuple[float, np.ndarray]:  # step 2: b(a) from the mean equation
        return _intercept(x, f, q, float(np.exp(log_a)), link, xtol=xtol, max_iter=max_iter)

    def auc_gap(log_a: float) -> float:  # step 3: the implied AUC of F(a x + b(a)) minus auc
        return _map_auc(x, f, fitted(log_a)[1], link) - auc

    lo, hi = np.log(SLOPE_RANGE) - np.log(_target_sd(x, f))
    g_lo, g_hi = auc_gap(lo), auc_gap(hi)
    if not g_lo < 0.0 <= g_hi:
        raise InfeasibleSystemError(
            f"{what} has no solution with a slope in SLOPE_RANGE (a * sd from 1e-9 to 1e6): the implied AUC runs "
            f"from {auc + g_lo!r} to {auc + g_hi!r} there, and auc = {auc!r} is not inside"
        )
    log_a = _brent(auc_gap, lo, hi, what=f"the AUC equation of {what}", xtol=xtol, max_iter=max_iter)
    b, z = fitted(log_a)
    post = F(z)  # step 4
    _check_residual(float(f @ post), q, f"{what} (target mean)")
    _check_residual(_map_auc(x, f, z, link), auc, f"{what} (implied AUC)")
    return float(np.exp(log_a)), b, post


def _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter):
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q, auc = _check_in_domain(target_prior, "target_prior"), _check_auc(auc)
    return (eta, f, q, auc, *_check_solver(xtol, max_iter))


def platt(posteriors, target_masses, target_prior, auc, *, xtol: float = 1e-15, max_iter: int = 200) -> Recalibrated:
    r"""Platt scaling (8b), :math:`\eta_Q = 1/(1+e^{-(a\eta_P + b)})`, with :math:`a, b` from the QMM system (8c).

    The algorithm box ``alg-tp-qmm`` of the book with :math:`x = \eta_P` and the
    logistic link; the slope is searched in :data:`SLOPE_RANGE`.  Posteriors of a
    confident classifier that all lie within about 1e-4 standard deviations of one
    another need a larger slope: the system is then refused naming ``SLOPE_RANGE``,
    and :func:`cspd` (on the log-odds) solves it.

    Parameters
    ----------
    posteriors : array_like of float
        Source posteriors :math:`\eta_P(s)`, in :data:`~companion.target_prior.DOMAIN` = [1e-300, 1 - 2**-52].
    target_masses : array_like of float
        Target masses :math:`Q[S = s]` of the same values (summing to 1).
    target_prior : float
        The target prior :math:`q`, in :data:`~companion.target_prior.DOMAIN`.
    auc : float
        The AUC to keep, in (1/2, 1): usually the source AUC ``implied_auc(posteriors, source_masses)``.
    xtol, max_iter : float, int
        Brent's absolute tolerance (on :math:`\log a` and on the intercept) and iteration limit.

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``a`` and ``b``.

    Examples
    --------
    >>> fit = platt([0.1, 0.4, 0.8], [0.5, 0.3, 0.2], 0.5, 0.75)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["a"], 4)
    ([0.2857, 0.5952, 0.8929], 4.3387)
    """
    eta, f, q, auc, xtol, max_iter = _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter)
    a, b, post = _qmm(eta, f, q, auc, "logistic", what="system (8c) for Platt scaling", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": a, "b": b})


def cspd(
    posteriors, target_masses, target_prior, auc, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""Parametric CSPD (8a), :math:`\eta_Q = F(a F^{-1}(\eta_P) + b)`, with :math:`a, b` from (8c).

    The algorithm box ``alg-tp-qmm`` of the book with :math:`x = F^{-1}(\eta_P)`;
    the slope is searched in :data:`SLOPE_RANGE`.

    Parameters
    ----------
    posteriors : array_like of float
        Source posteriors :math:`\eta_P(s)`, in :data:`~companion.target_prior.DOMAIN` = [1e-300, 1 - 2**-52].
    target_masses : array_like of float
        Target masses :math:`Q[S = s]` of the same values (summing to 1).
    target_prior : float
        The target prior :math:`q`, in :data:`~companion.target_prior.DOMAIN`.
    auc : float
        The AUC to keep, in (1/2, 1): usually the source AUC ``implied_auc(posteriors, source_masses)``.
    link : {"logistic", "normal"}, default "logistic"
        :math:`F`: the logistic function (logistic CSPD) or :math:`\Phi` (normal CSPD).
    xtol, max_iter : float, int
        Brent's absolute tolerance (on :math:`\log a` and on the intercept) and iteration limit.

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``a``, ``b`` and ``link``.

    Examples
    --------
    >>> fit = cspd([0.1, 0.4, 0.8], [0.5, 0.3, 0.2], 0.5, 0.75)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["a"], 4)
    ([0.2803, 0.6187, 0.8712], 0.7965)
    """
    eta, f, q, auc, xtol, max_iter = _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter)
    link = _check_link(link)
    x = _LINKS[link][1](eta)  # step 1: the transformed score F^-1(eta_P)
    a, b, post = _qmm(x, f, q, auc, link, what=f"system (8c) for {link} CSPD", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": a, "b": b, "link": link})


def _check_slopes(slopes, sd: float) -> np.ndarray:
    """``slopes`` with every ``a * sd`` in :data:`SLOPE_RANGE`; else a ValueError naming ``slopes``."""
    slopes = as_real_array(slopes, "slopes")
    if not np.all((slopes * sd >= SLOPE_RANGE[0]) & (slopes * sd <= SLOPE_RANGE[1])):
        raise ValueError(f"slopes must lie in SLOPE_RANGE, a * sd in [1e-9, 1e6] with sd = {sd:.6g} the target "
                         f"standard deviation of F^-1(posteriors); got {slopes.min()!r} to {slopes.max()!r}")
    return slopes


def cspd_auc_profile(
    posteriors, target_masses, target_prior, slopes, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> np.ndarray:
    r"""Implied target AUC of :math:`F(a F^{-1}(\eta_P) + b(a))` for each slope ``a``, ``b(a)`` fixing the mean.

    Shows which AUCs the system (8c) can reach: one with no slope reaching
    it has no solution.  Every slope must lie in :data:`SLOPE_RANGE` (as ``a * sd``,
    ``sd`` the target standard deviation of :math:`F^{-1}(\eta_P)`).
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q = _check_in_domain(target_prior, "target_prior")
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    x = _LINKS[link][1](eta)
    slopes = _check_slopes(slopes, _target_sd(x, f))
    out = np.empty(slopes.size)
    for i, a in enumerate(slopes):  # one root per slope (a handful of slopes)
        out[i] = _map_auc(x, f, _intercept(x, f, q, float(a), link, xtol=xtol, max_iter=max_iter)[1], link)
    return out


def cspd_quantify(
    posteriors, target_masses, auc, link: str = "logistic", *, xtol: float = 1e-15, max_iter: int = 200
) -> Recalibrated:
    r"""One-parameter CSPD quantifier of Remark 1: solve (9a) for :math:`a` with :math:`b = 0`, then (9b).

    Returns the target posteriors :math:`F(a F^{-1}(\eta_P))` and, in
    ``params["prior_estimate"]``, :math:`\hat q = E_Q[F(a F^{-1}(\eta_P))]`.
    The slope is searched by Brent's method from ``a = 1``, widening the bracket
    by doubling; a solution whose :math:`\hat q` leaves
    :data:`~companion.target_prior.DOMAIN` is refused, naming ``posteriors``.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    auc = _check_auc(auc)
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    F, F_inv = _LINKS[link]
    x = F_inv(eta)
    what = f"eq. (9a) for {link} one-parameter CSPD"

    def auc_gap(log_a: float) -> float:
        return _map_auc(x, f, np.exp(log_a) * x, link) - auc

    a = float(np.exp(_solve_increasing(auc_gap, -1.0, 0.0, what=what, xtol=xtol, max_iter=max_iter)))
    post = F(a * x)
    _check_residual(_map_auc(x, f, a * x, link), auc, f"{what} (implied AUC)")
    prior_estimate = float(f @ post)
    if not DOMAIN[0] <= prior_estimate <= DOMAIN[1]:
        raise ValueError(f"posteriors give a quantified prior of {prior_estimate!r} for {what}, outside the "
                         "domain [1e-300, 1 - 2**-52] of the target-prior methods")
    return Recalibrated(post, {"a": a, "prior_estimate": prior_estimate, "link": link})


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
    probit: np.ndarray  # Phi^-1(G*) of the class-0 masses rescaled to total 1 (the score of 2-parameter QMM)


def _midpoint_probit(masses: np.ndarray) -> np.ndarray:
    r""":math:`\Phi^{-1}(G^*)` of masses summing to 1, each tail read from its own end of the support.

    Above :math:`G^* = 1/2` the value is :math:`-\Phi^{-1}(1 - G^*)` with
    :math:`1 - G^*(s_i) = \sum_{j \ge i}\pi_j - \pi_i/2` summed from the top: a
    sum from below rounds :math:`G^*` to 1 once the upper tail falls under
    :math:`2^{-53}` (class-0 masses of a target prior near 1, (10b)-(11b)).
    """
    lower = _midpoint_cdf(masses)
    upper = np.cumsum(masses[::-1])[::-1] - 0.5 * masses
    return np.where(lower <= 0.5, ndtri(np.minimum(lower, 0.5)), -ndtri(np.minimum(upper, 0.5)))


def _roc_intercept(q: float, c: float) -> float:
    """The intercept of the log-odds (10b), logit q - c^2/2 (the slope c multiplies Phi^-1(G*))."""
    return float(np.log(q / (1.0 - q)) - 0.5 * c * c)


def _roc_probit(class0_masses: np.ndarray, *, raw_cdf: bool = False) -> np.ndarray:
    r""":math:`\Phi^{-1}(G^*)` of eq. (10b) from the class-0 masses (the log-odds are ``_roc_intercept`` + c times it).

    ``raw_cdf=False`` takes :math:`G^*` of the masses rescaled to total 1
    (a distribution function, both tails accurate); ``raw_cdf=True`` accumulates
    it from below from the masses as they are.
    """
    if raw_cdf:
        F0 = _midpoint_cdf(class0_masses)
        if np.any((F0 <= 0.0) | (F0 >= 1.0)):
            raise ConvergenceError(
                "ROC-QMM fixed-point iteration (11b) left the domain of Phi^-1: the class-0 masses sum to "
                f"{class0_masses.sum():.6g}, so the mid-point distribution function accumulated from them reaches "
                f"{F0.max():.6g} >= 1 (take G* of the normalized masses: iteration='literal' or 'normalized')"
            )
        return ndtri(F0)
    return _midpoint_probit(class0_masses / class0_masses.sum())


def _roc_step(f0: np.ndarray, f: np.ndarray, q: float, c: float, iteration: str) -> np.ndarray:
    r"""One step of (11b) in the reading ``iteration`` (see :data:`ROC_QMM_ITERATIONS`): step 2 of ``alg-tp-roc-qmm``.

    The class-0 factor :math:`1 - \eta` of (10b) is :math:`\mathrm{expit}(-a)`: ``1 - expit(a)``
    keeps no digit of it once :math:`\eta` is within :math:`2^{-53}` of 1.
    """
    new = f * _expit(-(_roc_intercept(q, c) + c * _roc_probit(f0, raw_cdf=iteration == "literal-raw")))
    return new / new.sum() if iteration == "normalized" else new / (1.0 - q)


def _roc_iterates(f, q, c, iteration):
    """The steps of (11b) from f0 = f, without end, as ``(previous, new)`` class-0 masses.

    A class-0 mass f (1 - eta) below :data:`~companion.target_prior.DOMAIN`'s 1e-300 (where f > 0) is refused with a
    ValueError: such a mass is a subnormal product with bits lost, outside the domain of :func:`roc_qmm`.
    """
    mass, f0 = f > 0.0, f
    while True:
        new = _roc_step(f0, f, q, c, iteration)
        if np.any(mass & (new < DOMAIN[0])):
            raise ValueError(
                "target_masses, target_prior and auc put a class-0 mass f (1 - eta) of (11b) below 1e-300, outside "
                f"the domain of roc_qmm (target_prior = {q!r}, c = {c:.6g}; smallest target mass {f[mass].min()!r})"
            )
        yield f0, new
        f0 = new


def _roc_change(previous: np.ndarray, new: np.ndarray) -> tuple[float, float]:
    """A step's largest change of a class-0 mass, and largest change relative to the new mass."""
    step = np.abs(new - previous)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.max(step)), float(np.max(np.where(step > 0.0, step / new, 0.0)))


def _roc_fixed_point(f, q, c, *, iteration, tol, max_iter) -> _RocFixedPoint:
    """Iterate (11b) from f0 = f until every class-0 mass changes by at most ``tol`` of itself (``alg-tp-roc-qmm``).

    ``changes`` records the sup-norm change per step; the stopping rule is relative, so that the class-0
    masses of the top scores, far below ``tol`` when the target prior is near 1, converge too.
    """
    raw = iteration == "literal-raw"
    changes = []
    for previous, new in _roc_iterates(f, q, c, iteration):  # step 2, sequential by nature
        change, relative = _roc_change(previous, new)
        changes.append(change)
        if relative <= tol:  # step 3: the posteriors (10b) of the final class-0 masses
            probit = _roc_probit(new, raw_cdf=raw)
            return _RocFixedPoint(new, _expit(_roc_intercept(q, c) + c * probit), np.array(changes),
                                  None if raw else probit)
        if len(changes) == max_iter:
            raise ConvergenceError(
                f"ROC-QMM fixed-point iteration (11b) did not converge: after max_iter = {max_iter} iterations the "
                f"class-0 masses still change by {relative:.3g} of themselves > tol = {tol:g}"
            )


def _roc_inputs(target_masses, target_prior, auc, iteration) -> tuple[np.ndarray, float, float]:
    """Checked target masses, prior and binormal parameter c = sqrt(2) Phi^-1(AUC), eq. (10c) (step 1)."""
    f = _target_distribution(target_masses)
    q = _check_in_domain(target_prior, "target_prior")
    auc = _check_auc(auc)
    check_option(iteration, "iteration", ROC_QMM_ITERATIONS)
    if f[-1] <= 0.0 or f[0] <= 0.0:
        raise ValueError(
            "target_masses must be positive at the lowest and highest score (the mid-point cdf must lie in (0, 1))"
        )
    return f, q, float(np.sqrt(2.0) * ndtri(auc))


def roc_qmm(
    target_masses, target_prior, auc, *, iteration: str = "normalized", tol: float = 1e-12, max_iter: int = 10_000
) -> Recalibrated:
    r"""ROC-based QMM, eqs. (10b)-(10c), with the fixed-point iteration (11b) for the class-0 masses.

    The algorithm box ``alg-tp-roc-qmm`` of the book: with
    :math:`c = \sqrt2\,\Phi^{-1}(\mathrm{AUC})`, iterate :math:`f_0 \leftarrow f\,(1 - \eta(f_0))`,
    :math:`\eta(f_0)` the posterior (10b) with the mid-point distribution function of
    :math:`f_0`, until every class-0 mass changes by at most ``tol`` of itself.
    The error left is then about ``tol`` :math:`/(1 - \lambda_J)` relative,
    :math:`\lambda_J` the spectral radius of the Jacobian (:func:`roc_qmm_jacobian`).

    Parameters
    ----------
    target_masses : array_like of float
        Target masses in increasing order of the score (summing to 1; positive at both ends).
    target_prior : float
        The target prior :math:`q`, in :data:`~companion.target_prior.DOMAIN`.
    auc : float
        The AUC to keep, in (1/2, 1).
    iteration : {"normalized", "literal", "literal-raw"}, default "normalized"
        The reading of (11b) (:data:`ROC_QMM_ITERATIONS`): ``"literal"`` gives the same
        fixed point up to the total mass of :math:`f_0` (``prop-tp-literal-iteration``);
        ``"literal-raw"`` fails once the masses sum to more than 1.
    tol : float, default 1e-12
        The relative change of every class-0 mass at which the iteration stops.
    max_iter : int, default 10000
        The iteration limit (a slowly contracting case can take thousands of steps).

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``c``, ``class0_masses`` and
        ``changes`` (the sup-norm change per iteration).

    Examples
    --------
    >>> fit = roc_qmm([0.2, 0.5, 0.3], 0.3, 0.75)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["c"], 4)
    ([0.0833, 0.2204, 0.4685], 0.9539)
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, iteration)
    tol = check_tolerance(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    fp = _roc_fixed_point(f, q, c, iteration=iteration, tol=tol, max_iter=max_iter)
    return Recalibrated(fp.posteriors, {"c": c, "class0_masses": fp.class0_masses, "changes": fp.changes})


def two_param_qmm(
    target_masses, target_prior, auc, *, tol: float = 1e-12, xtol: float = 1e-15, max_iter: int = 10_000
) -> Recalibrated:
    r"""2-parameter QMM, eqs. (12a)-(12b): :math:`\eta_Q = 1/(1+\exp(b + a\,\Phi^{-1}(F_0^*)))`.

    The algorithm box ``alg-tp-two-param`` of the book: :math:`F_0^*` is the
    mid-point distribution function of the class-0 masses found by
    :func:`roc_qmm`; :math:`a, b` solve mean :math:`= q` and implied AUC
    :math:`=` ``auc`` exactly (``a < 0`` for an increasing posterior), by the
    steps of ``alg-tp-qmm`` (slopes in :data:`SLOPE_RANGE`).

    Parameters
    ----------
    target_masses, target_prior, auc
        As for :func:`roc_qmm`.
    tol : float, default 1e-12
        The stopping tolerance of the fixed-point iteration.
    xtol, max_iter : float, int
        Brent's absolute tolerance and the iteration limit (of both the iteration and Brent's method).

    Returns
    -------
    Recalibrated
        ``posteriors`` :math:`\eta_Q`; ``params``: ``a``, ``b`` and ``class0_masses``.

    Examples
    --------
    >>> fit = two_param_qmm([0.2, 0.5, 0.3], 0.3, 0.75)
    >>> [round(float(v), 4) for v in fit.posteriors], round(fit.params["a"], 4)
    ([0.0532, 0.2226, 0.5936], -1.3671)
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, "normalized")
    auc = _check_auc(auc)
    tol = check_tolerance(tol, "tol")
    xtol, max_iter = _check_solver(xtol, max_iter)
    fp = _roc_fixed_point(f, q, c, iteration="normalized", tol=tol, max_iter=max_iter)  # step 1
    x = fp.probit  # step 2: Phi^-1(G*(f0))
    a, b, post = _qmm(x, f, q, auc, "logistic", what="system (12b) for 2-parameter QMM", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": -a, "b": -b, "class0_masses": fp.class0_masses})  # step 4
