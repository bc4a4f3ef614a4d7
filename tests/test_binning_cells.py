"""The sort-free uniform-mass fit (def-umb, eq. (9)) and the cell-table bin lookup against a full sort and a binary search."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion._checks import as_probabilities
from companion.binning_label_shift import CoordinatePartition, uniform_mass_partition
from companion.calibration_sharpness import UniformMassBinning, bin_indices
from companion.calibration_sharpness.binning import _as_scores
from companion.calibration_sharpness.cells import BinLookup, Cells, order_statistics

TINY = np.nextafter(0.0, 1.0)  # the smallest subnormal


def sorted_reference(z, y, n_bins):
    """Definition 6 by a full sort: edges ``0, z_(floor(n b / B)), 1``, bins ``[u_0, u_1], (u_1, u_2], ...``, counts and means.

    Ranks in Python integers; a point's bin is the number of interior edges strictly below it.
    """
    z = np.asarray(z, dtype=np.float64)
    n = z.size
    inner = np.sort(z)[np.array([n * b // n_bins - 1 for b in range(1, n_bins)], dtype=np.int64)]
    bins = np.searchsorted(inner, z, side="left")
    counts = np.bincount(bins, minlength=n_bins)
    ones = np.bincount(bins, weights=y, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.concatenate(([0.0], inner, [1.0])), counts, ones / counts


def probes(edges, rng):
    """Scores to predict at: every edge and its two neighbours, 0, 1, -0.0, subnormals, random scores."""
    around = np.concatenate((edges, np.nextafter(edges, -1.0), np.nextafter(edges, 2.0)))
    return np.concatenate((np.clip(around, 0.0, 1.0), [0.0, -0.0, 1.0, TINY, 3 * TINY, 1e-310], rng.random(500)))


def check_against_reference(z, n_bins, rng):
    y = (rng.random(len(z)) < 0.4).astype(np.int64)
    edges, counts, values = sorted_reference(z, y, n_bins)
    if np.any(counts == 0):  # Definition 6 leaves the mean of an empty bin undefined
        with pytest.raises(ValueError, match="no sample point"):
            UniformMassBinning(n_bins).fit(z, y)
        return None
    fit = UniformMassBinning(n_bins).fit(z, y)
    np.testing.assert_array_equal(fit.edges_, edges)
    np.testing.assert_array_equal(fit.counts_, counts)
    np.testing.assert_array_equal(fit.values_, values)
    grid = probes(edges, rng)
    np.testing.assert_array_equal(fit.predict(grid), values[np.searchsorted(edges[1:-1], grid, side="left")])
    np.testing.assert_array_equal(fit.predict(z), values[np.searchsorted(edges[1:-1], np.asarray(z, float), side="left")])
    return fit


def shape(name, n, rng):
    if name == "uniform":
        return rng.random(n)
    if name == "beta near 0":
        return rng.beta(0.5, 20.0, n)
    if name == "rounded to 2 decimals":
        return np.round(rng.random(n), 2)
    if name == "one repeated value":
        return np.full(n, 0.3)
    if name == "float32":
        return rng.random(n).astype(np.float32)
    if name == "piled up near 1":
        return 1.0 - rng.beta(0.05, 5.0, n) / 2  # most scores in a few cells of the top binade
    if name == "all in one cell":
        return 0.5 + np.arange(n) * np.finfo(float).eps / 2  # n consecutive doubles after 0.5, one cell
    if name == "on cell boundaries":
        grid = np.arange(2048, 4097) / 4096.0  # multiples of 2**-12: cell boundaries for every table
        picks = rng.choice(grid, n // 3 + 1)
        return np.clip(np.concatenate((picks, np.nextafter(picks, 0.0), np.nextafter(picks, 1.0)))[:n], 0.0, 1.0)
    if name == "subnormals, 0 and 1":
        pool = np.array([0.0, -0.0, TINY, 2 * TINY, 1e-310, 1e-300, 1e-20, 0.5, 1.0])
        return np.concatenate((rng.choice(pool, n // 2), rng.random(n - n // 2) ** 40))
    raise AssertionError(name)


SHAPES = ["uniform", "beta near 0", "rounded to 2 decimals", "one repeated value", "float32", "piled up near 1",
          "all in one cell", "on cell boundaries", "subnormals, 0 and 1"]


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("n_bins", [1, 2, 10, 100, 1000])
def test_fit_and_predict_equal_the_sorted_definition(name, n_bins):
    rng = np.random.default_rng([SHAPES.index(name), n_bins])
    for n in (2 * n_bins, 2 * n_bins + 7, 200_000):
        check_against_reference(shape(name, n, rng), n_bins, rng)


def test_the_shapes_reach_every_branch():
    """The cases above do cut cells again, compare tied edges once and binary-search cells of several edges."""
    rng = np.random.default_rng(1)
    z = shape("all in one cell", 200_000, rng)
    cells = Cells(10, z.min())
    assert np.unique(cells.of(z, z.min())).size == 1  # one cell: the order statistics must cut it again
    fit = check_against_reference(z, 10, rng)
    assert fit._lookup.several is not None  # one cell holds all nine different edges
    ties = check_against_reference(shape("rounded to 2 decimals", 200_000, rng), 10, rng)
    assert ties._lookup.several is None
    skewed = check_against_reference(shape("beta near 0", 200_000, rng), 1000, rng)
    assert skewed._lookup.several is None  # edges over ~25 binades: coarser cells, not 20 edges merged into cell 0
    assert skewed._lookup.cells.n_cells <= 1 << 17


def test_order_statistics_at_any_ranks():
    rng = np.random.default_rng(2)
    for z in (rng.random(100_000), rng.beta(0.5, 20.0, 100_000), np.round(rng.random(100_000), 3), shape("all in one cell", 70_000, rng)):
        cells = Cells(50, z.min())
        ranks = np.unique(rng.integers(1, z.size + 1, 300))
        ranks = np.concatenate(([1], ranks, [z.size]))
        np.testing.assert_array_equal(order_statistics(z, cells.of(z, z.min()), cells.n_cells, ranks), np.sort(z)[ranks - 1])


@settings(max_examples=200, deadline=None)
@given(
    pool=st.lists(st.floats(0.0, 1.0, allow_subnormal=True), min_size=1, max_size=30),
    data=st.data(),
)
def test_uniform_mass_fit_property(pool, data):
    """Any sample drawn from a small pool of scores (ties, subnormals, 0, 1): the fit is Definition 6 or an empty bin."""
    n = data.draw(st.integers(2, 400))
    index = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    z = np.array(pool)[index]
    n_bins = data.draw(st.integers(1, n // 2))
    check_against_reference(z, n_bins, np.random.default_rng(n))


@settings(max_examples=200, deadline=None)
@given(
    edges=st.lists(st.floats(0.0, 1.0, allow_subnormal=True), max_size=40),
    z=st.lists(st.floats(0.0, 1.0, allow_subnormal=True), min_size=1, max_size=200),
)
def test_bin_lookup_is_a_binary_search(edges, z):
    inner, z = np.sort(np.array(edges, dtype=float)), np.array(z)
    expected = np.searchsorted(inner, z, side="left")
    np.testing.assert_array_equal(BinLookup(inner).bins(z, z.min()), expected)
    np.testing.assert_array_equal(bin_indices(z, np.concatenate(([0.0], inner, [1.0]))), expected)


def test_the_canonical_partition_twins_agree():
    rng = np.random.default_rng(4)
    for z in (rng.random(50_000), np.round(rng.random(50_000), 2)):
        probs = np.column_stack((1.0 - z, z))
        part = uniform_mass_partition(probs, 10)
        y = (rng.random(z.size) < z).astype(int)
        edges, _, _ = sorted_reference(z, y, 10)
        np.testing.assert_array_equal(part.edges, edges)
        np.testing.assert_array_equal(part.assign(probs), np.searchsorted(edges[1:-1], z, side="left"))
        np.testing.assert_array_equal(CoordinatePartition(edges).assign(probs), part.assign(probs))


def test_the_fast_score_check_accepts_and_refuses_what_as_probabilities_does():
    cases = [np.array([0.0, 0.5, 1.0]), np.array([-0.0, TINY]), np.array([0.5, np.nan]), np.array([0.5, np.inf]),
             np.array([-1e-300, 0.5]), np.array([0.5, 1.0 + 1e-16 * 3]), np.array([[0.5]]), np.array([]),
             np.array([0.2, 0.7])[::-1], np.arange(6.0)[::2] / 4]
    for z in cases:
        try:
            expected = as_probabilities(z, "z")
        except ValueError as exc:
            with pytest.raises(ValueError) as caught:
                _as_scores(z)
            assert str(caught.value) == str(exc)
            continue
        got, smallest = _as_scores(z)
        np.testing.assert_array_equal(got, expected)
        assert smallest == expected.min()


def test_a_tie_broken_where_the_sample_does_not_look():
    """Copies of one value with one point one ulp off, at an index the tie check's sample skips: the check must see it."""
    rng = np.random.default_rng(5)
    n = 300_000
    for off in (np.nextafter(0.3, 1.0), np.nextafter(0.3, 0.0)):
        z = np.full(n, 0.3)
        z[12_345] = off  # the sample takes every (n // 2**16)-th point: 0, 4, 8, ...
        ranks = np.array([1, 2, n // 2, n - 1, n])
        cells = Cells(10, z.min())
        np.testing.assert_array_equal(order_statistics(z, cells.of(z, z.min()), cells.n_cells, ranks), np.sort(z)[ranks - 1])
    z = np.round(rng.random(n), 2)
    odd = np.flatnonzero(np.arange(n) % 4 == 1)[:50]
    z[odd] = np.clip(np.nextafter(z[odd], 1.0), 0.0, 1.0)  # a few ties broken, each by one ulp, in the same cells
    check_against_reference(z, 100, rng)
    z = np.round(rng.random(n), 2)
    z[z == 0.5] = rng.uniform(0.5, 0.5 + 1e-6, np.count_nonzero(z == 0.5))  # one wanted cell not tied at all
    check_against_reference(z, 100, rng)


def test_tied_scores_skip_the_scatter_over_all_points(monkeypatch):
    """Rounded scores: the wanted cells hold every point and each one value, found without min/max over all points."""
    from companion.calibration_sharpness import cells as cells_module

    sizes = []
    extremes = cells_module._extremes
    monkeypatch.setattr(cells_module, "_extremes", lambda values, *rest: sizes.append(values.size) or extremes(values, *rest))
    rng = np.random.default_rng(6)
    n = 200_000
    check_against_reference(np.round(rng.random(n), 2), 100, rng)
    assert sizes and max(sizes) < n // 2  # only the sample
    sizes.clear()
    z = np.round(rng.random(n), 2)
    z[1::4] = np.nextafter(z[1::4], 0.0)  # two values in every cell: the guess fails, the extremes of all points decide
    check_against_reference(z, 100, rng)
    assert max(sizes) == n
