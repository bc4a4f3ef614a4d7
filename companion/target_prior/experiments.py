"""Drivers for recalibration to a target prior (paper 003): Table 1, Figures 1-2, the ROC-QMM iteration, Remark 1.

The book's chapter "Recalibrating to a target prior without target labels"
(``chap-target-prior``) plots and prints what these drivers return.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import log_expit

from .._checks import (
    ConvergenceError,
    as_masses,
    as_probabilities,
    as_real_array,
    as_rng,
    as_sizes,
    check_int,
    check_memory,
    check_positive,
    check_same_length,
    check_tolerance,
)
from .._memo import memoised
from .._numerics import _expit
from ..scenarios import RatingScaleExample
from .auc import empirical_distribution, implied_auc
from .qmm import (
    _midpoint_probit, _roc_change, _roc_inputs, _roc_intercept, _roc_iterates, cspd,
    cspd_quantify, platt, roc_qmm, two_param_qmm,
)
from .recalibration import DOMAIN, InfeasibleSystemError, _check_auc, capped_scaling, fjs, label_shift

__all__ = [
    "roc_qmm_trace",
    "roc_qmm_jacobian",
    "TASCHE_TABLE1_PAPER",
    "QMM_METHODS",
    "Table1Row",
    "AucSums",
    "RocConvergence",
    "LiteralOutcome",
    "tasche_recalibrations",
    "tasche_table1",
    "tasche_figure1",
    "tasche_figure2",
    "eq13_as_printed",
    "table1_auc_sums",
    "roc_qmm_convergence",
    "literal_iteration_study",
    "auc_sensitivity",
    "remark1_quantification",
    "sampled_table1",
]


#: Table 1 of paper 003 as printed: method -> (mean(probs), AUC, mean(sqrt(probs))).
TASCHE_TABLE1_PAPER = {
    "Source": (0.010, 0.802, 0.084),
    "Capped scaling": (0.050, 0.950, 0.132),
    "Label shift": (0.060, 0.930, 0.160),
    "FJS": (0.050, 0.932, 0.142),
    "Platt scaling": (0.050, 0.802, 0.179),
    "ROC QMM": (0.049, 0.799, 0.191),
    "2-param QMM": (0.050, 0.802, 0.191),
    "Logistic CSPD": (0.050, 0.803, 0.192),
    "Normal CSPD": (0.050, 0.802, 0.192),
}


def _example(example) -> RatingScaleExample:
    """The section 5 example by default; otherwise ``example`` itself, which must be a :class:`RatingScaleExample`."""
    if example is None:
        return RatingScaleExample()
    if not isinstance(example, RatingScaleExample):
        raise ValueError(f"example must be a RatingScaleExample or None, got {type(example).__name__}")
    return example


def _check_aucs(values, name: str) -> np.ndarray:
    """A non-empty 1-D array of AUCs, each in (1/2, 1) as :func:`~companion.target_prior.platt` and the QMM methods require."""
    aucs = as_real_array(values, name)
    if np.any((aucs <= 0.5) | (aucs >= 1.0)):
        raise ValueError(
            f"{name} must lie in (0.5, 1) (an increasing recalibration cannot rank worse than chance), got {aucs.tolist()!r}"
        )
    return aucs


class Table1Row(NamedTuple):
    """One row of Table 1 of paper 003: the three characteristics of a posterior under its distribution."""

    #: The recalibration method, as Table 1 names it.
    method: str
    #: Mean of the target posterior: the target prior it implies.
    mean: float
    #: AUC implied by the posterior (eq. (13)).
    auc: float
    #: Mean of the square root of the posterior.
    mean_sqrt: float


def tasche_recalibrations(example: RatingScaleExample | None = None) -> dict:
    """The eight target posteriors of section 5 (Figure 2), as :class:`~companion.target_prior.Recalibrated` by method name.

    The QMM methods preserve the source AUC, implied by the source posteriors
    under the source masses (eq. (13)).
    """
    ex = _example(example)
    return _recalibrate(ex.source_posteriors, ex.target_masses, ex)


def _recalibrate(eta: np.ndarray, f: np.ndarray, ex: RatingScaleExample) -> dict:
    """The eight methods for source posteriors ``eta`` on grades with target masses ``f``."""
    p, q = ex.source_prior, ex.target_prior
    auc = implied_auc(ex.source_posteriors, ex.source_masses)
    return {
        "Capped scaling": capped_scaling(eta, f, q),
        "Label shift": label_shift(eta, p, q),
        "FJS": fjs(eta, f, p, q),
        "Platt scaling": platt(eta, f, q, auc),
        "ROC QMM": roc_qmm(f, q, auc),
        "2-param QMM": two_param_qmm(f, q, auc),
        "Logistic CSPD": cspd(eta, f, q, auc, link="logistic"),
        "Normal CSPD": cspd(eta, f, q, auc, link="normal"),
    }


def _table1_row(method: str, posteriors: np.ndarray, masses: np.ndarray) -> Table1Row:
    return Table1Row(method, float(masses @ posteriors), implied_auc(posteriors, masses),
                     float(masses @ np.sqrt(posteriors)))


def tasche_table1(example: RatingScaleExample | None = None) -> list[Table1Row]:
    """Table 1 of paper 003: mean, implied AUC (13) and mean square root of every posterior.

    The first row is the source posterior under the source masses; the other
    eight are the target posteriors of :func:`tasche_recalibrations` under the
    target masses.
    """
    ex = _example(example)
    fits = tasche_recalibrations(ex)
    rows = [_table1_row("Source", ex.source_posteriors, ex.source_masses)]
    rows += [_table1_row(name, fit.posteriors, ex.target_masses) for name, fit in fits.items()]
    return rows


def tasche_figure1(example: RatingScaleExample | None = None) -> dict:
    """Figure 1 of paper 003: grades with their source and target masses."""
    ex = _example(example)
    return {"scores": ex.scores, "source": ex.source_masses, "target": ex.target_masses}


def tasche_figure2(example: RatingScaleExample | None = None) -> dict:
    """Figure 2 of paper 003: grades, the source posterior and the eight target posteriors (by method)."""
    ex = _example(example)
    fits = tasche_recalibrations(ex)
    return {"scores": ex.scores, "source": ex.source_posteriors,
            "target": {name: fit.posteriors for name, fit in fits.items()}}


def eq13_as_printed(posteriors, masses) -> float:
    r"""Eq. (13) exactly as printed in paper 003: the outer sum starts at ``i = 2``.

    Equal posterior values are merged into one grade first, as in
    :func:`~companion.target_prior.implied_auc`.  The printed sum drops the tie term
    :math:`w_1^2 s_1 (1 - s_1)/2` of the lowest grade, so it is smaller than the
    complete sum (the book's ``eq-tp-implied-auc``); kept only to test which of
    the two the paper's Table 1 used.
    """
    s = as_probabilities(posteriors, "posteriors")
    w = as_masses(masses, "masses")
    check_same_length(posteriors=s, masses=w)
    implied_auc(s, w)  # the same input checks (and a mean in (0, 1))
    grades, grade_of = np.unique(s, return_inverse=True)
    w = np.bincount(grade_of, weights=w, minlength=grades.size)
    mean = float(w @ grades)
    neg = w * (1.0 - grades)
    terms = w * grades * (0.5 * neg + np.cumsum(neg) - neg)
    return float(terms[1:].sum() / (mean * (1.0 - mean)))


class AucSums(NamedTuple):
    """Implied AUC of one Table 1 posterior by the complete and by the printed sum (13), and the paper's value."""

    #: The recalibration method, as Table 1 names it.
    method: str
    #: Implied AUC by the complete sum (13).
    complete: float
    #: Implied AUC by the sum (13) as printed in the paper.
    printed: float
    #: The paper's Table 1 value.
    paper: float


def table1_auc_sums(example: RatingScaleExample | None = None) -> list[AucSums]:
    """The AUC column of Table 1 evaluated with the complete sum and with eq. (13) as printed (from ``i = 2``).

    The posteriors are those of :func:`tasche_recalibrations` (fitted with the
    complete sum).  Rows whose method does not solve for the AUC (capped
    scaling, label shift, FJS, ROC QMM) can tell which sum the paper used.
    """
    ex = _example(example)
    fits = tasche_recalibrations(ex)
    rows = [AucSums("Source", implied_auc(ex.source_posteriors, ex.source_masses),
                    eq13_as_printed(ex.source_posteriors, ex.source_masses), TASCHE_TABLE1_PAPER["Source"][1])]
    for name, fit in fits.items():
        rows.append(AucSums(name, implied_auc(fit.posteriors, ex.target_masses),
                            eq13_as_printed(fit.posteriors, ex.target_masses), TASCHE_TABLE1_PAPER[name][1]))
    return rows


class RocConvergence(NamedTuple):
    """ROC-QMM iteration for one (AUC, target prior): binormal c, the fixed point's mean and implied AUC, rates."""

    #: The source AUC of the case.
    auc: float
    #: The target prior of the case.
    prior: float
    #: The binormal parameter c of the fixed point.
    c: float
    #: Mean of the fixed point's posterior under the target masses.
    mean: float
    #: AUC implied by the fixed point's posterior.
    implied_auc: float
    #: Spectral radius of the iteration's Jacobian at the fixed point: the predicted contraction factor per step.
    spectral_radius: float
    #: Contraction factor per step fitted to the observed changes.
    observed_rate: float


def _observed_rate(changes: np.ndarray, upper: float, lower: float) -> float:
    """exp of the least-squares slope of log(change) against the step, over the steps with lower < change < upper."""
    k = np.flatnonzero((changes < upper) & (changes > lower))
    if k.size < 2:
        raise ValueError(f"fewer than two changes lie in ({lower:g}, {upper:g}); widen the window")
    return float(np.exp(np.polyfit(k, np.log(changes[k]), 1)[0]))


#: Most steps of :func:`roc_qmm_trace` (one Python-level step each; 10**4 run in about a second, and the
#: rounding floor is reached within a few hundred steps for the book's AUCs).
_MAX_TRACE_STEPS = 10**4


def _check_priors_in_domain(priors: np.ndarray, name: str) -> np.ndarray:
    """Target priors in :data:`~companion.target_prior.DOMAIN`; else a ValueError naming ``name``."""
    if not (DOMAIN[0] <= priors.min() and priors.max() <= DOMAIN[1]):
        raise ValueError(f"{name} must lie in [1e-300, 1 - 2**-52], the domain of the target-prior methods; got "
                         f"{priors.min()!r} to {priors.max()!r}")
    return priors


def roc_qmm_trace(target_masses, target_prior, auc, n_iter: int, *, iteration: str = "normalized") -> np.ndarray:
    """Sup-norm change of the class-0 masses in each of exactly ``n_iter`` steps of (11b), without a stopping rule.

    Shows the geometric phase of the iteration and the rounding floor below
    it; ``iteration`` as in :func:`roc_qmm`; ``n_iter`` is at most ``10**4``.
    A class-0 mass below 1e-300 is refused, as by :func:`roc_qmm`.
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, iteration)
    n_iter = check_int(n_iter, "n_iter", minimum=1, maximum=_MAX_TRACE_STEPS)
    changes = []
    for previous, new in _roc_iterates(f, q, c, iteration):
        changes.append(_roc_change(previous, new)[0])
        if len(changes) == n_iter:
            return np.array(changes)


def roc_qmm_jacobian(target_masses, target_prior, auc, class0_masses) -> np.ndarray:
    r"""Jacobian of the normalized ROC-QMM map :math:`N(f_0) = U(f_0)/\sum_s U(f_0)(s)` at ``class0_masses``.

    Here :math:`U = f\,(1 - \eta)` with :math:`\eta` from (10b) and
    :math:`z = \Phi^{-1}(G^*(f_0))`, :math:`G^* = L f_0` (``L`` lower triangular
    with 1/2 on the diagonal).  Since :math:`\partial\eta_i/\partial G_i =
    c\,\eta_i(1-\eta_i)/\varphi(z_i)`,

    .. math:: J = \frac{1}{\sum_s U(s)}\,(I - N\mathbf 1^\top)\,
              \operatorname{diag}\bigl(-f\,\eta(1-\eta)\,c/\varphi(z)\bigr)\,L .

    At the fixed point its spectral radius is the asymptotic contraction
    factor of the iteration per step (the book's :math:`\lambda_J`).  The
    masses must be positive at both ends (where the mid-point cdf would reach
    0 or 1); else a ValueError.
    """
    f, q, c = _roc_inputs(target_masses, target_prior, auc, "normalized")
    f0 = as_masses(class0_masses, "class0_masses")
    check_same_length(target_masses=f, class0_masses=f0)
    if not (f0[0] > 0.0 and f0[-1] > 0.0):
        raise ValueError("class0_masses must be positive at the lowest and highest score: where the mid-point cdf "
                         "reaches 0 or 1, Phi^-1 has an infinite slope and the Jacobian does not exist")
    n = f.size
    lower = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    z = _midpoint_probit(f0)
    a = _roc_intercept(q, c) + c * z
    h = f * _expit(-a)
    total = h.sum()
    # eta (1 - eta) / phi(z) in logs: at a mass near 0 both factors underflow/overflow alone
    slope = np.exp(log_expit(a) + log_expit(-a) + 0.5 * z * z + 0.5 * np.log(2.0 * np.pi))
    if not np.all(np.isfinite(slope)):
        raise ValueError("class0_masses puts so little mass at an end of the support that the Jacobian exceeds the float range")
    dh = (-f * c * slope)[:, None] * lower
    return (dh - np.outer(h / total, dh.sum(axis=0))) / total


def roc_qmm_convergence(
    cases=((0.8017, 0.01), (0.8017, 0.05), (0.8017, 0.3), (0.95, 0.5), (0.99, 0.7)),
    n_iter: int = 160,
    tol: float = 1e-10,
    window=(1e-4, 1e-9),
    example: RatingScaleExample | None = None,
) -> dict:
    """Convergence of the normalized ROC-QMM fixed-point iteration (11b) on the target masses of section 5.

    For every (AUC, target prior) in ``cases``: ``changes`` holds the sup-norm
    change of the class-0 masses in each of ``n_iter`` steps (no stopping rule,
    so the rounding floor shows); ``rows`` holds a :class:`RocConvergence` with
    the fixed point found to ``tol`` (above the rounding floor), the spectral
    radius of :func:`~companion.target_prior.roc_qmm_jacobian` there (the predicted
    contraction factor per step) and the observed factor, fitted to the
    changes between ``window[0]`` and ``window[1]`` (well above the floor).
    Iteration counts are deliberately not returned: below the floor they
    depend on the last bits of the input.  Every target prior must lie
    in :data:`~companion.target_prior.DOMAIN`.
    """
    cases = as_real_array(cases, "cases", ndim=2)
    if cases.shape[1] != 2:
        raise ValueError(f"cases must hold (auc, target_prior) pairs, shape (k, 2); got shape {cases.shape}")
    _check_aucs(cases[:, 0], "cases (first column, auc)")
    as_probabilities(cases[:, 1], "cases (second column, target_prior)", open_interval=True)
    _check_priors_in_domain(cases[:, 1], "cases (second column, target_prior)")
    n_iter = check_int(n_iter, "n_iter")
    tol = check_tolerance(tol, "tol")
    window = as_real_array(window, "window")
    if window.size != 2 or not (window[0] > window[1] >= 0.0):
        raise ValueError(f"window must be (upper, lower) with upper > lower >= 0, got {window.tolist()!r}")
    upper, lower = window.tolist()
    ex = _example(example)
    f = ex.target_masses
    changes, rows = {}, []
    for auc, q in cases.tolist():
        fit = roc_qmm(f, q, auc, tol=tol)
        f0 = fit.params["class0_masses"]
        rho = float(np.max(np.abs(np.linalg.eigvals(roc_qmm_jacobian(f, q, auc, f0)))))
        trace = roc_qmm_trace(f, q, auc, n_iter)
        changes[(auc, q)] = trace
        rows.append(RocConvergence(auc, q, fit.params["c"], float(f @ fit.posteriors),
                                   implied_auc(fit.posteriors, f), rho, _observed_rate(trace, upper, lower)))
    return {"changes": changes, "rows": rows}


class LiteralOutcome(NamedTuple):
    """One reading of (11b) at one prior: did it converge, how far its posterior is from the normalized one."""

    #: Whether this reading of (11b) converged at this prior.
    converged: bool
    #: Largest distance between its posterior and the normalized iteration's, nan if it failed.
    distance: float
    #: Total mass of the class-0 iterate at the fixed point, nan if it failed.
    class0_total: float
    #: Steps to reach tol (for tests; not for printing), 0 if it failed.
    iterations: int
    #: The error message if it failed, else "".
    message: str


def literal_iteration_study(
    priors=(0.002, 0.005, 0.01, 0.015, 0.02, 0.05, 0.1, 0.3, 0.5, 0.9),
    auc: float | None = None,
    tol: float = 1e-12,
    max_iter: int = 1000,
    example: RatingScaleExample | None = None,
) -> dict:
    """The fixed-point iteration (11b) as written, in its two readings, against the normalized iteration.

    For each target prior (at the source AUC unless ``auc`` is given) the
    result maps ``"literal"`` (:math:`G^*` of the normalized iterate) and
    ``"literal-raw"`` (:math:`G^*` accumulated from the unnormalized iterate)
    to a :class:`LiteralOutcome` per prior.  ``"rho"`` holds the spectral radius
    of the normalized map's Jacobian at its fixed point, per prior.
    """
    priors = _check_priors_in_domain(as_probabilities(priors, "priors", open_interval=True), "priors").tolist()
    auc = None if auc is None else _check_auc(auc)
    tol = check_tolerance(tol, "tol")
    max_iter = check_int(max_iter, "max_iter")
    ex = _example(example)
    f = ex.target_masses
    auc = implied_auc(ex.source_posteriors, ex.source_masses) if auc is None else auc
    out = {"priors": tuple(priors), "auc": auc, "literal": [], "literal-raw": [], "rho": []}
    for q in priors:
        ref = roc_qmm(f, q, auc, tol=tol, max_iter=max_iter)
        out["rho"].append(float(np.max(np.abs(np.linalg.eigvals(
            roc_qmm_jacobian(f, q, auc, ref.params["class0_masses"]))))))
        for reading in ("literal", "literal-raw"):
            try:
                fit = roc_qmm(f, q, auc, iteration=reading, tol=tol, max_iter=max_iter)
            except ConvergenceError as err:
                out[reading].append(LiteralOutcome(False, float("nan"), float("nan"), 0, str(err)))
                continue
            out[reading].append(LiteralOutcome(
                True, float(np.max(np.abs(fit.posteriors - ref.posteriors))), float(fit.params["class0_masses"].sum()),
                len(fit.params["changes"]), ""))
    return out


#: The methods of Table 1 that preserve an AUC (the QMM family), in the order of the table.
QMM_METHODS = ("Platt scaling", "ROC QMM", "2-param QMM", "Logistic CSPD", "Normal CSPD")


def _qmm_fit(name: str, eta: np.ndarray, f: np.ndarray, q: float, auc: float):
    if name == "Platt scaling":
        return platt(eta, f, q, auc)
    if name == "ROC QMM":
        return roc_qmm(f, q, auc, tol=1e-10)
    if name == "2-param QMM":
        return two_param_qmm(f, q, auc, tol=1e-10)
    return cspd(eta, f, q, auc, link="logistic" if name == "Logistic CSPD" else "normal")


@memoised
def auc_sensitivity(aucs=None, step: float = 0.005, example: RatingScaleExample | None = None) -> dict:
    r"""The concave evaluation :math:`E_Q[\sqrt{\eta_Q}]` of the QMM methods as a function of the assumed target AUC.

    Each method of :data:`QMM_METHODS` is refitted with the AUC in ``aucs``
    (default 0.60, 0.62, ..., 0.98) instead of the source AUC.  Returns
    ``aucs``, ``methods``, ``mean_sqrt`` of shape ``(len(aucs), 5)`` (nan where
    the system has no solution), ``slope``: the central difference of
    ``mean_sqrt`` at the source AUC with half-width ``step``, per method, and
    ``source_auc``.
    """
    aucs = np.round(np.arange(0.60, 0.981, 0.02), 2) if aucs is None else _check_aucs(aucs, "aucs")
    step = check_positive(step, "step")
    ex = _example(example)
    eta, f, q = ex.source_posteriors, ex.target_masses, ex.target_prior
    source_auc = implied_auc(eta, ex.source_masses)
    if not (0.5 < source_auc - step and source_auc + step < 1.0):
        raise ValueError(
            f"step must keep the source AUC {source_auc:.6g} +- step inside (0.5, 1) (the central difference), got {step!r}"
        )

    def mean_sqrt(name: str, auc: float) -> float:
        try:
            return float(f @ np.sqrt(_qmm_fit(name, eta, f, q, float(auc)).posteriors))
        except InfeasibleSystemError:
            return float("nan")

    table = np.array([[mean_sqrt(name, a) for name in QMM_METHODS] for a in aucs])
    slope = np.array([(mean_sqrt(name, source_auc + step) - mean_sqrt(name, source_auc - step)) / (2 * step)
                      for name in QMM_METHODS])
    return {"aucs": aucs, "methods": QMM_METHODS, "mean_sqrt": table, "slope": slope, "source_auc": source_auc}


def remark1_quantification(
    true_priors=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2), example: RatingScaleExample | None = None
) -> dict:
    """Remark 1: one-parameter CSPD estimates of the target prior.

    For each ``q`` in ``true_priors`` the target is the label-shift mixture (5)
    of the source class-conditional masses (so the true prior is known); the
    estimates use the source AUC.  Also returns the estimates for the section 5
    target, whose prior the model does not fix.
    """
    true_priors = as_probabilities(true_priors, "true_priors", open_interval=True)
    ex = _example(example)
    eta = ex.source_posteriors
    auc = implied_auc(eta, ex.source_masses)
    links = ("logistic", "normal")
    estimates = {
        link: np.array([cspd_quantify(eta, ex.label_shift_target_masses(q), auc, link).params["prior_estimate"]
                        for q in true_priors.tolist()])
        for link in links
    }
    vasicek = {link: cspd_quantify(eta, ex.target_masses, auc, link).params["prior_estimate"] for link in links}
    return {"true_priors": true_priors, "estimates": estimates, "vasicek_target": vasicek}


@memoised
def sampled_table1(
    n_values=(100, 1_000, 10_000), n_reps: int = 20, rng=0, example: RatingScaleExample | None = None
) -> dict:
    """Table 1's last column when the target law is only known through a sample of grades.

    For each ``n`` and repetition, draw ``n`` target grades
    (:meth:`~companion.scenarios.RatingScaleExample.sample_target`), take their
    empirical distribution (:func:`~companion.target_prior.empirical_distribution`), run
    the eight methods on it and record the mean square root of each target
    posterior.  Returns ``n``, ``methods``, ``mean_sqrt`` of shape
    ``(len(n), n_reps, 8)`` and the population values ``exact`` of shape ``(8,)``.
    """
    n_values = np.array(as_sizes(n_values, "n_values", minimum=2))
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    rng = as_rng(rng)
    ex = _example(example)
    exact_rows = tasche_table1(ex)[1:]
    methods = tuple(r.method for r in exact_rows)
    check_memory(n_reps * n_values.size * len(methods), "n_reps", what=f"{len(methods)} results per (n, repetition)")
    mean_sqrt = np.empty((n_values.size, n_reps, len(methods)))
    for i, n in enumerate(n_values):
        for r in range(n_reps):
            grades, masses = empirical_distribution(ex.sample_target(int(n), rng))
            fits = _recalibrate(ex.source_posteriors[grades.astype(int)], masses, ex)
            mean_sqrt[i, r] = [masses @ np.sqrt(fits[m].posteriors) for m in methods]
    return {"n": n_values, "methods": methods, "mean_sqrt": mean_sqrt,
            "exact": np.array([r.mean_sqrt for r in exact_rows])}
