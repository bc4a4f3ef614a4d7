"""Uniform-mass and equal-width binning (def-umb, eq. (9)) against direct computations."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.calibration_sharpness import EqualWidthBinning, UniformMassBinning, bin_indices, equal_width_edges
from companion.uniform_mass_binning import uniform_mass_grid


def direct_umb(z, y, n_bins):
    """Definition 6 and eq. (9) written out with a full sort and explicit loops over bins."""
    n = len(z)
    zs = np.sort(z)
    interior = [zs[(n * b) // n_bins - 1] for b in range(1, n_bins)]  # 1-based order statistics
    edges = np.array([0.0, *interior, 1.0])
    values, counts = [], []
    for b in range(n_bins):
        lo, hi = edges[b], edges[b + 1]
        inside = (z >= lo) & (z <= hi) if b == 0 else (z > lo) & (z <= hi)
        counts.append(inside.sum())
        values.append(y[inside].mean())
    return edges, np.array(values), np.array(counts)


@pytest.mark.parametrize("n, n_bins", [(10, 5), (11, 5), (1000, 7), (997, 30), (64, 1)])
def test_umb_matches_direct_computation(n, n_bins):
    rng = np.random.default_rng(n + n_bins)
    z, y = rng.random(n), (rng.random(n) < 0.4).astype(int)
    m = UniformMassBinning(n_bins).fit(z, y)
    edges, values, counts = direct_umb(z, y, n_bins)
    np.testing.assert_array_equal(m.edges_, edges)
    np.testing.assert_allclose(m.values_, values, rtol=1e-14)
    np.testing.assert_array_equal(m.counts_, counts)
    assert m.counts_.min() >= 2 and m.counts_.sum() == n
    # predict at every edge (closed on the right; the first bin also holds 0) and between edges
    np.testing.assert_array_equal(m.predict(edges), np.concatenate(([values[0]], values)))
    mids = 0.5 * (edges[:-1] + edges[1:])
    np.testing.assert_array_equal(m.predict(mids), values)
    # the training points get the mean of their own bin
    own = np.array([values[np.searchsorted(edges[1:-1], t)] for t in z])
    np.testing.assert_array_equal(m.predict(z), own)


def test_equal_width_matches_direct_computation():
    rng = np.random.default_rng(3)
    z, y = rng.random(500), rng.integers(0, 2, 500)
    m = EqualWidthBinning(4).fit(z, y)
    np.testing.assert_array_equal(m.edges_, [0, 0.25, 0.5, 0.75, 1])
    expected = [y[(z > a) & (z <= b) | ((a == 0) & (z == 0))].mean() for a, b in zip(m.edges_[:-1], m.edges_[1:])]
    np.testing.assert_allclose(m.values_, expected, rtol=1e-14)
    assert m.predict([0.0, 0.25, 0.2500001, 1.0]).tolist() == [m.values_[0], m.values_[0], m.values_[1], m.values_[3]]


def test_grid_equals_separate_fits():
    rng = np.random.default_rng(7)
    z, y = rng.random(5000), (rng.random(5000) < 0.3).astype(np.int8)
    bins = [1, 6, 13, 100, 2500]
    grid = uniform_mass_grid(z, y, bins)
    for b, e, v, c in zip(grid.n_bins, grid.edges, grid.values, grid.counts):
        m = UniformMassBinning(int(b)).fit(z, y.astype(float))
        np.testing.assert_array_equal(e, m.edges_)
        np.testing.assert_array_equal(v, m.values_)
        np.testing.assert_array_equal(c, m.counts_)


@settings(max_examples=50, deadline=None)
@given(
    z=st.lists(st.floats(0, 1), min_size=4, max_size=60, unique=True),
    data=st.data(),
)
def test_bin_means_average_to_label_mean(z, data):
    """Counts partition the sample and the count-weighted bin means give the overall mean."""
    z = np.array(z)
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=z.size, max_size=z.size)))
    n_bins = data.draw(st.integers(1, z.size // 2))
    m = UniformMassBinning(n_bins).fit(z, y)
    assert m.counts_.sum() == z.size and np.all(m.counts_ >= 2)
    assert np.dot(m.counts_, m.values_) == pytest.approx(y.sum())
    assert np.all(np.diff(m.edges_) >= 0)


def test_bad_input():
    z, y = np.linspace(0.01, 0.99, 10), np.arange(10) % 2
    with pytest.raises(ValueError, match="n_bins"):  # parameters are checked by fit (scikit-learn's rule)
        UniformMassBinning(0).fit(z, y)
    with pytest.raises(ValueError, match="n_bins"):
        EqualWidthBinning(2.5).fit(z, y)
    with pytest.raises(ValueError, match="ties"):
        UniformMassBinning(2, ties="drop").fit(z, y)
    with pytest.raises(ValueError, match="at least 2 \\* n_bins"):
        UniformMassBinning(6).fit(z, y)
    with pytest.raises(ValueError, match="z"):
        UniformMassBinning(2).fit(z + 0.5, y)
    with pytest.raises(ValueError, match="z must be one column"):
        UniformMassBinning(2).fit(np.column_stack((z, z)), y)
    with pytest.raises(ValueError, match="y .*3 distinct labels"):  # labels of any values, but two classes
        UniformMassBinning(2).fit(z, np.arange(10) % 3 + 1)
    with pytest.raises(ValueError, match="y .*a single class"):
        UniformMassBinning(2).fit(z, ["pos"] * 10)
    with pytest.raises(ValueError, match="y .*non-integral"):
        UniformMassBinning(2).fit(z, y - 0.5)
    with pytest.raises(ValueError, match="same length"):
        UniformMassBinning(2).fit(z, y[:-1])
    with pytest.raises(ValueError, match="not fitted"):
        UniformMassBinning(2).predict(z)
    with pytest.raises(ValueError, match="z"):
        UniformMassBinning(2).fit(z, y).predict([0.5, 1.5])
    with pytest.raises(ValueError, match="no sample point"):  # ties collapse a bin
        UniformMassBinning(3).fit([0.5] * 6, [0, 1] * 3)
    with pytest.raises(ValueError, match="no sample point"):  # equal-width bin without data
        EqualWidthBinning(2).fit([0.1, 0.2, 0.3, 0.45], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="n_bins_values"):
        uniform_mass_grid(z, y, [2, 0])
    with pytest.raises(ValueError, match="n_bins_values"):
        uniform_mass_grid(z, y, [])


# ---------------------------------------------------------------------------
# The lookup-table bin search against numpy's binary search
# ---------------------------------------------------------------------------


BIN_INDEX_CASES = ["uniform", "ties", "on_edges", "skewed", "one_edge", "no_edge", "next_to_cells"]


@pytest.mark.parametrize("case", BIN_INDEX_CASES)
def test_bin_index_is_searchsorted(case):
    from companion.calibration_sharpness.cells import BinLookup

    rng = np.random.default_rng(BIN_INDEX_CASES.index(case))
    z = rng.random(20_000)
    inner = np.sort(rng.choice(z, 99, replace=False))
    if case == "ties":
        z = np.round(z, 2)
        inner = np.sort(np.round(inner, 2))  # repeated edges, and points equal to them
    elif case == "on_edges":
        z = np.concatenate((z, inner, np.nextafter(inner, 0.0), np.nextafter(inner, 1.0), [0.0, 1.0]))
    elif case == "skewed":
        z = rng.beta(0.05, 5.0, size=20_000)  # piled up near 0: many edges per cell, the binary search is used
        inner = np.sort(z)[(z.size * np.arange(1, 100)) // 100 - 1]
    elif case == "one_edge":
        inner = np.array([0.5])
        z = np.concatenate((z, [0.5, np.nextafter(0.5, 0.0), np.nextafter(0.5, 1.0)]))
    elif case == "no_edge":
        inner = np.array([])
    elif case == "next_to_cells":
        cells = 4 * (inner.size + 1)
        grid = np.arange(cells + 1) / cells
        z = np.clip(np.concatenate((grid, np.nextafter(grid, 0.0), np.nextafter(grid, 1.0))), 0.0, 1.0)
        inner = np.sort(np.concatenate((inner[:-3], grid[[5, 100, 300]])))  # edges on cell boundaries too
    assert np.array_equal(BinLookup(inner).bins(z, z.min()), np.searchsorted(inner, z, side="left")), case


def test_fit_without_a_sort_matches_the_sorted_fit():
    """The partition-based fit gives the edges, counts and means of the sort-based statistics of Definition 6."""
    from companion.calibration_sharpness.binning import _bin_statistics, _sorted_sample, _uniform_mass_edges

    rng = np.random.default_rng(3)
    for z in (rng.random(5_001), np.round(rng.random(5_001), 2)):
        y = (rng.random(z.size) < z).astype(int)
        fit = UniformMassBinning(40).fit(z, y)
        z_sorted, ones_sorted = _sorted_sample(z, y)
        edges = _uniform_mass_edges(z_sorted, 40)
        counts, values = _bin_statistics(z_sorted, ones_sorted, edges)
        assert np.array_equal(fit.edges_, edges) and np.array_equal(fit.counts_, counts)
        assert np.array_equal(fit.values_, values)


@pytest.mark.parametrize("n_bins", [6, 7, 9, 12, 100])
def test_a_score_computed_as_b_over_B_stays_in_the_bin_on_its_left(n_bins):
    # def-equal-width: u_b = b/B, a forecast on an edge goes to the bin on its left; with np.linspace's
    # edges, 5/6 went to bin 6 (538 pairs (B, b) with B <= 100 were affected)
    edges = equal_width_edges(n_bins)
    assert all(edges[b] == b / n_bins for b in range(n_bins + 1))
    z = np.arange(1, n_bins + 1) / n_bins
    np.testing.assert_array_equal(bin_indices(z, edges), np.arange(n_bins))
    fitted = EqualWidthBinning(n_bins).fit(np.repeat(z, 2), np.tile([0, 1], n_bins))
    np.testing.assert_array_equal(fitted.predict(z), np.full(n_bins, 0.5))
