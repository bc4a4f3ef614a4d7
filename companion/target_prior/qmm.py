"""Quasi moment matching (paper 003, section 3): Platt scaling, CSPD, ROC QMM and two-parameter QMM.

Each method matches the target prior and the implied AUC (eq. (8c) and its
variants); a system without solution raises
:class:`~companion.target_prior.InfeasibleSystemError`, a failing iteration
:class:`~companion._checks.ConvergenceError`.

The methods that match an implied AUC need a target prior (given, or estimated
by :func:`cspd_quantify`) of at least the smallest normal float
:data:`MIN_AUC_PRIOR` :math:`= 2^{-1022}`: the posteriors average to the prior,
and each is rounded to an absolute :math:`2^{-1074}` below that size, which
is at most :math:`2^{-52}` of their total only from :math:`2^{-1022}` on; below
it the implied AUC (13) has no accuracy left to match.  Just above it the
posteriors of the lowest scores can underflow to 0; Platt, CSPD and
2-parameter QMM take the class masses of the implied AUC from log F, so such a
system is still solved (``1e-300``; posteriors below the smallest subnormal float, such as ``1e-358`` in
exact arithmetic, come back as 0).  At such priors the posteriors :math:`F(a x + b)` carry the rounding
of the fitted intercept (:math:`|b|` near 690 at ``1e-300``): about :math:`10^{-13}` relative, the
accuracy of the map with float parameters (ROC QMM's log-odds likewise), while the problem's
condition number is of order 1.

The posteriors of Platt scaling, CSPD and 2-parameter QMM are evaluated as
:math:`F(a (x - x_k) + c)` around the score :math:`x_k` of the step (``_intercept``), accurate at
any slope; ``params["b"]`` :math:`= c - a x_k` gives the paper's form :math:`F(a x + b)`, which
reproduces them only up to the rounding of :math:`a x + b`: where :math:`a x` and :math:`b` cancel
(a slope of 1e14 with scores within 1e-6 of each other) that form can be off by a per cent or more; the
returned posteriors are not.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import log_expit, log_ndtr, logsumexp, ndtri, ndtri_exp

from .._checks import (
    ConvergenceError,
    as_real_array,
    check_int,
    check_open_unit,
    check_option,
    check_tolerance,
)
from .._numerics import _expit
from .auc import _auc_from_class_masses, _midpoint_cdf
from .recalibration import (
    InfeasibleSystemError,
    Recalibrated,
    _LINKS,
    _brent,
    _check_auc,
    _check_link,
    _check_residual,
    _check_solver,
    _posteriors_and_masses,
    _target_distribution,
    _solve_increasing,
)

__all__ = [
    "MIN_AUC_PRIOR",
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


#: Smallest target prior of the AUC-matching methods: the smallest normal float (see the module docstring).
MIN_AUC_PRIOR = float(np.finfo(float).tiny)


def _check_auc_prior(q: float, name: str) -> float:
    """``q`` if it is at least :data:`MIN_AUC_PRIOR`; else a ValueError naming ``name`` and the rule."""
    if q < MIN_AUC_PRIOR:
        raise ValueError(
            f"{name} must be at least the smallest normal float {MIN_AUC_PRIOR!r} for a method that matches an implied "
            f"AUC, got {q!r}: below it the posteriors, whose mean it is, are subnormal and the AUC (13) has no accuracy"
        )
    return q


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
    only, so the mean equation is met at every slope (a x + b would lose the
    ulp of a x).  The search starts at whichever guess has the smaller residual:
    the linearisation c = F^{-1}(q) - E_Q[a (x - x_k)] (exact as a -> 0) or
    the step's c = F^{-1}((q - mass above x_k) / mass at x_k) (exact as a -> inf).
    Above q = 1/2 the equation is solved as the other class's mean, 1 - q = E_Q[F(-(a x + b))]
    (F(-z) = 1 - F(z) for both links), where 1 - q is exact in floats.
    """
    F, F_inv = _LINKS[link]
    what = f"the target-mean equation for b (a = {a:.6g})"
    k = _step_index(x, f, q)
    at = x == x[k]
    with np.errstate(over="ignore", invalid="ignore"):
        dx = a * (x - x[k])
        linear = float(F_inv(q)) - float(f @ dx)
    step_share = (q - float(f[x > x[k]].sum())) / float(f[at].sum())  # in (0, 1] up to rounding
    step = float(F_inv(min(max(step_share, MIN_AUC_PRIOR), 1.0 - 2.0**-53)))  # a start only: kept finite

    def excess(c: float) -> float:  # above 1/2 from the other class, 1 - q = E_Q[F(-z)]: q near 1 keeps its digits
        return float(f @ F(dx + c)) - q if q <= 0.5 else (1.0 - q) - float(f @ F(-(dx + c)))

    guesses = [c for c in (linear, step) if np.isfinite(c)]
    c0 = min(guesses, key=lambda c: abs(excess(c)))
    half = max(1.0, abs(c0) * 2.0**-40)  # a bracket wider than the rounding of c0 (|c0| reaches 1e19 at a = 1e20)
    # at a huge slope the guess may lie 1e50 from the root: bisection across the float range takes up to 2,100 halvings
    c = _solve_increasing(excess, c0 - half, c0 + half, what=what, xtol=xtol, max_iter=max(max_iter, 2200))
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
    r"""Solve a QMM system like (8c): mean :math:`q` and implied AUC ``auc`` for :math:`F(a x + b)`, ``a > 0``.

    For each slope ``a`` the intercept is fixed by the mean equation
    (``_intercept``); the implied AUC then increases from 1/2 (``a -> 0``)
    to the AUC of the step map (``a -> inf``, ``_step_auc``): by continuity every ``auc``
    between has a solution, unique where the AUC increases in ``a``.  An ``auc`` at or above
    the limit is refused; that is right when the profile stays below its limit, as it does
    for the book's example (``fig-target-prior-auc-profile``) -- not proven in general.  From a nearly flat map
    (``a sd = 1e-3``) ``log a`` is bracketed downwards by the small-slope
    expansion AUC - 1/2 ~ const * a, or upwards by doubling ``a`` (as often as the float range
    allows, beyond ``max_iter``); then
    Brent's method.  The AUC comes from log F (``_map_auc``): a posterior
    rounding to 0 or 1 is no failure.
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

    def fitted(log_a: float) -> tuple[float, np.ndarray]:
        return _intercept(x, f, q, float(np.exp(log_a)), link, xtol=xtol, max_iter=max_iter)

    def auc_gap(log_a: float) -> float:
        return _map_auc(x, f, fitted(log_a)[1], link) - auc

    dev = x - f @ x
    spread = float(np.sqrt(f @ dev**2))  # the scores' sd under the target masses; a * sd = 1e-3 is a nearly flat map
    if spread < 1e-150:  # the square underflows (tiny scores): the log of the same sd, scaled first (the sd itself
        scale = float(np.max(np.abs(dev[f > 0.0])))  # may round to 0 at a subnormal spread)
        lo = np.log(1e-3) - np.log(scale) - 0.5 * np.log(float(f @ (dev / scale) ** 2))
    else:
        lo = np.log(1e-3 / spread)
    hi, step = lo, np.log(2.0)
    # the largest slope: a and a * (x - x_k) finite (a factor 2 below the largest float, for rounding)
    log_top = np.log(np.finfo(float).max) - max(0.0, np.log(float(np.ptp(x)))) - np.log(2.0)
    lo = hi = min(lo, log_top)  # scores a few subnormal ulps apart: start at the largest slope, not at a = inf
    g_lo = g_hi = auc_gap(lo)
    # max_iter steps, plus the doublings of a from lo to the top of the float range (up to about 2000)
    steps = max_iter + int(np.ceil(max(log_top - lo, 0.0) / np.log(2.0)))
    for _ in range(steps):
        if g_lo < 0.0 <= g_hi:
            break
        if g_lo >= 0.0:  # too steep: jump to half the root of AUC - 1/2 ~ const * a (auc - 1/2 < g_lo + auc - 1/2)
            hi, g_hi = lo, g_lo
            lo += np.log((auc - 0.5) / (g_lo + auc - 0.5)) - np.log(2.0)
            g_lo = auc_gap(lo)
        else:  # too flat: double a, and square the factor while the implied AUC does not move (a plateau)
            if hi >= log_top:
                raise InfeasibleSystemError(
                    f"{what} has no solution in the float range: the implied AUC stays at {auc + g_lo!r}, below "
                    f"auc = {auc!r}, for every slope a up to {np.exp(hi):.6g}"
                )
            lo, g_lo = hi, g_hi
            hi = min(hi + step, log_top)
            g_hi = auc_gap(hi)
            step = 2.0 * step if g_hi <= g_lo else np.log(2.0)
            if g_hi <= g_lo and limit - auc - g_lo <= 64 * np.finfo(float).eps:  # within rounding of the limit
                raise InfeasibleSystemError(
                    f"{what} has no solution in floating point: the implied AUC stops increasing at {auc + g_lo!r} "
                    f"(a = {np.exp(lo):.6g}), {limit - auc - g_lo:.3g} below its limit {limit!r} and short of auc = {auc!r}"
                )
    else:
        side = f"down to a = {np.exp(lo):.6g} stays at {auc + g_lo!r}, not below" if g_lo >= 0.0 else (
            f"up to a = {np.exp(hi):.6g} stays below")
        raise InfeasibleSystemError(
            f"{what} was not bracketed in {steps} steps (max_iter = {max_iter} and the doublings of a to the float "
            f"range's top): the implied AUC {side} auc = {auc!r}"
        )
    log_a = _brent(auc_gap, lo, hi, what=f"the AUC equation of {what}", xtol=xtol, max_iter=max_iter)
    b, z = fitted(log_a)
    post = F(z)
    _check_residual(float(f @ post), q, f"{what} (target mean)")
    _check_residual(_map_auc(x, f, z, link), auc, f"{what} (implied AUC)")
    return float(np.exp(log_a)), b, post


def _qmm_inputs(posteriors, target_masses, target_prior, auc, xtol, max_iter):
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q, auc = _check_auc_prior(check_open_unit(target_prior, "target_prior"), "target_prior"), _check_auc(auc)
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
    it has no solution.  Any positive slope is accepted: the intercept is
    solved around the step of the limiting map (see ``_intercept``), so the
    profile rises to the AUC of that step.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    q = _check_auc_prior(check_open_unit(target_prior, "target_prior"), "target_prior")
    slopes = as_real_array(slopes, "slopes")
    if np.any(slopes <= 0):
        raise ValueError("slopes must be positive")
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    x = _LINKS[link][1](eta)
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
    The implied AUC of the map is evaluated in logs where a posterior
    underflows or rounds to 1 (``_map_auc``), so such a posterior is returned
    as its rounded value (0 or 1); a solution whose :math:`\hat q` is below
    :data:`MIN_AUC_PRIOR` (posteriors near ``1e-300``) is refused, naming
    ``posteriors``, by the rule of the module docstring.
    """
    eta, f = _posteriors_and_masses(posteriors, target_masses)
    auc = _check_auc(auc)
    link = _check_link(link)
    xtol, max_iter = _check_solver(xtol, max_iter)
    F, F_inv = _LINKS[link]
    x = F_inv(eta)
    what = f"eq. (9a) for {link} one-parameter CSPD"
    spread = float(np.max(np.abs(x)))

    def auc_gap(log_a: float) -> float:
        a = float(np.exp(log_a))
        if not np.isfinite(a * spread):
            raise InfeasibleSystemError(
                f"{what} has no solution: the implied AUC of F(a x) stays below auc = {auc!r} for every a up to the float range"
            )
        return _map_auc(x, f, a * x, link) - auc

    log_a = _solve_increasing(auc_gap, -1.0, 0.0, what=what, xtol=xtol, max_iter=max_iter)
    a = float(np.exp(log_a))
    post = F(a * x)
    _check_residual(_map_auc(x, f, a * x, link), auc, f"{what} (implied AUC)")
    prior_estimate = float(f @ post)
    if prior_estimate < MIN_AUC_PRIOR:
        raise ValueError(
            f"posteriors are so close to 0 that the quantified prior of {what} is {prior_estimate!r}, below the smallest "
            f"normal float {MIN_AUC_PRIOR!r}: the target posteriors are subnormal or 0 and carry no AUC"
        )
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


