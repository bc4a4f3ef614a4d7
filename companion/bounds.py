"""The papers' theorems as functions: bounds and the sample sizes they need.

Each function cites the theorem or equation of the book it implements and
validates its arguments (see :mod:`companion._checks`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from ._checks import (
    as_real_values,
    as_positive_ints,
    as_real_array,
    check_bool,
    check_int,
    check_open_unit,
    check_positive,
    check_real,
)

__all__ = [
    "LEMMA3_CONSTANT",
    "umb_calibration_bound",
    "umb_sharpness_bound",
    "umb_risk_bound",
    "umb_sample_size",
    "umb_zeta",
    "optimal_n_bins",
    "theorem1_optimal_n_bins",
    "prior_correction_lipschitz",
    "ratio_event_sample_sizes",
    "ratio_event_beta",
    "composite_risk_bound",
    "composite_high_probability_bound",
    "bhc_tail_bound",
    "multiclass_binning_epsilon",
    "weight_condition_number",
    "label_shift_binning_bound",
    "bbse_error_bound",
    "target_binning_bound",
    "LEMMA8_CONSTANT",
    "lp_threshold",
    "lemma14_bound",
    "lemma7_sample_size",
    "lemma7_sizes",
    "lemma8_sample_size",
    "lemma8_accuracy",
    "lemma13_iteration_bound",
    "discretisation_bound",
    "squared_error_excess_bound",
    "theorem6_budget",
    "theorem6_sample_size",
    "theorem6_iterations",
]

# ---------------------------------------------------------------------------
# Uniform-mass binning (Theorem 1, eqs. (10)-(12))
# ---------------------------------------------------------------------------

#: The explicit value c' of the universal constant of Lemma 3 given by the paper (App. B.1; book ``lem-umb-balance``).
LEMMA3_CONSTANT = 2420.0


def _returned(value: np.ndarray):
    """A float for scalar input, an array otherwise."""
    return float(value) if np.ndim(value) == 0 else value


# -- numerical helpers: the direct formula wherever it is finite (so results are bit-identical to
# -- it there), a log-space or overflow-aware form at the extremes of the float range

def _log_over(top, delta: float):
    """``log(top / delta)``: the direct quotient where it is finite, ``log(top) - log(delta)`` when it overflows.

    ``top`` is a positive float, int or array; ``delta`` a positive float.  The
    second form is needed for ``delta`` near the smallest floats, where
    ``top / delta`` is infinite although its logarithm is not.
    """
    try:
        with np.errstate(over="ignore"):
            ratio = np.divide(top, delta)
    except OverflowError:  # a Python int too large for a float
        ratio = np.inf
    if np.all(np.isfinite(ratio)):
        return np.log(ratio)
    log_top = math.log(top) if isinstance(top, int) else np.log(top)
    return log_top - np.log(delta)


def _pow(x: float, y: float) -> float:
    """``x ** y`` for floats ``x >= 0``, with ``inf`` instead of an OverflowError when the power overflows."""
    try:
        return x**y
    except OverflowError:
        return math.inf



def _check_smoothness(smoothness):
    """``None`` or the constant K of (A3): a finite positive number."""
    return None if smoothness is None else check_positive(smoothness, "smoothness")


def _a3_sharpness(n_bins: np.ndarray, k: float):
    """Lemma 7's sharpness bound :math:`8K^2/B^2` (``inf`` where it overflows, for ``K`` near the float maximum)."""
    return _returned(8.0 * _pow(k, 2) / n_bins.astype(float) ** 2)


def umb_calibration_bound(n, n_bins, delta: float):
    r"""Calibration part of Theorem 1 (book ``eq-umb-thm``): :math:`R^{cal}(\hat h) \le \Delta_{\delta/2}^2`.

    .. math:: \Delta_{\delta/2} = \sqrt{\frac{\log(4B/\delta)}{2(\lfloor n/B\rfloor - 1)}} + \frac{1}{\lfloor n/B\rfloor},

    the radius of Lemma 4 (eq. (23), book ``eq-umb-eps``) at failure
    probability :math:`\delta/2`.  Requires ``n >= 2 B``.  ``n`` and
    ``n_bins`` broadcast; returns a float for scalars.
    """
    n = as_positive_ints(n, "n")
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    if np.any(n < 2 * n_bins):
        raise ValueError("n must be at least 2 * n_bins (two points per bin, Lemma 4)")
    per_bin = n // n_bins
    eps = np.sqrt(_log_over(4.0 * n_bins, delta) / (2.0 * (per_bin - 1))) + 1.0 / per_bin
    return _returned(eps**2)


