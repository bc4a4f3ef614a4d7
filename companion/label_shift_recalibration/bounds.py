"""Paper 000's bounds for recalibration under label shift: Lemma 10, Theorem 2 and the Chernoff ratio sample sizes of Corollary 9.

Book labels: ``lem-ls-lipschitz``, ``thm-ls-composite``, ``cor-ls-ratio``.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_int, check_open_unit, check_real
from .._numerics import _log_over, _pow
from ..uniform_mass_binning import umb_risk_bound

__all__ = [
    "prior_correction_lipschitz",
    "ratio_event_sample_sizes",
    "ratio_event_beta",
    "composite_risk_bound",
    "composite_high_probability_bound",
]


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