def _log_midpoint_probit(log_masses: np.ndarray, *, raw_cdf: bool = False) -> np.ndarray:
    r""":math:`\Phi^{-1}(G^*)` from the logs of the masses (``-inf`` for a zero mass), each tail from its own end.

    :math:`\log G^*` comes from running log-sums (``logaddexp.accumulate``) and :math:`\Phi^{-1}` from
    ``ndtri_exp``, so masses far below the float range (class-0 masses of 1e-400) keep their digits.
    ``raw_cdf=True`` accumulates :math:`G^*` from the masses as they are (the ``"literal-raw"`` reading).
    """
    half = log_masses - np.log(2.0)
    below = np.concatenate(([-np.inf], np.logaddexp.accumulate(log_masses)[:-1]))
    above = np.concatenate((np.logaddexp.accumulate(log_masses[::-1])[::-1][1:], [-np.inf]))
    total = 0.0 if raw_cdf else float(logsumexp(log_masses))
    log_lower, log_upper = np.logaddexp(below, half) - total, np.logaddexp(above, half) - total
    if raw_cdf:
        if np.any(log_lower >= 0.0):
            raise ConvergenceError(
                "ROC-QMM fixed-point iteration (11b) left the domain of Phi^-1: the class-0 masses sum to "
                f"{float(np.exp(logsumexp(log_masses))):.6g}, so the mid-point distribution function accumulated "
                "from them reaches 1 or more (take G* of the normalized masses: iteration='literal' or 'normalized')"
            )
        return ndtri_exp(log_lower)
    half_log = np.log(0.5)
    return np.where(log_lower <= half_log, ndtri_exp(np.minimum(log_lower, half_log)),
                    -ndtri_exp(np.minimum(log_upper, half_log)))


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
    if not (class0_masses[0] > 0.0 and class0_masses[-1] > 0.0):
        raise ConvergenceError(
            "ROC-QMM fixed-point iteration (11b): the class-0 mass at the "
            f"{'lowest' if class0_masses[0] <= 0.0 else 'highest'} score underflowed to 0, so Phi^-1 of the "
            "mid-point distribution function is infinite there (target_masses that small there, or a "
            "target_prior that close to 0 or 1, put the fixed point beyond the float range for this auc)"
        )
    return _midpoint_probit(class0_masses / class0_masses.sum())


