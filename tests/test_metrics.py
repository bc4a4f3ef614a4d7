"""MSE decomposition (eq. (2)), the three risks (Definitions 3-5, Proposition 1), reliability curves."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from companion.calibration_sharpness import (
    calibration_risk,
    conditional_mean,
    mse_decomposition,
    recalibration_risk,
    reliability_curve,
    sharpness_risk,
)

# Forecasts drawn from a small grid so that ties (groups) actually occur.
forecast_values = st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 1.0]) | st.floats(0, 1)


@st.composite
def samples(draw, min_size=1, max_size=200):
    n = draw(st.integers(min_size, max_size))
    p = draw(arrays(float, n, elements=forecast_values))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    return p, y


@settings(max_examples=200, deadline=None)
@given(samples())
def test_exact_decomposition_identity(sample):
    p, y = sample
    d = mse_decomposition(p, y)
    assert d.within_bin == 0.0
    assert abs(d.mse - (d.variance - d.sharpness + d.calibration)) < 1e-12


@settings(max_examples=200, deadline=None)
@given(samples(), st.integers(1, 12))
def test_binned_decomposition_identity(sample, n_bins):
    p, y = sample
    d = mse_decomposition(p, y, bins=n_bins)
    assert abs(d.mse - (d.variance - d.sharpness + d.calibration + d.within_bin)) < 1e-12


def brute_force_terms(p, y, keys):
    """Textbook definitions with explicit loops over groups (independent of the implementation)."""
    n = len(p)
    ybar = sum(y) / n
    sharp = cal = wbv = wbc = 0.0
    for k in set(keys.tolist()):
        members = [i for i in range(n) if keys[i] == k]
        pb = sum(p[i] for i in members) / len(members)
        yb = sum(y[i] for i in members) / len(members)
        sharp += len(members) / n * (yb - ybar) ** 2
        cal += len(members) / n * (pb - yb) ** 2
        wbv += sum((p[i] - pb) ** 2 for i in members) / n
        wbc += 2 * sum((y[i] - yb) * (p[i] - pb) for i in members) / n
    mse = sum((y[i] - p[i]) ** 2 for i in range(n)) / n
    return mse, ybar * (1 - ybar), sharp, cal, wbv - wbc


def test_terms_match_brute_force_by_value_and_by_bin():
    rng = np.random.default_rng(11)
    p = rng.choice([0.1, 0.2, 0.25, 0.6, 0.61, 0.9], size=300)
    y = (rng.random(300) < p).astype(int)
    np.testing.assert_allclose(mse_decomposition(p, y), brute_force_terms(p, y, p), atol=1e-14)
    edges = np.array([0.0, 0.2, 0.6, 1.0])  # 0.2 in bin 0, 0.6 in bin 1: left-open bins
    keys = np.array([0 if v <= 0.2 else (1 if v <= 0.6 else 2) for v in p])
    np.testing.assert_allclose(mse_decomposition(p, y, bins=edges), brute_force_terms(p, y, keys), atol=1e-14)


def test_perfectly_calibrated_forecast_has_zero_calibration_term():
    # Each forecast value equals the frequency of Y = 1 among its cases.
    p = np.array([0.25] * 4 + [0.5] * 2 + [1.0] * 3)
    y = np.array([1, 0, 0, 0, 1, 0, 1, 1, 1])
    d = mse_decomposition(p, y)
    assert d.calibration == 0.0
    assert d.mse == pytest.approx(d.variance - d.sharpness, abs=1e-15)


def test_constant_forecast_has_zero_sharpness():
    y = np.array([1, 0, 0, 1, 1])
    d = mse_decomposition(np.full(5, 0.3), y)
    assert d.sharpness == 0.0
    assert d.calibration == pytest.approx((0.3 - 0.6) ** 2)


def test_conditional_mean():
    np.testing.assert_allclose(conditional_mean([0.2, 0.4, 0.2, 0.4, 0.9], [1, 0, 0, 1, 1]),
                               [0.5, 0.5, 0.5, 0.5, 1.0])


@settings(max_examples=150, deadline=None)
@given(samples(min_size=2), st.integers(1, 6))
def test_proposition_1_for_rounding_maps(sample, digits_bins):
    z, y = sample
    h = lambda t: np.floor(t * digits_bins) / digits_bins  # noqa: E731 - a many-to-one map
    total = recalibration_risk(h, z, y)
    assert total == pytest.approx(calibration_risk(h, z, y) + sharpness_risk(h, z, y), abs=1e-12)


def test_injective_map_has_zero_sharpness_risk_and_hstar_zero_risk():
    rng = np.random.default_rng(2)
    z = rng.choice(np.linspace(0.05, 0.95, 10), size=500)
    y = (rng.random(500) < z**2).astype(int)
    assert sharpness_risk(np.sqrt, z, y) == pytest.approx(0.0, abs=1e-15)
    # The empirical minimum-risk recalibration: the mean label of each forecast value.
    table = {v: y[z == v].mean() for v in np.unique(z)}
    h_star = lambda t: np.array([table[v] for v in t])  # noqa: E731
    assert recalibration_risk(h_star, z, y) == pytest.approx(0.0, abs=1e-15)
    assert calibration_risk(h_star, z, y) == pytest.approx(0.0, abs=1e-15)


def test_constant_map_risks():
    z = np.array([0.1, 0.1, 0.8, 0.8])
    y = np.array([0, 0, 1, 1])
    # h = 0.5: E[Y | h(Z)] = 0.5, calibration 0; E[Y | Z] is 0 or 1, sharpness 0.25.
    assert calibration_risk(lambda t: 0.5, z, y) == 0.0
    assert sharpness_risk(lambda t: 0.5, z, y) == pytest.approx(0.25)


def test_reliability_curve_uniform():
    p = np.array([0.05, 0.1, 0.15, 0.55, 0.6, 1.0])
    y = np.array([0, 0, 1, 1, 0, 1])
    c = reliability_curve(p, y, n_bins=4)
    np.testing.assert_array_equal(c.counts, [3, 0, 2, 1])
    np.testing.assert_allclose(c.centres, [0.125, 0.375, 0.625, 0.875])
    np.testing.assert_allclose(c.frequency[[0, 2, 3]], [1 / 3, 0.5, 1.0])
    np.testing.assert_allclose(c.mean_forecast[[0, 2, 3]], [0.1, 0.575, 1.0])
    assert np.isnan(c.frequency[1])


def test_reliability_curve_quantile_has_equal_counts():
    rng = np.random.default_rng(0)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(int)
    c = reliability_curve(p, y, n_bins=10, strategy="quantile")
    assert c.edges[0] == 0.0 and c.edges[-1] == 1.0
    assert np.all(np.abs(c.counts - 100) <= 1)
    assert c.counts.sum() == 1000


@pytest.mark.parametrize(
    "bins, rule",
    [
        (0, "bins must be at least 1"),
        (2.5, "bins must be an integer"),
        (True, "bins must be an integer"),
        ([0.0, 0.6, 0.4, 1.0], "bins must be sorted"),
        ([0.0, 0.5], "bins must start at 0 and end at 1"),
        ([0.0, np.nan, 1.0], "bins must be finite"),
    ],
)
def test_mse_decomposition_bad_bins_name_the_argument(bins, rule):
    with pytest.raises(ValueError, match=rule):
        mse_decomposition([0.1, 0.5, 0.9], [0, 1, 1], bins=bins)


def test_conditional_mean_validates_keys_and_labels():
    """Issue 13: keys are finite reals, y labels, of one length; errors name the argument."""
    keys = np.array([0.2, 0.4, 0.2])
    for bad in ([0.2, np.nan, 0.2], ["0.2", "0.4", "0.2"], keys.astype(complex), [], [[0.2], [0.4], [0.2]]):
        with pytest.raises(ValueError, match="keys"):
            conditional_mean(bad, [1, 0, 0])
    for bad in ([1, 0], ["1", "0", "0"], [1, 0, 0.5], [1, 0, np.nan]):
        with pytest.raises(ValueError, match="y"):
            conditional_mean(keys, bad)
