"""Chapter 2 drivers: the Figure 1-2 grid against direct fits, and its summary."""

import numpy as np
import pytest

from companion.binning import UniformMassBinning
from companion.bounds import umb_calibration_bound
from companion.experiments import umb_figure_summary, umb_risk_grid
from companion.scenarios import GaussianMixture


def test_grid_matches_direct_fits():
    n_values, n_bins, reps = [20, 2000], [2, 7, 50], 2
    grid = umb_risk_grid(n_values, n_bins, reps, prior=0.3, rng=11)
    assert grid["valid"].tolist() == [[True, True, False], [True, True, True]]
    assert np.all(np.isnan(grid["cal"][0, 2])) and not np.any(np.isnan(grid["cal"][grid["valid"]]))
    # replay the same random stream by hand
    rng = np.random.default_rng(11)
    g = GaussianMixture(0.3, 2.0)
    for i, n in enumerate(n_values):
        for r in range(reps):
            z, y = g.sample(n, rng)
            for j, b in enumerate(n_bins):
                if 2 * b > n:
                    continue
                m = UniformMassBinning(b).fit(z, y)
                direct = g.population_risks(m.edges_, m.values_)
                for key in ("cal", "sha", "risk", "mse"):
                    assert grid[key][i, j, r] == pytest.approx(direct[key], rel=1e-12)


def test_summary_on_a_small_grid():
    grid = umb_risk_grid([10**3, 10**4, 10**5], [4, 8, 16, 32, 64], n_reps=3, rng=2)
    s = umb_figure_summary(grid, delta=0.1)
    assert s["cal_bound"][1, 2] == pytest.approx(umb_calibration_bound(10**4, 16, 0.1))
    assert 15 < s["smoothness"] < 25  # about 18.5 for prior 0.5, mu 2 (dip of the density at z = 1/2)
    assert -1.3 < s["exponents"]["cal_n"] < -0.7 and s["exponents"]["sha_B"] < -1.0
    assert np.all(np.diff(s["best_n_bins_theory"]) >= 0)
    for frac in s["coverage"].values():
        assert 0.9 <= frac <= 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="n_values"):
        umb_risk_grid([1], [1], 1)
    with pytest.raises(ValueError, match="no cell"):
        umb_risk_grid([10], [6], 1)
    with pytest.raises(ValueError, match="n_reps"):
        umb_risk_grid([10], [2], 0)
