"""The bounds at the extremes of the float range (issue 13, cause 8): finite values or a named ValueError.

Where a direct formula overflows (``4B/delta`` for ``delta`` near the smallest
float, ``2^(p-1)`` for large ``p``), the bounds switch to an equivalent form in
log space.  The references here are computed independently, in 50-digit
arithmetic with mpmath, from the formulas as the docstrings state them.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from companion.binning_label_shift import bhc_tail_bound, multiclass_binning_epsilon
from companion.label_shift_recalibration import composite_risk_bound, prior_correction_lipschitz
from companion.multiclass_lp import (
    lemma8_sample_size,
    lemma13_iteration_bound,
    lemma14_bound,
    theorem6_budget,
)
from companion.uniform_mass_binning import umb_calibration_bound, umb_risk_bound, umb_sharpness_bound

mp.mp.dps = 50


@pytest.mark.parametrize("delta", [1e-320, 5e-324, 1e-310])
def test_calibration_bound_at_subnormal_delta_matches_high_precision(delta):
    n, b = 1000, 4
    per_bin = n // b
    ref = (mp.sqrt(mp.log(4 * b / mp.mpf(delta)) / (2 * (per_bin - 1))) + mp.mpf(1) / per_bin) ** 2
    assert umb_calibration_bound(n, b, delta) == pytest.approx(float(ref), rel=1e-12)


def test_multiclass_epsilon_at_subnormal_delta_and_many_classes():
    for k, delta in ((3, 2.2250738585072014e-308), (2000, 0.1)):
        got = multiclass_binning_epsilon(np.array([50, 60]), k, delta)
        ref = [2 / mp.sqrt(c) * mp.sqrt(mp.log(2 * mp.mpf(2) ** k / mp.mpf(delta)) / 2) for c in (50, 60)]
        np.testing.assert_allclose(got, [float(r) for r in ref], rtol=1e-12)


def test_lemma14_large_p_matches_high_precision():
    a, b, p = 0.3, 0.2, 1025.0  # 2^(p-1) overflows a float
    ref = (mp.mpf(2) ** (p - 1) * (2 * mp.mpf(a) ** (p - 1) + 2 * mp.mpf(b) ** (p - 1))) ** (1 / mp.mpf(p))
    assert lemma14_bound(a, b, p) == pytest.approx(float(ref), rel=1e-12)
    huge = 1e308  # a^(p-1) overflows but the bound, about 2.5 * 1e308^(2/3), does not
    ref = (mp.mpf(2) ** 2 * (2 * mp.mpf(huge) ** 2 + 2 * mp.mpf(huge) ** 2)) ** (mp.mpf(1) / 3)
    assert lemma14_bound(huge, huge, 3.0) == pytest.approx(float(ref), rel=1e-12)
    with pytest.raises(ValueError, match="threshold"):
        lemma14_bound(huge, huge, np.inf)  # a + b overflows


def test_composite_bound_at_extreme_estimated_priors_matches_high_precision():
    p, q, p_hat, q_hat = 0.5, 0.3, 5e-324, 0.31  # rho_1 overflows: the ratio term is tanh in log space
    rho0 = ((1 - mp.mpf(q_hat)) / (1 - mp.mpf(p_hat))) / ((1 - mp.mpf(q)) / (1 - mp.mpf(p)))
    rho1 = (mp.mpf(q_hat) / mp.mpf(p_hat)) / (mp.mpf(q) / mp.mpf(p))
    w = [(1 - mp.mpf(q)) / (1 - mp.mpf(p)), mp.mpf(q) / mp.mpf(p)]
    ref = 2 * (((rho0 - rho1) / (rho0 + rho1)) ** 2 + max(w) ** 3 / min(w) ** 2 * mp.mpf("0.01"))
    assert composite_risk_bound(0.01, p, q, p_hat, q_hat) == pytest.approx(float(ref), rel=1e-12)


def test_extreme_priors_and_sizes_raise_named_errors():
    with pytest.raises(ValueError, match="source_prior"):
        prior_correction_lipschitz(5e-324, 0.1)
    with pytest.raises(ValueError, match="source_prior"):
        composite_risk_bound(0.01, 0.5, 3.9e-301, 0.48, 0.31)
    with pytest.raises(ValueError, match="accuracy"):
        lemma8_sample_size(5e-324, 3, 10, 0.1)
    with pytest.raises(ValueError, match="threshold"):
        lemma13_iteration_bound(5e-324, 0.01, 0.25)
    with pytest.raises(ValueError, match="epsilon"):
        theorem6_budget(3, 2.0, 1e-300, 0.1, 0.25)
    with pytest.raises(ValueError, match="smoothness"):
        umb_sharpness_bound(4, 1.5e154)
    with pytest.raises(ValueError, match="n_categories"):
        bhc_tail_bound(0.1, 5000)


def test_huge_smoothness_leaves_the_stated_bound_at_two_over_b():
    # min(2/B, 8K^2/B^2) = 2/B when 8K^2/B^2 overflows; only the (A3)-alone bound is refused
    assert umb_risk_bound(1000, 4, 0.1, 1.5e154) == pytest.approx(umb_risk_bound(1000, 4, 0.1))
    with pytest.raises(ValueError, match="smoothness"):
        umb_risk_bound(1000, 4, 0.1, 1.5e154, a3_only=True)


@pytest.mark.parametrize("flag", ["False", 0, 1, None])
def test_a3_only_must_be_a_bool(flag):
    with pytest.raises(ValueError, match="a3_only"):
        umb_risk_bound(1000, 4, 0.1, 2.0, a3_only=flag)


def test_theorem6_group_count_is_exact():
    budget = theorem6_budget(3, 2.0, 0.1, 0.1, 0.25)
    n_max = int(np.floor(1.0 / budget["mass_threshold"]))
    assert 2 ** (budget["J"] - 1) <= n_max < 2 ** budget["J"]