def umb_sharpness_bound(n_bins, smoothness: float | None = None):
    r"""One sharpness bound of Theorem 1: :math:`2/B` (Lemma 6), or with ``smoothness`` :math:`K` only :math:`8K^2/B^2` (Lemma 7).

    Theorem 1 itself takes the smaller of the two under (A3); see :func:`umb_risk_bound`.
    """
    n_bins = as_positive_ints(n_bins, "n_bins")
    k = _check_smoothness(smoothness)
    if k is None:
        return _returned(2.0 / n_bins)
    bound = _a3_sharpness(n_bins, k)
    if not np.all(np.isfinite(bound)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return bound


def umb_risk_bound(n, n_bins, delta: float, smoothness: float | None = None, *, a3_only: bool = False):
    r"""Theorem 1 bound on :math:`R(\hat h)` (book ``thm-umb-risk``): calibration bound plus sharpness bound.

    The sharpness bound is :math:`2/B` without ``smoothness``; with
    ``smoothness`` :math:`K` of (A3) it is :math:`\min(2/B, 8K^2/B^2)`, the
    bound as stated, or :math:`8K^2/B^2` alone when ``a3_only`` is true.
    """
    a3_only = check_bool(a3_only, "a3_only")
    k = _check_smoothness(smoothness)
    calibration = umb_calibration_bound(n, n_bins, delta)
    b = as_positive_ints(n_bins, "n_bins")
    if k is None:
        return calibration + _returned(2.0 / b)
    sharpness = _a3_sharpness(b, k)
    if not a3_only:
        sharpness = np.fmin(sharpness, _returned(2.0 / b))
    elif not np.all(np.isfinite(sharpness)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return calibration + sharpness


def umb_sample_size(n_bins, delta: float, constant: float = LEMMA3_CONSTANT):
    r"""Sample size of Theorem 1 (book ``thm-umb-risk``): :math:`n \ge c\,B\log(2B/\delta)`, :math:`c = \max(c', 2/\log 2)`.

    ``constant`` is the :math:`c'` of Lemma 3 (the paper's explicit 2420 by
    default).  Below this size Theorem 1 promises nothing.
    """
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    c = max(check_positive(constant, "constant"), 2.0 / np.log(2.0))
    size = c * n_bins * _log_over(2.0 * n_bins, delta)
    if not np.all(np.isfinite(size)):
        raise ValueError(f"constant = {constant!r} is too large: the sample size exceeds the float range")
    return _returned(size)


def umb_zeta(n_bins, n, delta: float, smoothness: float = 1.0):
    r"""The simplified risk bound :math:`\zeta(B; n, \delta) = \frac{4B}{n}\log\frac{4B}{\delta} + \frac{8K^2}{B^2}` (book ``eq-umb-zeta``).

    It dominates the Theorem 1 bound with (A3) whenever ``B`` divides ``n``
    and ``n >= 2 B`` (the paper's assumptions before eq. (10)).
    """
    n = as_positive_ints(n, "n")
    n_bins = as_positive_ints(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    k = check_positive(smoothness, "smoothness")
    b = n_bins.astype(float)
    zeta = 4.0 * b / n * _log_over(4.0 * b, delta) + 8.0 * _pow(k, 2) / b**2
    if not np.all(np.isfinite(zeta)):
        raise ValueError(f"smoothness = {smoothness!r} is too large: 8 K^2 / B^2 exceeds the float range")
    return _returned(zeta)


def optimal_n_bins(n, delta: float, smoothness: float = 1.0):
    r"""Integer ``B`` in ``[1, n // 2]`` minimizing :math:`\zeta(B; n, \delta)` (eq. (10) keeps only its order; book ``cor-umb-rule``).

    :math:`\zeta` is convex in ``B`` (the first term is increasing and convex,
    the second convex), so the integer minimizer is the floor or the ceiling
    of the root of :math:`\partial_B\zeta = \frac4n(\log\frac{4B}{\delta}+1) - \frac{16K^2}{B^3}`,
    found by ``brentq``.  Returns an int for scalar ``n``, else an array.
    """
    n_arr = as_positive_ints(n, "n")
    delta = check_open_unit(delta, "delta")
    k = check_positive(smoothness, "smoothness")
    if np.any(n_arr < 2):
        raise ValueError("n must be at least 2 (one bin needs two points)")

    def best(n_one: int) -> int:
        slope = lambda b: 4.0 / n_one * (_log_over(4.0 * b, delta) + 1.0) - 16.0 * _pow(k, 2) / b**3  # noqa: E731
        cap = n_one // 2
        if slope(1.0) >= 0:
            return 1
        if slope(float(cap)) <= 0:
            return cap
        root = brentq(slope, 1.0, float(cap), xtol=1e-10)
        candidates = np.array([max(1, int(np.floor(root))), min(cap, int(np.ceil(root)))])
        return int(candidates[np.argmin(umb_zeta(candidates, n_one, delta, k))])

    result = np.array([best(int(m)) for m in n_arr.ravel()]).reshape(n_arr.shape)
    return int(result) if result.ndim == 0 else result


#: Largest number of bin counts :func:`theorem1_optimal_n_bins` searches for one ``n``, and its chunk size.
_MAX_SEARCH = 10**7
_SEARCH_CHUNK = 2**20


def theorem1_optimal_n_bins(n, delta: float, smoothness: float | None = None, *, a3_only: bool = False):
    r"""Integer ``B`` in ``[1, n // 2]`` minimizing :func:`umb_risk_bound` (same arguments), by exhaustive search.

    The search is exact but skips the ``B`` that cannot win: the calibration
    bound exceeds :math:`B\log(4/\delta)/(2n)`, so no ``B`` above
    :math:`2n v_0/\log(4/\delta)` beats the value :math:`v_0` of the bound at
    :math:`B_0 = \lceil\sqrt n\,\rceil`.  The candidates are evaluated in
    chunks, so memory stays bounded; a search over more than
    ``_MAX_SEARCH`` (``10**7``) candidates, which ``n`` beyond about
    :math:`10^{12}` at :math:`\delta = 0.1` needs, raises a ValueError naming
    ``n`` instead of running for minutes.  Returns an int for scalar ``n``.
    """
    n_arr = as_positive_ints(n, "n")
    delta = check_open_unit(delta, "delta")
    smoothness = _check_smoothness(smoothness)
    a3_only = check_bool(a3_only, "a3_only")
    if np.any(n_arr < 2):
        raise ValueError("n must be at least 2 (one bin needs two points)")
    result = []
    for m in n_arr.ravel():
        m = int(m)
        v0 = umb_risk_bound(m, min(m // 2, int(np.ceil(np.sqrt(m)))), delta, smoothness, a3_only=a3_only)
        top = min(m // 2, int(2.0 * m * v0 / _log_over(4.0, delta)) + 1)
        if top > _MAX_SEARCH:
            raise ValueError(
                f"n = {m} is too large for the exact search over B: {top} candidates, at most {_MAX_SEARCH} are searched"
            )
        best_b, best_value = 1, np.inf
        for start in range(1, top + 1, _SEARCH_CHUNK):
            candidates = np.arange(start, min(top, start + _SEARCH_CHUNK - 1) + 1)
            values = umb_risk_bound(m, candidates, delta, smoothness, a3_only=a3_only)
            i = int(np.argmin(values))
            if values[i] < best_value:  # strict: the smallest minimizing B wins, as np.argmin over all would give
                best_b, best_value = int(candidates[i]), values[i]
        result.append(best_b)
    result = np.array(result).reshape(n_arr.shape)
    return int(result) if result.ndim == 0 else result

# ---------------------------------------------------------------------------
# Label shift (Theorem 2, Corollary 9, Lemma 10)
# ---------------------------------------------------------------------------
def _shift_weights(source_prior, target_prior) -> tuple[float, float, float, float]:
    """Priors ``(p_min, q_min)`` and importance weights ``(w_min, w_max)`` of eq. (13)."""
    p1 = check_open_unit(source_prior, "source_prior")
    q1 = check_open_unit(target_prior, "target_prior")
    w = ((1.0 - q1) / (1.0 - p1), q1 / p1)
    if not np.isfinite(max(w) / min(w)):
        raise ValueError(
            f"source_prior = {p1!r} and target_prior = {q1!r} are too extreme: "
            "the importance weights q/p of eq. (13) exceed the float range"
        )
    return min(p1, 1.0 - p1), min(q1, 1.0 - q1), min(w), max(w)


def prior_correction_lipschitz(source_prior: float, target_prior: float) -> float:
    r"""Lipschitz constant of the correction ``g*`` on [0, 1] (Lemma 10; book: ``lem-ls-lipschitz``).

    :math:`L = \max(w_1/w_0,\ w_0/w_1) = w^*_{\max}/w^*_{\min}`, the larger of
    the slopes :math:`g'(0) = w_1/w_0` and :math:`g'(1) = w_0/w_1`.
    """
    _, _, w_min, w_max = _shift_weights(source_prior, target_prior)
    return w_max / w_min


def ratio_event_sample_sizes(beta: float, delta: float, source_prior: float, target_prior: float) -> tuple[float, float]:
    r"""Sample sizes of Corollary 9 (book: ``cor-ls-ratio``) for the ratio event :math:`1/\beta \le \hat w_k / w_k \le \beta`.

    Returns :math:`(n_P, n_Q)` with
    :math:`n_P = 27 \log(8/\delta) / ((\beta-1)^2 \min_k p_k)` and likewise
    for :math:`n_Q` with :math:`\min_k q_k`; samples at least this large
    make the event hold with probability at least :math:`1-\delta`.  The
    factor 27 is :math:`3/\xi^2` at the Chernoff relative deviation
    :math:`\xi = (\beta - 1)/3` of Lemma 8 (book: ``lem-ls-chernoff``).
    """
    beta = check_real(beta, "beta")
    if not (1.0 < beta <= 2.0):
        raise ValueError(f"beta must be a number in (1, 2], got {beta!r}")
    delta = check_open_unit(delta, "delta")
    p_min, q_min, _, _ = _shift_weights(source_prior, target_prior)
    scale = 27.0 * _log_over(8.0, delta) / (beta - 1.0) ** 2
    sizes = scale / p_min, scale / q_min
    if not np.all(np.isfinite(sizes)):
        raise ValueError("source_prior or target_prior is too close to 0 or 1: the sample sizes exceed the float range")
    return sizes


def ratio_event_beta(n_source: int, n_target: int, source_prior: float, target_prior: float, delta: float) -> float:
    r"""Smallest :math:`\beta` that Corollary 9 certifies for the given sample sizes (eq. (34); book: ``eq-ls-beta``).

    :math:`\beta = 1 + \sqrt{27 \log(8/\delta)\max\{1/(p_{\min} n_P),\ 1/(q_{\min} n_Q)\}}`.
    Raises ``ValueError`` when this exceeds 2, i.e. when the samples are too
    small for Corollary 9 to say anything.
    """
    n_source = check_int(n_source, "n_source")
    n_target = check_int(n_target, "n_target")
    delta = check_open_unit(delta, "delta")
    p_min, q_min, _, _ = _shift_weights(source_prior, target_prior)
    beta = 1.0 + np.sqrt(27.0 * _log_over(8.0, delta) * max(1.0 / (p_min * n_source), 1.0 / (q_min * n_target)))
    if beta > 2.0:
        raise ValueError(
            f"n_source={n_source} and n_target={n_target} are too small for Corollary 9 at delta={delta}: "
            f"the certified beta would be {beta:.4g} > 2"
        )
    return float(beta)


def composite_risk_bound(
    source_risk: float,
    source_prior: float,
    target_prior: float,
    source_prior_hat: float,
    target_prior_hat: float,
) -> float:
    r"""Deterministic bound (18) of Theorem 2 on the composite's target risk (book: ``eq-ls-det-bound``).

    .. math:: R_Q(\hat g\circ\hat h_P) \le 2\Bigl[\Bigl(\frac{\rho_0-\rho_1}{\rho_0+\rho_1}\Bigr)^2
              + \frac{(w^*_{\max})^3}{(w^*_{\min})^2} R_P(\hat h_P)\Bigr],
       \qquad \rho_k = \hat w_k / w^*_k.

    ``source_risk`` is :math:`R_P(\hat h_P; f)`; the hatted priors are the
    empirical class frequencies.  (The weight factor is read from the
    paper's proof, Step 3; the OCR of (18) itself is damaged.)
    """
    source_risk = check_real(source_risk, "source_risk", minimum=0.0, maximum=1.0)
    _, _, w_min, w_max = _shift_weights(source_prior, target_prior)
    p1, q1 = check_open_unit(source_prior, "source_prior"), check_open_unit(target_prior, "target_prior")
    p1_hat = check_open_unit(source_prior_hat, "source_prior_hat")
    q1_hat = check_open_unit(target_prior_hat, "target_prior_hat")
    with np.errstate(divide="ignore", over="ignore"):
        factor = np.divide(_pow(w_max, 3), w_min**2)
    if not np.isfinite(factor):
        raise ValueError(
            f"source_prior = {p1!r} and target_prior = {q1!r} are too extreme: "
            "the weight factor (w_max)^3 / (w_min)^2 of bound (18) exceeds the float range"
        )
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rho0 = ((1.0 - q1_hat) / (1.0 - p1_hat)) / ((1.0 - q1) / (1.0 - p1))
        rho1 = np.divide(q1_hat / p1_hat, q1 / p1)
        ratio = (rho0 - rho1) / (rho0 + rho1)
    if not np.isfinite(ratio):
        # (rho0 - rho1) / (rho0 + rho1) = tanh(log(rho0 / rho1) / 2), in log space at extreme priors
        log_rho0 = np.log1p(-q1_hat) - np.log1p(-p1_hat) - np.log1p(-q1) + np.log1p(-p1)
        log_rho1 = np.log(q1_hat) - np.log(p1_hat) - np.log(q1) + np.log(p1)
        ratio = np.tanh(0.5 * (log_rho0 - log_rho1))
    ratio = float(ratio)
    return float(2.0 * (ratio**2 + factor * source_risk))


def composite_high_probability_bound(
    n_source: int,
    n_target: int,
    n_bins: int,
    source_prior: float,
    target_prior: float,
    delta: float,
    smoothness: float | None = None,
) -> float:
    r"""High-probability bound (19) of Theorem 2 on :math:`R_Q(\hat g\circ\hat h_P)` (book: ``eq-ls-hp-bound``).

    .. math:: 2\frac{(w^*_{\max})^3}{(w^*_{\min})^2}\,\bar R_P(n_P, |B|, \delta/2)
              + 54\max\Bigl\{\frac{1}{p_{\min} n_P}, \frac{1}{q_{\min} n_Q}\Bigr\}\log\frac{16}{\delta},

    where :math:`\bar R_P(n, B, \delta/2)` is the Theorem 1 bound
    (:func:`umb_risk_bound` at failure probability :math:`\delta/2`, i.e.
    Lemma 4 at :math:`\delta/4`), with sharpness term :math:`2/|B|`, or
    :math:`\min(2/|B|, 8K^2/|B|^2)` when ``smoothness`` :math:`=K` of (A3)
    is given (both bounds hold under (A3)).

    The sample-size conditions that do not involve the unknown universal
    constant of Lemma 3 are enforced: :math:`n_P \ge 2|B|`,
    :math:`n_P \ge 27\log(16/\delta)/p_{\min}` and
    :math:`n_Q \ge 27\log(16/\delta)/q_{\min}` (Corollary 9 at :math:`\delta/2`).
    The balance condition :math:`n_P \ge c\,|B|\log(4|B|/\delta)` is the
    caller's responsibility (see :func:`umb_sample_size`).
    """
    n_source = check_int(n_source, "n_source")
    n_target = check_int(n_target, "n_target")
    n_bins = check_int(n_bins, "n_bins")
    delta = check_open_unit(delta, "delta")
    if n_source < 2 * n_bins:
        raise ValueError(f"n_source must be at least 2 * n_bins = {2 * n_bins} (Lemma 4), got {n_source}")
    p_min, q_min, w_min, w_max = _shift_weights(source_prior, target_prior)
    log_term = _log_over(16.0, delta)
    for name, n, prior_min in (("n_source", n_source, p_min), ("n_target", n_target, q_min)):
        needed = 27.0 * log_term / prior_min
        if n < needed:
            raise ValueError(f"{name} must be at least 27 log(16/delta) / min prior = {needed:.4g}, got {n}")
    source_term = umb_risk_bound(n_source, n_bins, delta / 2.0, smoothness)
    ratio_term = 54.0 * max(1.0 / (p_min * n_source), 1.0 / (q_min * n_target)) * log_term
    return float(2.0 * _pow(w_max, 3) / w_min**2 * source_term + ratio_term)



# ---------------------------------------------------------------------------
# Multiclass calibration under l_p error (paper 002, Theorem 6 and Lemmas 7-14,
# as reconstructed in the book: labels thm-multiclass-lp-main, lem-multiclass-lp-*)
# ---------------------------------------------------------------------------

#: Constant of the book's Lemma 8 (disjoint adaptive queries with Laplace noise): n >= 32 log(4kT/(delta psi)) / psi^2.
LEMMA8_CONSTANT = 32.0


def _check_p_open(p) -> float:
    from .multiclass import check_p

    p = check_p(p)
    if p == 1.0:
        raise ValueError("p must be greater than 1 (the l_p guarantee of Theorem 6 degenerates at p = 1)")
    return p


def lp_threshold(epsilon: float, p) -> float:
    r"""Error and mass threshold :math:`\omega = \omega_m = (\varepsilon/4)^{p/(p-1)}` of the paper's Theorem 6 (``thm-multiclass-lp-main``) (:math:`\varepsilon/4` at :math:`p = \infty`).

    With it, :func:`lemma14_bound` at the accuracies of Theorem 6 is at most
    ``epsilon`` (``lem-multiclass-lp-final-error``).  ``p`` must exceed 1.
    """
    epsilon = check_open_unit(epsilon, "epsilon")
    p = _check_p_open(p)
    return epsilon / 4.0 if np.isinf(p) else (epsilon / 4.0) ** (p / (p - 1.0))


def lemma14_bound(threshold: float, mass_threshold: float, p, group_accuracy: float = 0.0, bin_accuracy: float = 0.0) -> float:
    r"""Bound on the :math:`\ell_p` error at termination (the book's Lemma 14, ``lem-multiclass-lp-final-error``).

    With :math:`a = \omega + ` ``group_accuracy`` (``threshold`` :math:`=\omega`;
    bound on the true error of every group and class) and
    :math:`b' = \omega_m + ` ``bin_accuracy`` (``mass_threshold`` :math:`=\omega_m`;
    bound on the mass of every level set left out of :math:`H`),

    .. math:: \mathrm{err}_p \le \bigl(2^{p-1}(2a^{p-1} + 2b'^{p-1})\bigr)^{1/p}, \qquad
       \mathrm{err}_\infty \le a + b'.
    """
    from .multiclass import check_p

    threshold = check_positive(threshold, "threshold")
    mass_threshold = check_positive(mass_threshold, "mass_threshold")
    p = check_p(p)
    group_accuracy = check_real(group_accuracy, "group_accuracy", minimum=0.0)
    bin_accuracy = check_real(bin_accuracy, "bin_accuracy", minimum=0.0)
    a, b = threshold + group_accuracy, mass_threshold + bin_accuracy
    if np.isinf(p):
        bound = a + b
    else:
        try:
            bound = (2.0 ** (p - 1.0) * (2.0 * a ** (p - 1.0) + 2.0 * b ** (p - 1.0))) ** (1.0 / p)
        except OverflowError:  # large p or a, b: the same value, 2 (a^(p-1) + b^(p-1))^(1/p), in log space
            hi, lo = max(a, b), min(a, b)
            bound = 2.0 * math.exp((p - 1.0) / p * math.log(hi) + math.log1p((lo / hi) ** (p - 1.0)) / p)
    if not np.isfinite(bound):
        raise ValueError(
            "threshold + group_accuracy and mass_threshold + bin_accuracy are too large: the bound exceeds the float range"
        )
    return float(bound)


def lemma7_sample_size(mass_threshold: float, n_level_sets: int, delta: float) -> int:
    r"""Pool 0 of the book's version of the paper's Lemma 7 (``lem-multiclass-lp-bins``): heavy level sets found correctly.

    With :math:`n_0` samples, except with probability :math:`\delta`, every level
    set whose estimated mass is at least :math:`\omega_m` (= ``mass_threshold``)
    has true mass at least :math:`\omega_m/2`, and every other level set has
    mass below :math:`3\omega_m/2` (event :math:`E_1`).  Two proofs give two sizes
    and either suffices, so this returns the smaller,

    .. math:: n_0 = \Bigl\lceil \min\Bigl\{2\log\frac{2|V_\lambda|}{\delta},\;
       8\log\frac{6}{\omega_m\delta}\Bigr\}\Big/\omega_m^2\Bigr\rceil:

    Hoeffding with a union bound over all ``n_level_sets`` :math:`= |V_\lambda|`
    level sets, or Hoeffding over at most :math:`6/\omega_m` fixed events (the
    heavy level sets and buckets of light ones), which does not depend on
    :math:`|V_\lambda|` at all.
    """
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    n_level_sets = check_int(n_level_sets, "n_level_sets")
    delta = check_open_unit(delta, "delta")
    size = _lemma7_size(mass_threshold, n_level_sets, delta)
    if not np.isfinite(size):
        raise ValueError(f"mass_threshold = {mass_threshold!r} is too small: the sample size exceeds the float range")
    return int(size)


def lemma7_sizes(mass_threshold: float, n_level_sets: int, delta: float) -> dict:
    r"""Both sample sizes behind :func:`lemma7_sample_size`: ``union`` (over :math:`|V_\lambda|`) and ``buckets`` (free of it).

    ``union`` :math:`= \lceil 2\log(2|V_\lambda|/\delta)/\omega_m^2\rceil`,
    ``buckets`` :math:`= \lceil 8\log(6/(\omega_m\delta))/\omega_m^2\rceil`
    (``lem-multiclass-lp-bins``); ``n0`` is the smaller.
    """
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    n_level_sets = check_int(n_level_sets, "n_level_sets")
    delta = check_open_unit(delta, "delta")
    union, buckets = _lemma7_union_size(mass_threshold, n_level_sets, delta), _lemma7_bucket_size(mass_threshold, delta)
    if not (np.isfinite(union) or np.isfinite(buckets)):
        raise ValueError(f"mass_threshold = {mass_threshold!r} is too small: the sample size exceeds the float range")
    as_int = lambda v: int(v) if np.isfinite(v) else None  # noqa: E731
    return {"union": as_int(union), "buckets": as_int(buckets), "n0": int(min(union, buckets))}


def _lemma7_size(mass_threshold: float, n_level_sets: int, delta: float) -> float:
    """:func:`lemma7_sample_size` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    return min(_lemma7_union_size(mass_threshold, n_level_sets, delta), _lemma7_bucket_size(mass_threshold, delta))


def _lemma7_union_size(mass_threshold: float, n_level_sets: int, delta: float) -> float:
    """Hoeffding and a union bound over every level set: ``ceil(2 log(2 |V| / delta) / omega^2)``."""
    try:
        top = 2.0 * n_level_sets
    except OverflowError:  # |V_lambda| beyond the float range: log(2 |V| / delta) in log space
        log_term = math.log(2) + math.log(n_level_sets) - math.log(delta)
    else:
        log_term = _log_over(top, delta)
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(2.0 * log_term / mass_threshold**2))


def _lemma7_bucket_size(mass_threshold: float, delta: float) -> float:
    """Hoeffding over the heavy level sets and buckets of light ones: ``ceil(8 log(6 / (omega delta)) / omega^2)``."""
    log_term = _log_over(6.0 / mass_threshold, delta)
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(8.0 * log_term / mass_threshold**2))


def lemma8_sample_size(accuracy: float, n_coords: int, n_events: int, delta: float) -> int:
    r"""Pool size of the book's version of the paper's Lemma 8 (``lem-multiclass-lp-disjoint``): :math:`\lceil 32\log(4kT/(\delta\psi))/\psi^2\rceil`.

    With that many samples, Laplace noise of scale :math:`8/(n\psi)` on each
    of the :math:`kT` answers (``n_coords`` :math:`=k` coordinates of
    ``n_events`` :math:`=T` adaptively chosen disjoint events) keeps every
    answer within ``accuracy`` :math:`=\psi` of its population value with probability
    :math:`1 - \delta`.
    """
    accuracy = check_positive(accuracy, "accuracy")
    n_coords = check_int(n_coords, "n_coords")
    n_events = check_int(n_events, "n_events")
    delta = check_open_unit(delta, "delta")
    size = _lemma8_size(accuracy, n_coords, n_events, delta)
    if not np.isfinite(size):
        raise ValueError(f"accuracy = {accuracy!r} is too small: the pool size exceeds the float range")
    return int(size)


def _lemma8_size(accuracy: float, n_coords: int, n_events: int, delta: float) -> float:
    """:func:`lemma8_sample_size` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    top, bottom = 4.0 * n_coords * n_events, delta * accuracy
    if bottom > 0 and np.isfinite(top / bottom):
        log_term = np.log(top / bottom)
    else:  # delta * accuracy underflows: the same logarithm, term by term
        with np.errstate(divide="ignore"):
            log_term = np.log(top) - np.log(delta) - np.log(accuracy)
    if log_term <= 0:
        raise ValueError("accuracy must be below 4 n_coords n_events / delta (the bound is vacuous above)")
    with np.errstate(divide="ignore", over="ignore"):
        return float(np.ceil(LEMMA8_CONSTANT * log_term / _pow(accuracy, 2)))


def lemma8_accuracy(n: int, n_coords: int, n_events: int, delta: float) -> float:
    r"""Accuracy :math:`\psi` that a pool of ``n`` samples supports in the paper's Lemma 8 (``lem-multiclass-lp-disjoint``): the root of :math:`n = 32\log(4kT/(\delta\psi))/\psi^2`.

    Values above 1 mean the pool is too small for a meaningful guarantee; the
    root is still returned, because the noise scale :math:`8/(n\psi)` of
    :class:`~companion.multiclass.LpCalibrator` is defined from it.
    """
    n = check_int(n, "n")
    n_coords = check_int(n_coords, "n_coords")
    n_events = check_int(n_events, "n_events")
    delta = check_open_unit(delta, "delta")
    top = 4.0 * n_coords * n_events / delta

    def gap(log_psi: float) -> float:
        accuracy = np.exp(log_psi)
        return LEMMA8_CONSTANT * np.log(top / accuracy) / accuracy**2 - n

    return float(np.exp(brentq(gap, -60.0, np.log(top), xtol=1e-13)))


def lemma13_iteration_bound(threshold: float, mass_threshold: float, lam: float) -> float:
    r"""Steps of the algorithm (the paper's Lemma 13, ``lem-multiclass-lp-termination``): :math:`T \le (5 + 10\lambda\log_{3/2}(2/\omega_m))/\omega^2`.

    ``threshold`` :math:`=\omega`, ``mass_threshold`` :math:`=\omega_m`.  Under
    accurate estimates each projection stage lowers the squared error by at
    least :math:`2\omega^2/5` (the paper's Lemma 11, ``lem-multiclass-lp-patch``),
    the merges raise it by at most :math:`4\lambda\log_{3/2}(2/\omega_m)` in total
    (the paper's Lemma 10, ``lem-multiclass-lp-merge``), and the squared error
    lies in :math:`[0, 2]` (``err-multiclass-lp-sq-range``).
    """
    threshold = check_positive(threshold, "threshold")
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    lam = check_open_unit(lam, "lam")
    steps = _lemma13_steps(threshold, mass_threshold, lam)
    if not np.isfinite(steps):
        raise ValueError(f"threshold = {threshold!r} is too small: the iteration bound exceeds the float range")
    return steps


def _lemma13_steps(threshold: float, mass_threshold: float, lam: float) -> float:
    """:func:`lemma13_iteration_bound` as a float, ``inf`` where it exceeds the float range (arguments validated)."""
    with np.errstate(divide="ignore", over="ignore"):
        return float((5.0 + 10.0 * lam * _log_over(2.0, mass_threshold) / np.log(1.5)) / _pow(threshold, 2))


def discretisation_bound(lam: float) -> float:
    r"""The paper's Lemma 12 (``lem-multiclass-lp-discretisation``): replacing :math:`f` by :math:`c\circ r\circ f` raises the squared error by less than :math:`4\lambda`."""
    return 4.0 * check_open_unit(lam, "lam")


def squared_error_excess_bound(lam: float, mass_threshold: float) -> float:
    r"""Squared-error guarantee of the paper's Theorem 6 (``eq-multiclass-lp-main``): :math:`\mathrm{sq}(g) \le \mathrm{sq}(f) + 4\lambda(1 + \log_{3/2}(2/\omega_m))`.

    The paper's Lemma 12 (discretisation, :math:`4\lambda`) plus its Lemma 10 (merges,
    :math:`4\lambda\log_{3/2}(2/\omega_m)`, ``mass_threshold`` :math:`=\omega_m`);
    the projection stages only lower it (its Lemma 11).
    """
    lam = check_open_unit(lam, "lam")
    mass_threshold = check_open_unit(mass_threshold, "mass_threshold")
    return float(4.0 * lam * (1.0 + _log_over(2.0, mass_threshold) / np.log(1.5)))


def theorem6_budget(k: int, p, epsilon: float, delta: float, lam: float) -> dict:
    r"""Sample sizes and iteration bound of the paper's Theorem 6 as reconstructed (``thm-multiclass-lp-main``).

    Returns a dict with ``threshold`` (:math:`\omega`, :func:`lp_threshold`),
    ``mass_threshold`` (:math:`\omega_m = \omega`), ``J``
    (group sizes :math:`1, 2, \dots, 2^{J-1}` up to :math:`\lfloor 1/\omega_m\rfloor`),
    ``n_level_sets`` (:math:`|V_\lambda|`, Lemma 2), ``bins`` (pool for the
    level-set masses, :func:`lemma7_sample_size` at :math:`\delta/2`),
    ``accuracy_mass`` (:math:`\psi_m = \omega_m/(8J)`) and ``pool_mass`` (each of the :math:`J`
    mass pools: :func:`lemma8_sample_size` with 1 coordinate),
    ``accuracy_labels`` (:math:`\psi_y = \omega/(80J)`) and ``pool_labels`` (each of the
    :math:`J` label pools: :math:`k+1` coordinates), all pools with
    :math:`\lfloor 1/\omega_m\rfloor` events and failure probability
    :math:`\delta/(4J)`; ``total`` (:math:`n_0 + J(n_{\mathrm{mass}} + n_{\mathrm{labels}})`),
    ``iterations`` (Lemma 13) and ``squared_error_excess`` (:func:`squared_error_excess_bound`).
    """
    from .multiclass import check_lam, level_set_count

    k = check_int(k, "k", minimum=2)
    lam, _ = check_lam(lam)
    delta = check_open_unit(delta, "delta")
    omega = lp_threshold(epsilon, p)
    omega_m = omega
    too_small = ValueError(
        f"epsilon = {epsilon!r} at p = {p!r} (threshold (epsilon/4)^(p/(p-1)) = {omega!r}) and delta = {delta!r} "
        "give sample sizes beyond the float range: epsilon or delta is too small"
    )
    if not (omega > 0 and np.isfinite(1.0 / omega)):
        raise too_small
    n_max = max(1, int(np.floor(1.0 / omega_m)))
    j = n_max.bit_length()  # floor(log2(n_max)) + 1, exactly
    n_sets = level_set_count(k, lam)
    accuracy_mass, accuracy_labels = omega_m / (8.0 * j), omega / (80.0 * j)
    sizes = (
        _lemma7_size(omega_m, n_sets, delta / 2.0),
        _lemma8_size(accuracy_mass, 1, n_max, delta / (4.0 * j)),
        _lemma8_size(accuracy_labels, k + 1, n_max, delta / (4.0 * j)),
        _lemma13_steps(omega, omega_m, lam),
    )
    if not np.all(np.isfinite(sizes)):
        raise too_small
    n0, pool_mass, pool_labels = (int(size) for size in sizes[:3])
    return {
        "threshold": omega,
        "mass_threshold": omega_m,
        "J": j,
        "n_level_sets": n_sets,
        "bins": n0,
        "accuracy_mass": accuracy_mass,
        "pool_mass": pool_mass,
        "accuracy_labels": accuracy_labels,
        "pool_labels": pool_labels,
        "total": n0 + j * (pool_mass + pool_labels),
        "iterations": sizes[3],
        "squared_error_excess": squared_error_excess_bound(lam, omega_m),
    }


def theorem6_sample_size(k: int, p, epsilon: float, delta: float, lam: float) -> int:
    """Total samples of the paper's Theorem 6 as reconstructed (``theorem6_budget(...)['total']``)."""
    return int(theorem6_budget(k, p, epsilon, delta, lam)["total"])


def theorem6_iterations(k: int, p, epsilon: float, delta: float, lam: float) -> float:
    """Iteration bound of the paper's Theorem 6 (its Lemma 13 at the thresholds of :func:`lp_threshold`)."""
    return float(theorem6_budget(k, p, epsilon, delta, lam)["iterations"])


# ---------------------------------------------------------------------------
# Label-shift weights and canonical binning under label shift
# (paper 001: Theorems 3-5 and Appendix A; book chapters chap-label-shift-weights
# and chap-binning-label-shift)
# ---------------------------------------------------------------------------


def bhc_tail_bound(t, n_categories: int):
    r"""Bretagnolle-Huber-Carol tail :math:`2^k e^{-2t^2}` (paper 001 Theorem 5; book ``thm-binls-bhc``).

    Bounds :math:`P[\sum_{i=1}^k |N_i - np_i| \ge 2\sqrt n\,t]` for a
    multinomial vector :math:`(N_1, \dots, N_k)` with ``n_categories`` :math:`= k`
    cells, whatever ``n`` and the cell probabilities.  ``t`` > 0 broadcasts.
    """
    k = check_int(n_categories, "n_categories", minimum=2)
    t_arr = as_real_values(t, "t")
    if np.any(t_arr <= 0):
        raise ValueError(f"t must be finite and positive, got {t!r}")
    with np.errstate(over="ignore", under="ignore"):
        tail = _pow(2.0, k) * np.exp(-2.0 * t_arr**2)
        if not np.all(np.isfinite(tail)):  # 2^k beyond the float range: k log 2 - 2 t^2 in log space
            tail = np.exp(k * np.log(2.0) - 2.0 * t_arr**2)
    if not np.all(np.isfinite(tail)):
        raise ValueError(f"n_categories = {k} is too large for t = {t!r}: the tail bound exceeds the float range")
    return _returned(tail)


def multiclass_binning_epsilon(counts, n_classes: int, delta: float):
    r"""Radii :math:`\varepsilon_I = \frac{2}{\sqrt{N_I}}\sqrt{\tfrac12\log(B\,2^k/\delta)}` of Theorem 3 (paper 001; book ``thm-binls-theorem3``).

    With probability at least :math:`1-\delta`, simultaneously for all
    :math:`B` bins, :math:`\|\hat\theta_I - \theta_I\|_1 \le \varepsilon_I`.
    ``counts`` holds the :math:`N_I \ge 1` along its last axis (one entry per
    bin, so :math:`B` is the length of that axis; leading axes are
    repetitions); ``n_classes`` is :math:`k`.  Returns an array of the shape
    of ``counts``.
    """
    counts = as_positive_ints(counts, "counts")
    k = check_int(n_classes, "n_classes", minimum=2)
    delta = check_open_unit(delta, "delta")
    n_bins = counts.shape[-1] if counts.ndim else 1
    top = n_bins * _pow(2.0, k)
    log_term = _log_over(top, delta) if np.isfinite(top) else np.log(n_bins) + k * np.log(2.0) - np.log(delta)
    return 2.0 / np.sqrt(counts) * np.sqrt(0.5 * log_term)


def weight_condition_number(weights) -> float:
    r""":math:`\kappa = \max_y w_y / \min_{y: w_y > 0} w_y` (paper 001 section 3.2; book ``eq-binls-kappa``)."""
    w = as_real_array(weights, "weights")
    if w.size < 2 or np.any(w < 0) or not np.any(w > 0):
        raise ValueError("weights must be a 1-D array of at least two finite non-negative numbers, not all zero")
    kappa = w.max() / w[w > 0].min()
    if not np.isfinite(kappa):
        raise ValueError("weights are too spread: max / min of the positive weights exceeds the float range")
    return float(kappa)


def label_shift_binning_bound(source_l1_error, weights, weights_hat):
    r"""Right-hand side of (18), Theorem 4 of paper 001 (book ``thm-binls-theorem4``).

    .. math:: 2\kappa\,\|\hat\theta^P_I - \theta^P_I\|_1 + \frac{2\|\hat w - w^*\|_\infty}{\min_y w^*_y},

    a bound on :math:`\|\hat\theta^{(\hat w)}_I - \theta^Q_I\|_1` in every bin
    :math:`I`.  ``source_l1_error`` (scalar or array, one value per bin) is
    :math:`\|\hat\theta^P_I - \theta^P_I\|_1`; ``weights`` are the true
    :math:`w^*` (shape ``(k,)``) and ``weights_hat`` the estimate
    :math:`\hat w \ge 0`, of shape ``(k,)`` or ``(R, k)`` (one estimate per
    repetition; then ``source_l1_error`` must broadcast against ``(R, 1)``
    and the result has one row per repetition).

    Every true weight must be positive: the proof divides by
    :math:`\sum_y w^*_y\theta^P_{I,y}`, which the paper bounds below by
    :math:`\min_{y: w^*_y \ne 0} w^*_y`, and that fails when a class with
    zero weight has source mass in the bin (the book's ``rem-binls-zero-weight``
    gives a counterexample), so zero weights raise ``ValueError``.
    """
    w = as_real_array(weights, "weights")
    kappa = weight_condition_number(w)
    if np.any(w <= 0):
        raise ValueError(
            "weights must all be positive: with a zero weight (a class absent from the target) Theorem 4 "
            "can fail, see the counterexample of the chapter on binning under label shift"
        )
    w_hat = as_real_values(weights_hat, "weights_hat")
    if w_hat.ndim not in (1, 2) or w_hat.shape[-1] != w.size:
        raise ValueError(f"weights_hat must be finite, of shape ({w.size},) or (R, {w.size}), got shape {w_hat.shape}")
    if np.any(w_hat < 0):
        raise ValueError("weights_hat must be non-negative (eq. (17) reweights frequencies by them)")
    err = as_real_values(source_l1_error, "source_l1_error")
    if np.any(err < 0) or np.any(err > 2):
        raise ValueError("source_l1_error must hold L1 distances between probability vectors, in [0, 2]")
    with np.errstate(over="ignore"):
        weight_part = 2.0 * np.max(np.abs(w_hat - w), axis=-1) / w.min()
    if not np.all(np.isfinite(weight_part)):
        raise ValueError("weights and weights_hat are too extreme: 2 max|weights_hat - weights| / min weights exceeds the float range")
    if w_hat.ndim == 2:
        weight_part = weight_part[:, None]
    bound = 2.0 * kappa * err + weight_part
    if not np.all(np.isfinite(bound)):
        raise ValueError("weights are too spread: the bound 2 kappa source_l1_error + ... exceeds the float range")
    return _returned(bound)


def bbse_error_bound(confusion, weights, n_source: int, n_target: int, delta: float) -> float:
    r"""High-probability bound on :math:`\|\hat w - w^*\|_2` for BBSE (hard or soft; book ``thm-lsw-bbse-rate``).

    With :math:`a_Q = \sqrt{\log(4k/\delta)/(2n_Q)}`,
    :math:`a_P = \sqrt{\log(4k^2/\delta)/(2n_P)}` and :math:`s_{\min}` the
    smallest singular value of the population confusion matrix
    :math:`C` (``confusion``), with probability at least :math:`1-\delta`

    .. math:: \|\hat w - w^*\|_2 \le \frac{\sqrt k\,a_Q + k\,a_P\|w^*\|_2}{s_{\min} - k\,a_P},

    provided :math:`k\,a_P < s_{\min}` (otherwise ``ValueError``: the samples
    are too small for the bound).  Hoeffding's inequality for every entry of
    :math:`\hat\nu` and :math:`\hat C` and the perturbation lemma
    ``lem-lsw-perturbation`` of the book give it.
    """
    c = as_real_array(confusion, "confusion", ndim=2)
    if c.shape[0] != c.shape[1] or c.shape[0] < 2:
        raise ValueError(f"confusion must be a finite square matrix with at least two rows, got shape {c.shape}")
    k = c.shape[0]
    w = as_real_array(weights, "weights")
    if w.shape != (k,) or np.any(w < 0):
        raise ValueError(f"weights must hold {k} finite non-negative numbers")
    n_source = check_int(n_source, "n_source")
    n_target = check_int(n_target, "n_target")
    delta = check_open_unit(delta, "delta")
    sigma = float(np.linalg.svd(c, compute_uv=False).min())
    a_q = np.sqrt(_log_over(4.0 * k, delta) / (2.0 * n_target))
    a_p = np.sqrt(_log_over(4.0 * k**2, delta) / (2.0 * n_source))
    if k * a_p >= sigma:
        raise ValueError(
            f"n_source = {n_source} is too small for the BBSE bound at delta = {delta}: k a_P = {k * a_p:.3g} "
            f"is not below the smallest singular value {sigma:.3g} of the confusion matrix"
        )
    bound = (np.sqrt(k) * a_q + k * a_p * np.linalg.norm(w)) / (sigma - k * a_p)
    if not np.isfinite(bound):
        raise ValueError("weights or confusion are too large: the bound exceeds the float range")
    return float(bound)


def target_binning_bound(counts, confusion, weights, n_source: int, n_target: int, delta: float):
    r"""Radii of the combined finite-sample guarantee on the target (book ``thm-binls-target-guarantee``).

    Theorem 3 of paper 001 at level :math:`\delta/2` (:func:`multiclass_binning_epsilon`),
    the BBSE bound at level :math:`\delta/2` (:func:`bbse_error_bound`, :math:`\beta`)
    and Theorem 4 (:func:`label_shift_binning_bound`) give, with probability at
    least :math:`1-\delta`, for every bin with :math:`N_I > 0`,

    .. math:: \|\hat\theta^{(\hat w)}_I - \theta^Q_I\|_1 \le
              2\kappa\,\varepsilon_I(\delta/2) + \frac{2\beta(\delta/2)}{\min_y w^*_y}.

    ``counts`` holds the calibration counts :math:`N_I \ge 1` along its last
    axis (leading axes: repetitions), ``confusion`` the population confusion
    matrix of the BBSE features, ``weights`` the true :math:`w^*` (all
    positive), ``n_source`` and ``n_target`` the sizes of the BBSE samples.
    The statement needs :math:`\beta < \min_y w^*_y` (then :math:`\hat w > 0`
    on the event); smaller samples raise ``ValueError``.  Returns the radii,
    of the shape of ``counts``.
    """
    counts = as_positive_ints(counts, "counts")
    w = as_real_array(weights, "weights")
    if w.size < 2 or np.any(w <= 0):
        raise ValueError("weights must hold at least two positive numbers (Theorem 4 needs every weight positive)")
    delta = check_open_unit(delta, "delta")
    beta = bbse_error_bound(confusion, w, n_source, n_target, delta / 2.0)
    if beta >= w.min():
        raise ValueError(
            f"n_source = {n_source} and n_target = {n_target} are too small for the guarantee at delta = {delta}: "
            f"the BBSE bound {beta:.3g} is not below the smallest weight {w.min():.3g}"
        )
    eps = multiclass_binning_epsilon(counts, w.size, delta / 2.0)
    return _returned(2.0 * weight_condition_number(w) * eps + 2.0 * beta / w.min())