def _roc_step(f0: np.ndarray, f: np.ndarray, q: float, c: float, iteration: str) -> np.ndarray:
    r"""One step of (11b) in the reading ``iteration`` (see :data:`ROC_QMM_ITERATIONS`).

    The class-0 factor :math:`1 - \eta` of (10b) is :math:`\mathrm{expit}(-a)`: ``1 - expit(a)``
    keeps no digit of it once :math:`\eta` is within :math:`2^{-53}` of 1.
    """
    new = f * _expit(-(_roc_intercept(q, c) + c * _roc_probit(f0, raw_cdf=iteration == "literal-raw")))
    return new / new.sum() if iteration == "normalized" else new / (1.0 - q)


#: Below this a class-0 mass f (1 - eta) may be a subnormal product with bits lost: the iteration then runs in logs.
_ROC_LOG_ROUTE_BELOW = 2.0**-1000


def _roc_step_in_logs(log_g: np.ndarray, log_f: np.ndarray, mass: np.ndarray, q: float, c: float,
                      iteration: str) -> np.ndarray:
    """:func:`_roc_step` on the logs of the class-0 masses: log f + log expit(-a), rescaled by a log-sum."""
    log_odds = _roc_intercept(q, c) + c * _log_midpoint_probit(log_g, raw_cdf=iteration == "literal-raw")
    new = log_f + log_expit(-log_odds)
    return new - float(logsumexp(new[mass])) if iteration == "normalized" else new - np.log1p(-q)


