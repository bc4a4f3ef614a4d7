"""Empirical distributions, mid-point distribution functions and the AUC of a rating scale (paper 003, eqs. (3a)-(3b) and (13)).

Book labels: ``eq-tp-auc`` and the implied AUC of the target-prior chapter.
"""

from __future__ import annotations

import numpy as np

from .._checks import as_masses, as_probabilities, as_real_array, check_same_length

__all__ = ["empirical_distribution", "midpoint_cdf", "implied_auc", "conditional_auc"]


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
