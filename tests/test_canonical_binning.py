"""companion.binning_label_shift: partitions, canonical binning and its label-shift correction (paper 001 s3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.calibration_sharpness import UniformMassBinning, bin_indices
from companion.binning_label_shift import (
    CanonicalBinning,
    CoordinatePartition,
    LabelShiftCanonicalBinning,
    LogRatioGridPartition,
    bin_class_counts,
    uniform_mass_partition,
)
from companion.label_shift_weights import posterior_correction
from companion.scenarios import three_class_gaussian, two_class_gaussian


def test_coordinate_partition_matches_binning_bin_indices():
    rng = np.random.default_rng(0)
    z = rng.random(500)
    z[:5] = [0.0, 0.2, 0.5, 1.0, 0.7]  # values on edges
    edges = np.array([0.0, 0.2, 0.5, 0.7, 1.0])
    probs = np.column_stack([1 - z, z])
    np.testing.assert_array_equal(CoordinatePartition(edges, 1).assign(probs), bin_indices(z, edges))


def test_uniform_mass_partition_matches_uniform_mass_binning_edges():
    rng = np.random.default_rng(1)
    z = rng.beta(2, 5, 1003)
    y = (rng.random(1003) < z).astype(int)
    part = uniform_mass_partition(np.column_stack([1 - z, z]), 10)
    np.testing.assert_array_equal(part.edges, UniformMassBinning(10).fit(z, y).edges_)


def test_canonical_binning_against_a_loop_over_the_sample():
    rng = np.random.default_rng(2)
    k, n = 3, 600
    probs = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, size=n)
    part = CoordinatePartition([0.0, 0.25, 0.5, 0.75, 1.0], coordinate=2)
    model = CanonicalBinning(part).fit(probs, y)
    counts = np.zeros((4, k))
    for row, label in zip(probs, y):  # independent: explicit bin search per point
        b = 0
        while b < 3 and row[2] > [0.25, 0.5, 0.75][b]:
            b += 1
        counts[b, label] += 1
    np.testing.assert_array_equal(model.class_counts_, counts)
    np.testing.assert_allclose(model.frequencies_, counts / counts.sum(axis=1, keepdims=True))
    pred = model.predict(probs[:10])
    np.testing.assert_allclose(pred.sum(axis=1), 1.0)
    np.testing.assert_allclose(pred, model.frequencies_[part.assign(probs[:10])])


def test_log_ratio_grid_assign_matches_affine_map_of_the_scenario():
    sc = three_class_gaussian()
    contrasts = np.array([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]])
    edges = [np.array([-np.inf, -1.0, 0.0, 1.0, np.inf]), np.array([-np.inf, -0.5, 0.5, np.inf])]
    part = LogRatioGridPartition(contrasts, edges)
    x, _ = sc.sample(2000, 3)
    G, g = sc.log_ratio_map(contrasts)
    u = x @ G.T + g
    i0 = np.digitize(u[:, 0], [-1.0, 0.0, 1.0], right=True)
    i1 = np.digitize(u[:, 1], [-0.5, 0.5], right=True)
    np.testing.assert_array_equal(part.assign(sc.posterior(x)), i0 * 3 + i1)
    assert part.n_bins == 12


def _exact_bin_probabilities(sc, edges_z, domain):
    """P_D[Y = y | eta_1^P(X) in bin] for the two-class scenario, from the exact slab masses."""
    G, g = sc.log_ratio_map(np.array([[-1.0, 1.0]]))
    with np.errstate(divide="ignore"):
        cuts = np.log(edges_z) - np.log1p(-edges_z)  # logit of the edges
    joint = sc.projection_probabilities(G[0], g[0], cuts) * np.asarray(sc.prior(domain))[:, None]
    return (joint / joint.sum(axis=0)).T


def test_label_shift_correction_with_oracle_weights_is_consistent():
    sc = two_class_gaussian()
    edges = np.linspace(0, 1, 6)
    x, y = sc.sample(400_000, 4, "source")
    model = LabelShiftCanonicalBinning(CoordinatePartition(edges)).fit(sc.posterior(x), y, sc.weights)
    exact_q = _exact_bin_probabilities(sc, edges, "target")
    np.testing.assert_allclose(model.frequencies_, exact_q, atol=0.01)
    np.testing.assert_allclose(model.frequencies_, posterior_correction(model.source_frequencies_, sc.weights))
    # Without the correction the frequencies estimate the source bin probabilities instead.
    np.testing.assert_allclose(model.source_frequencies_, _exact_bin_probabilities(sc, edges, "source"), atol=0.01)
    assert np.max(np.abs(model.source_frequencies_ - exact_q)) > 0.1


def test_proposition1_exact_bin_probabilities():
    # theta^Q_I computed from the target mixture equals the correction of theta^P_I (independent sides).
    sc = two_class_gaussian()
    edges = np.array([0.0, 0.1, 0.3, 0.4, 0.6, 0.9, 1.0])
    np.testing.assert_allclose(
        posterior_correction(_exact_bin_probabilities(sc, edges, "source"), sc.weights),
        _exact_bin_probabilities(sc, edges, "target"), rtol=1e-12)


def test_empty_bin_and_bad_partitions_raise():
    probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]])
    with pytest.raises(ValueError, match="bin 1 holds no fitting point"):
        CanonicalBinning(CoordinatePartition([0.0, 0.5, 1.0])).fit(probs, [0, 1, 0])
    with pytest.raises(ValueError, match="edges"):
        CoordinatePartition([0.1, 0.5, 1.0])
    with pytest.raises(ValueError, match="rows summing to 0"):
        LogRatioGridPartition([[1.0, 1.0]], [[-np.inf, np.inf]])
    with pytest.raises(ValueError, match="partition"):  # stored by the constructor, checked by fit (scikit-learn)
        CanonicalBinning(object()).fit(probs, [0, 1, 0])
    with pytest.raises(ValueError, match="not fitted"):
        CanonicalBinning(CoordinatePartition([0.0, 1.0])).predict(probs)
    with pytest.raises(ValueError, match="2 \\* n_bins"):
        uniform_mass_partition(probs, 2)
    with pytest.raises(ValueError, match="weights"):
        LabelShiftCanonicalBinning(CoordinatePartition([0.0, 1.0])).fit(probs, [0, 1, 0], [-1.0, 1.0])
    # A bin holding only source points of a class with weight 0 has no corrected frequency (0/0 in eq. (17)).
    two_bins = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    with pytest.raises(ValueError, match="weights give bin 0 no mass"):
        LabelShiftCanonicalBinning(CoordinatePartition([0.0, 0.5, 1.0])).fit(two_bins, [0, 0, 1, 1], [0.0, 1.0])


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_bin_class_counts_sum_to_sample_size(seed):
    rng = np.random.default_rng(seed)
    bins = rng.integers(0, 7, 300)
    codes = rng.integers(0, 4, 300)
    counts = bin_class_counts(bins, codes, 7, 4)
    assert counts.sum() == 300
    np.testing.assert_array_equal(counts.sum(axis=1), np.bincount(bins, minlength=7))
    np.testing.assert_array_equal(counts.sum(axis=0), np.bincount(codes, minlength=4))


def test_grid_cell_probabilities_against_monte_carlo():
    sc = three_class_gaussian()
    contrasts = np.array([[-1.0, 1.0, 0.0], [-0.5, -0.5, 1.0]])
    edges = [np.array([-np.inf, -1.0, 0.0, 1.0, np.inf]), np.array([-np.inf, -0.5, 0.5, np.inf])]
    exact = sc.grid_cell_probabilities(contrasts, edges)
    np.testing.assert_allclose(exact.sum(axis=1), 1.0, atol=1e-12)
    x, y = sc.sample(600_000, 10)
    bins = LogRatioGridPartition(contrasts, edges).assign(sc.posterior(x))
    for c in range(3):
        freq = np.bincount(bins[y == c], minlength=12) / np.sum(y == c)
        np.testing.assert_allclose(freq, exact[c], atol=5 * np.sqrt(0.25 / np.sum(y == c)))
    with pytest.raises(ValueError, match="uncorrelated"):
        sc.grid_cell_probabilities(np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]), edges)


def test_bin_class_counts_validates_its_arguments():
    bins, codes = np.array([0, 1, 1, 0]), np.array([0, 1, 2, 2])
    expected = np.array([[1, 0, 1], [0, 1, 1]])  # counted by hand
    np.testing.assert_array_equal(bin_class_counts(bins, codes, 2, 3), expected)
    np.testing.assert_array_equal(bin_class_counts(bins.tolist(), codes.tolist(), np.int64(2), np.array(3)), expected)
    for bad in ([-1, 0, 0, 0], [0, 2, 1, 0], [0.5, 1, 1, 0], ["0", "1", "1", "0"], bins[:3], bins[:, None], [], None,
                bins.astype(complex)):
        with pytest.raises(ValueError, match="bins"):
            bin_class_counts(bad, codes, 2, 3)
    for bad in ([0, 1, 3, 2], ["0", "1", "2", "2"], codes[:3], None):
        with pytest.raises(ValueError, match="codes"):
            bin_class_counts(bins, bad, 2, 3)
    for name, args in (("n_bins", (2.5, 3)), ("n_bins", (10**400, 3)), ("n_classes", (2, "3")), ("n_classes", (2, True)),
                       ("n_bins", (2**40, 2**40))):
        with pytest.raises(ValueError, match=name):
            bin_class_counts(bins, codes, *args)


def test_label_shift_binning_validates_weights_and_labels():
    probs = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    part = CoordinatePartition([0.0, 0.5, 1.0])
    for bad in (["1.0", "2.0"], np.array([1.0 + 0j, 2.0]), np.array([True, True]), [1.0, np.nan], [1.0, 1.0, 1.0], [0.0, 0.0]):
        with pytest.raises(ValueError, match="weights"):
            LabelShiftCanonicalBinning(part).fit(probs, [0, 0, 1, 1], bad)
    for bad in (None, np.array([0, 0, 1, 1], dtype=complex), [0, 0, 1]):
        with pytest.raises(ValueError, match="y"):
            CanonicalBinning(part).fit(probs, bad)
    # labels of any type name the columns; they are not parsed as numbers
    fitted = CanonicalBinning(part).fit(probs, ["a", "a", "b", "b"])
    assert fitted.classes_.tolist() == ["a", "b"]
    np.testing.assert_array_equal(fitted.frequencies_, [[1.0, 0.0], [0.0, 1.0]])


def test_log_ratio_grid_partition_validates_edges():
    contrasts = [[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]]
    for bad in (None, 3, "x", {}, [[-np.inf, np.inf]], [[-np.inf, np.inf], [0.0, 0.0, 1.0]], [[-np.inf, np.inf], ["0", "1"]]):
        with pytest.raises(ValueError, match="edges"):
            LogRatioGridPartition(contrasts, bad)