def _roc_iterates(f, q, c, iteration):
    """The steps of (11b) from f0 = f, without end, as ``(in_logs, previous, new)``: class-0 masses, or their logs.

    The steps are taken on the masses while every target mass and iterate stays at or above
    ``_ROC_LOG_ROUTE_BELOW``; where one falls below it they start over from f0 = f on the logs of the masses
    (``_roc_step_in_logs``).
    """
    mass = f > 0.0
    if not np.any(mass & (f < _ROC_LOG_ROUTE_BELOW)):
        f0 = f.copy()
        while not np.any(mass & ((new := _roc_step(f0, f, q, c, iteration)) < _ROC_LOG_ROUTE_BELOW)):
            yield False, f0, new
            f0 = new
    with np.errstate(divide="ignore"):
        log_f = np.log(f)
    log_g = log_f.copy()
    while True:
        new = _roc_step_in_logs(log_g, log_f, mass, q, c, iteration)
        yield True, log_g, new
        log_g = new


def _roc_change(in_logs: bool, previous: np.ndarray, new: np.ndarray, mass: np.ndarray) -> tuple[float, float]:
    """A step's largest change of a class-0 mass, and largest change relative to the new mass (``expm1`` in logs)."""
    if in_logs:
        return (float(np.max(np.abs(np.exp(new[mass]) - np.exp(previous[mass])))),
                float(np.max(np.abs(np.expm1(new[mass] - previous[mass])))))
    step = np.abs(new - previous)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.max(step)), float(np.max(np.where(step > 0.0, step / np.abs(new), 0.0)))


