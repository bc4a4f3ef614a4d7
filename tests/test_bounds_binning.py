"""Theorem 1 bounds, the simplified bound zeta and the optimal number of bins (companion.uniform_mass_binning.bounds)."""

import math

import numpy as np
import pytest

from companion.uniform_mass_binning import (
    optimal_n_bins,
    theorem1_optimal_n_bins,
    umb_calibration_bound,
    umb_risk_bound,
    umb_sample_size,
    umb_sharpness_bound,
    umb_zeta,
)


def stated_bound(n, b, delta, k=None, a3_only=False):
    """Theorem 1 written out from the statement (book thm-umb-risk), for arrays of B."""
    b = np.asarray(b, dtype=float)
    per_bin = np.floor(n / b)
    radius = np.sqrt(np.log(4 * b / delta) / (2 * (per_bin - 1))) + 1 / per_bin
    if k is None:
        sharp = 2 / b
    elif a3_only:
        sharp = 8 * k * k / b**2
    else:
        sharp = np.minimum(2 / b, 8 * k * k / b**2)
    return radius**2 + sharp


def test_hand_computed_values():
    # n = 1000, B = 10, delta = 0.1: floor(n/B) = 100, radius = sqrt(log(400) / 198) + 1/100
    eps = math.sqrt(math.log(400.0) / 198.0) + 0.01
    assert umb_calibration_bound(1000, 10, 0.1) == pytest.approx(eps**2, rel=1e-14)
    assert umb_sharpness_bound(10) == pytest.approx(0.2)
    assert umb_sharpness_bound(10, smoothness=3.0) == pytest.approx(8 * 9 / 100)
    # the stated bound takes the smaller sharpness bound: 2/10 < 72/100 here
    assert umb_risk_bound(1000, 10, 0.1, 3.0) == pytest.approx(eps**2 + 0.2, rel=1e-14)
    assert umb_risk_bound(1000, 10, 0.1, 3.0, a3_only=True) == pytest.approx(eps**2 + 0.72, rel=1e-14)
    assert umb_risk_bound(1000, 100, 0.1, 3.0) == pytest.approx(umb_calibration_bound(1000, 100, 0.1) + 0.0072)
    # floor: n = 1050 and B = 10 give 105 points per bin
    eps = math.sqrt(math.log(40.0 / 0.2) / 208.0) + 1 / 105
    assert umb_calibration_bound(1050, 10, 0.2) == pytest.approx(eps**2, rel=1e-14)
    assert umb_sample_size(10, 0.1) == pytest.approx(2420 * 10 * math.log(200.0))
    assert umb_sample_size(1, 0.5, constant=1.0) == pytest.approx(2 / math.log(2) * math.log(4.0))
    assert umb_zeta(8, 1000, 0.1, 2.0) == pytest.approx(32 / 1000 * math.log(320.0) + 32 / 64)


def test_broadcasting():
    n = np.array([[100], [1000]])
    b = np.array([2, 5, 10])
    got = umb_risk_bound(n, b, 0.1, 1.5)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got[1], stated_bound(1000, b, 0.1, 1.5), rtol=1e-13)


def test_zeta_dominates_theorem1_bound_when_b_divides_n():
    """The paper's simplification before eq. (10): B | n and n >= 2B."""
    k = 1.7
    for n in (200, 10**4, 10**7):
        b = np.array([d for d in (1, 2, 4, 5, 8, 10, 50, 100) if n % d == 0 and 2 * d <= n])
        assert np.all(umb_zeta(b, n, 0.05, k) >= umb_risk_bound(n, b, 0.05, k, a3_only=True))


def test_radius_bound_without_divisibility():
    """Book cor-umb-rule, proof: for every 2B <= n, the calibration bound is at most 8 B log(4B/delta) / n."""
    rng = np.random.default_rng(5)
    n = rng.integers(4, 10**7, 2000)
    b = np.maximum(1, (rng.random(2000) * n / 2).astype(np.int64))
    for delta in (0.01, 0.5, 0.99):
        assert np.all(umb_calibration_bound(n, b, delta) <= 8 * b * np.log(4 * b / delta) / n)


