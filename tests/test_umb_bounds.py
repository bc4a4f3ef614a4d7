"""Theorem 1 bounds, the simplified bound zeta and the optimal number of bins (Chapter 2)."""

import math

import numpy as np
import pytest

from companion.bounds import (
    optimal_n_bins,
    theorem1_optimal_n_bins,
    umb_calibration_bound,
    umb_risk_bound,
    umb_sample_size,
    umb_sharpness_bound,
    umb_zeta,
)


def test_hand_computed_values():
    # n = 1000, B = 10, delta = 0.1: floor(n/B) = 100, eps = sqrt(log(400) / 198) + 1/100
    eps = math.sqrt(math.log(400.0) / 198.0) + 0.01
    assert umb_calibration_bound(1000, 10, 0.1) == pytest.approx(eps**2, rel=1e-14)
    assert umb_sharpness_bound(10) == pytest.approx(0.2)
    assert umb_sharpness_bound(10, smoothness=3.0) == pytest.approx(8 * 9 / 100)
    assert umb_risk_bound(1000, 10, 0.1, 3.0) == pytest.approx(eps**2 + 0.72, rel=1e-14)
    # floor: n = 1050 and B = 10 give 105 points per bin
    eps = math.sqrt(math.log(40.0 / 0.2) / 208.0) + 1 / 105
    assert umb_calibration_bound(1050, 10, 0.2) == pytest.approx(eps**2, rel=1e-14)
    assert umb_sample_size(10, 0.1) == pytest.approx(2420 * 10 * math.log(200.0))
    assert umb_sample_size(1, 0.5, constant=1.0) == pytest.approx(2 / math.log(2) * math.log(4.0))
    assert umb_zeta(8, 1000, 0.1, 2.0) == pytest.approx(32 / 1000 * math.log(320.0) + 32 / 64)


def test_broadcasting():
    n = np.array([[100], [1000]])
    b = np.array([2, 5, 10])
    got = umb_risk_bound(n, b, 0.1)
    assert got.shape == (2, 3)
    assert got[1, 2] == pytest.approx(umb_risk_bound(1000, 10, 0.1))


def test_zeta_dominates_theorem1_bound():
    n = np.array([[200], [10**4], [10**7]])
    b = np.array([1, 3, 10, 50, 100])
    k = 1.7
    assert np.all(umb_zeta(b, n, 0.05, k) >= umb_risk_bound(n, b, 0.05, k))


def test_optimal_n_bins_brute_force_and_slope():
    for n in [10, 1000, 54321, 10**6]:
        for k in [0.5, 1.0, 18.5]:
            grid = np.arange(1, n // 2 + 1)
            brute = int(grid[np.argmin(umb_zeta(grid, n, 0.1, k))])
            assert optimal_n_bins(n, 0.1, k) == brute
    n = np.logspace(8, 14, 7).astype(np.int64)
    slope = np.polyfit(np.log(n), np.log(optimal_n_bins(n, 0.1)), 1)[0]
    # B^3 (log(4B/delta) + 1) = 4 K^2 n: slope 1/3 up to the slowly varying log factor
    assert 0.31 < slope < 1 / 3
    assert theorem1_optimal_n_bins(1000, 0.1, 1.0) == int(
        np.argmin([umb_risk_bound(1000, b, 0.1, 1.0) for b in range(1, 501)]) + 1
    )


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
        (lambda: umb_sample_size(10, 0.1, constant=0), "constant"),
        (lambda: umb_zeta(3, 100, 2.0), "delta"),
        (lambda: optimal_n_bins(1, 0.1), "n"),
        (lambda: optimal_n_bins(100, 0.1, smoothness=0), "smoothness"),
        (lambda: theorem1_optimal_n_bins(1, 0.1), "n"),
        (lambda: umb_sharpness_bound([]), "n_bins"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