def _roc_fixed_point(f, q, c, *, iteration, tol, max_iter) -> _RocFixedPoint:
    """Iterate (11b) from f0 = f until every class-0 mass changes by at most ``tol`` of itself.

    ``changes`` records the sup-norm change per step; the stopping rule is relative, so that the class-0
    masses of the top scores, far below ``tol`` when the target prior is near 1, converge too.  Where a
    target mass or an iterate falls below ``_ROC_LOG_ROUTE_BELOW`` the iteration starts over on the logs of
    the masses (``_roc_iterates``); the class-0 masses it returns may then underflow to 0, the posteriors not.
    """
    raw = iteration == "literal-raw"
    mass = f > 0.0
    changes, route = [], None
    for in_logs, previous, new in _roc_iterates(f, q, c, iteration):  # sequential by nature
        if in_logs is not route:  # the log route starts over from f
            changes, route = [], in_logs
        change, relative = _roc_change(in_logs, previous, new, mass)
        changes.append(change)
        if relative <= tol:
            probit = (_log_midpoint_probit if in_logs else _roc_probit)(new, raw_cdf=raw)
            return _RocFixedPoint(np.exp(new) if in_logs else new, _expit(_roc_intercept(q, c) + c * probit),
                                  np.array(changes), None if raw else probit)
        if len(changes) == max_iter:
            raise ConvergenceError(
                f"ROC-QMM fixed-point iteration (11b) did not converge: after max_iter = {max_iter} iterations the "
                f"class-0 masses still change by {relative:.3g} of themselves > tol = {tol:g}"
            )


def _roc_inputs(target_masses, target_prior, auc, iteration) -> tuple[np.ndarray, float, float]:
    """Checked target masses, prior and binormal parameter c = sqrt(2) Phi^-1(AUC), eq. (10c)."""
    f = _target_distribution(target_masses)
    q = check_open_unit(target_prior, "target_prior")
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
    which fails once the masses sum to more than 1.  The iteration stops
    when every class-0 mass changes by at most ``tol`` of itself (a relative
    rule: near a target prior of 1 the masses of the top scores lie far below
    any absolute ``tol``); ``params["changes"]`` holds the sup-norm change per
    iteration.  The error left is then about ``tol`` :math:`/(1 - \lambda_J)`
    relative, :math:`\lambda_J` the spectral radius of the Jacobian
    (:func:`roc_qmm_jacobian`); a slowly contracting case (:math:`\lambda_J`
    near 1) can take thousands of steps, hence the default ``max_iter``.  A ``tol`` within a few ulps of 0 may not be reached (the
    changes then are rounding noise), and the number of iterations depends on
    the last bits of the input near that floor.
    For a discrete score the target mean and AUC are met only approximately.
    A target prior within rounding of 1 converges too: :math:`1-\eta` is
    computed as :math:`\mathrm{expit}(-a)` and :math:`\Phi^{-1}(G^*)` of the
    top scores from the upper tail (``_midpoint_probit``); the posteriors are
    then floats next to 1, and ``params["class0_masses"]`` (proportional to
    :math:`f\,(1-\eta)`) keeps the digits of :math:`1-\eta`.  Where a target
    mass or a class-0 mass falls below :math:`2^{-1000}` (a product that would
    be subnormal) the iteration runs on the logs of the masses
    (``_roc_iterates``); class-0 masses beyond the float range then
    come back as 0 or subnormal, and the posteriors are right.  On that route
    the changes bottom out near :math:`|\log m|\,2^{-52}` for the smallest mass
    :math:`m` (1.6e-13 near 1e-308), so a ``tol`` below that is not reached.
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

    :math:`F_0^*` is the mid-point distribution function of the class-0 masses
    found by :func:`roc_qmm` (:math:`\Phi^{-1}` of it with both tails accurate,
    ``_midpoint_probit``); :math:`a, b` solve mean :math:`= q` and implied
    AUC :math:`=` ``auc`` exactly (``a < 0`` for an increasing posterior);
    ``target_prior`` at least :data:`MIN_AUC_PRIOR` (module docstring).
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, "normalized")
    q = _check_auc_prior(q, "target_prior")
    auc = _check_auc(auc)
    tol = check_tolerance(tol, "tol")
    xtol, max_iter = _check_solver(xtol, max_iter)
    fp = _roc_fixed_point(f, q, c, iteration="normalized", tol=tol, max_iter=max_iter)
    f0, x = fp.class0_masses, fp.probit
    a, b, post = _qmm(x, f, q, auc, "logistic", what="system (12b) for 2-parameter QMM", xtol=xtol, max_iter=max_iter)
    return Recalibrated(post, {"a": -a, "b": -b, "class0_masses": f0})