@pytest.mark.parametrize("k, a3_only", [(None, False), (0.5, False), (3.0, False), (18.5, False), (0.5, True), (18.5, True)])
def test_theorem1_optimum_matches_full_brute_force(k, a3_only):
    for n in [2, 3, 10, 1000, 54321, 300_001]:
        b = np.arange(1, n // 2 + 1)
        brute = int(b[np.argmin(stated_bound(n, b, 0.1, k, a3_only))])
        assert theorem1_optimal_n_bins(n, 0.1, k, a3_only=a3_only) == brute


def test_optimal_n_bins_brute_force_and_slope():
    for n in [10, 1000, 54321, 10**6]:
        for k in [0.5, 1.0, 18.5]:
            grid = np.arange(1, n // 2 + 1)
            zeta = 4 * grid / n * np.log(4 * grid / 0.1) + 8 * k * k / grid**2
            assert optimal_n_bins(n, 0.1, k) == int(grid[np.argmin(zeta)])
    n = np.logspace(8, 14, 7).astype(np.int64)
    slope = np.polyfit(np.log(n), np.log(optimal_n_bins(n, 0.1)), 1)[0]
    # B^3 (log(4B/delta) + 1) = 4 K^2 n: slope 1/3 up to the slowly varying log factor
    assert 0.31 < slope < 1 / 3


def test_stated_optimum_grows_like_sqrt_n_before_the_a3_branch():
    """With K = 18.5 the stated bound is minimized on the 2/B branch up to n of a few million."""
    n = np.array([10**4, 10**5, 10**6])
    stated = theorem1_optimal_n_bins(n, 0.1, 18.5)
    assert np.all(stated < 4 * 18.5**2)
    slope = np.polyfit(np.log(n), np.log(stated), 1)[0]
    assert 0.45 < slope < 0.5  # B ~ 2 sqrt(n / log(4B/delta))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: umb_calibration_bound(10, 6, 0.1), "2 \\* n_bins"),
        (lambda: umb_calibration_bound(100, 0, 0.1), "n_bins"),
        (lambda: umb_calibration_bound(100, 2.5, 0.1), "n_bins"),
        (lambda: umb_calibration_bound(100, 2, 1.0), "delta"),
        (lambda: umb_calibration_bound(100, 2, 0.0), "delta"),
        (lambda: umb_calibration_bound(-5, 2, 0.1), "n"),
        (lambda: umb_sharpness_bound(10, smoothness=-1.0), "smoothness"),
        (lambda: umb_sharpness_bound(10, smoothness=np.inf), "smoothness"),
        (lambda: umb_risk_bound(100, 2, 0.1, smoothness=0.0), "smoothness"),
        (lambda: umb_sample_size(10, 0.1, constant=0), "constant"),
        (lambda: umb_zeta(3, 100, 2.0), "delta"),
        (lambda: optimal_n_bins(1, 0.1), "n"),
        (lambda: optimal_n_bins(100, 0.1, smoothness=0), "smoothness"),
        (lambda: theorem1_optimal_n_bins(1, 0.1), "n"),
        (lambda: theorem1_optimal_n_bins(100, 1.5), "delta"),
        (lambda: umb_sharpness_bound([]), "n_bins"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_smoothness_ratio_in_log_space_matches_the_closed_form_far_in_the_tails():
    # Regression (issue 20, item 18): at z = 1e-30 the ratio dh*/dF_Z is about e^1976 and exp()
    # returned inf.  Reference for prior 1/2 (book, exercise on where K is attained):
    # dh*/dF_Z = mu / (2 phi(mu)) * exp(x^2 / 2) / cosh(mu x)^3, x = logit z, in 50-digit arithmetic.
    import mpmath

    from companion.scenarios import GaussianMixture

    mixture = GaussianMixture(0.5, 2.0)
    z = np.array([1e-300, 1e-30, 1e-5, 0.3, 0.5, 1 - 1e-12])
    got = mixture.smoothness_ratio(z, log=True)
    with mpmath.workdps(50):
        mu = mpmath.mpf(2)
        x = [mpmath.log(mpmath.mpf(v)) - mpmath.log1p(-mpmath.mpf(v)) for v in z]
        want = [float(mpmath.log(mu / (2 * mpmath.npdf(mu))) + t * t / 2 - 3 * mpmath.log(mpmath.cosh(mu * t))) for t in x]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[1] > np.log(np.finfo(float).max)  # the value itself is not a float
    np.testing.assert_allclose(mixture.smoothness_ratio(z[2:]), np.exp(want[2:]), rtol=1e-11)
    with pytest.raises(ValueError, match=r"z holds forecasts .*log=True"):
        mixture.smoothness_ratio(z)
    with pytest.raises(ValueError, match="log"):
        mixture.smoothness_ratio(z, log="yes")
