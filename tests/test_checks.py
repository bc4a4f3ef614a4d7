"""Every validation rule of companion._checks, and that public functions use them."""

import numpy as np
import pytest

from companion import _checks as C
from companion.calibration_sharpness import calibration_risk, mse_decomposition, reliability_curve
from companion.scenarios import GaussianMixture


@pytest.mark.parametrize("bad, rule", [
    ([0.1, np.nan], "finite"),
    ([0.1, np.inf], "finite"),
    ([], "empty"),
    ([[0.1]], "1-dimensional"),
    (["a"], "real numbers"),
])
def test_real_array_rules(bad, rule):
    with pytest.raises(ValueError, match=rf"^p .*{rule}"):
        C.as_real_array(bad, "p")


@pytest.mark.parametrize("bad", [[-0.01, 0.5], [0.5, 1.0001]])
def test_probabilities_in_unit_interval(bad):
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        C.as_probabilities(bad, "p")


def test_open_interval_probabilities():
    assert C.as_probabilities([0.2, 0.8], "q", open_interval=True).tolist() == [0.2, 0.8]
    with pytest.raises(ValueError, match=r"q must lie in the open interval"):
        C.as_probabilities([0.0, 0.5], "q", open_interval=True)


@pytest.mark.parametrize("bad", [[0, 2], [0, 0.5], [-1, 1]])
def test_labels_binary(bad):
    with pytest.raises(ValueError, match=r"y must contain only labels in \{0, 1\}"):
        C.as_labels(bad, "y")


def test_labels_multiclass_and_dtype():
    out = C.as_labels([0.0, 2.0, 1.0], "y", n_classes=3)
    assert out.dtype == np.int64 and out.tolist() == [0, 2, 1]
    with pytest.raises(ValueError, match=r"y must contain only labels in \{0, \.\.\., 2\}"):
        C.as_labels([3], "y", n_classes=3)


def test_same_length():
    assert C.check_same_length(p=np.zeros(3), y=np.zeros(3)) == 3
    with pytest.raises(ValueError, match="p and y must have the same length"):
        C.check_same_length(p=np.zeros(3), y=np.zeros(2))


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 2, np.nan, "0.1", True])
def test_open_unit(bad):
    with pytest.raises(ValueError, match="delta must"):
        C.check_open_unit(bad, "delta")


def test_check_int():
    assert C.check_int(5.0, "n") == 5
    assert C.check_int(np.int32(7), "n") == 7
    for bad in (0, -3):
        with pytest.raises(ValueError, match="n must be at least 1"):
            C.check_int(bad, "n")
    for bad in (2.5, "3", None, True):
        with pytest.raises(ValueError, match="n must be an integer"):
            C.check_int(bad, "n")


def test_weights():
    with pytest.raises(ValueError, match="w must be non-negative"):
        C.as_weights([1.0, -0.1], "w")
    with pytest.raises(ValueError, match="w must not be all zero"):
        C.as_weights([0.0, 0.0], "w")


@pytest.mark.parametrize("bad, rule", [
    ([0.0, 0.6, 0.4, 1.0], "sorted"),
    ([0.1, 0.5, 1.0], "start at 0"),
    ([0.0, 0.5, 0.9], "end at 1"),
    ([0.0], "at least two"),
    ([0.0, 1.5], r"\[0, 1\]"),
])
def test_edges(bad, rule):
    with pytest.raises(ValueError, match=rf"edges must .*{rule}"):
        C.as_edges(bad)


def test_masses():
    with pytest.raises(ValueError, match="m must sum to 1"):
        C.as_masses([0.5, 0.4], "m")
    with pytest.raises(ValueError, match="m must be non-negative"):
        C.as_masses([1.5, -0.5], "m")


def test_rng():
    assert isinstance(C.as_rng(3), np.random.Generator)
    g = np.random.default_rng(1)
    assert C.as_rng(g) is g
    for bad in (-1, 1.5, None, np.random.RandomState(0)):
        with pytest.raises(ValueError, match="rng must be"):
            C.as_rng(bad)


# The public functions of the foundation chapter reject bad input by name.
@pytest.mark.parametrize("call, name", [
    (lambda: mse_decomposition([0.2, np.nan], [0, 1]), "p"),
    (lambda: mse_decomposition([0.2, 1.2], [0, 1]), "p"),
    (lambda: mse_decomposition([0.2, 0.3], [0, 2]), "y"),
    (lambda: mse_decomposition([0.2, 0.3], [0, 1, 1]), "p and y"),
    (lambda: mse_decomposition([], []), "p"),
    (lambda: mse_decomposition([0.2, 0.3], [0, 1], bins=0), "bins"),
    (lambda: calibration_risk(lambda z: z + 1, [0.2, 0.3], [0, 1]), r"h\(z\)"),
    (lambda: calibration_risk(0.5, [0.2, 0.3], [0, 1]), "h must be a callable"),
    (lambda: reliability_curve([0.2, 0.3], [0, 1], n_bins=3, strategy="quantile"), "n_bins"),
    (lambda: reliability_curve([0.2, 0.3], [0, 1], strategy="kmeans"), "strategy"),
    (lambda: GaussianMixture(prior=1.0), "prior"),
    (lambda: GaussianMixture(mu=-1.0), "mu"),
    (lambda: GaussianMixture().sample(0, 1), "n"),
    (lambda: GaussianMixture().sample(10, rng=None), "rng"),
    (lambda: GaussianMixture().h_star([0.5, 1.1]), "z"),
])
def test_public_functions_name_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}"):
        call()


def test_labels_fast_path_for_integer_and_boolean_arrays():
    assert C.as_labels(np.array([True, False]), "y").tolist() == [1, 0]
    assert C.as_labels(np.array([0, 1], dtype=np.uint8), "y").dtype == np.int64
    with pytest.raises(ValueError, match=r"y must contain only labels in \{0, 1\}"):
        C.as_labels(np.array([0, 1, 2]), "y")
    with pytest.raises(ValueError, match=r"y must contain only labels"):
        C.as_labels(np.array([-1, 0]), "y")


def test_check_positive():
    assert C.check_positive(np.float64(2.5), "K") == 2.5
    for bad in (0, -1.0, np.inf, np.nan, "1", True, None):
        with pytest.raises(ValueError, match="K must be a finite positive number"):
            C.check_positive(bad, "K")


def test_as_positive_ints():
    np.testing.assert_array_equal(C.as_positive_ints([[1, 2], [3.0, 4]], "n"), [[1, 2], [3, 4]])
    assert C.as_positive_ints(7, "n").ndim == 0
    for bad, rule in (([], "non-empty"), ([True], "non-empty"), ([1.5], "integers"), ([np.nan], "integers"), ([0, 2], "at least 1")):
        with pytest.raises(ValueError, match=f"n must .*{rule}"):
            C.as_positive_ints(bad, "n")


# --- the validation vocabulary: real numbers only, bounds before arithmetic, no truthiness ---

@pytest.mark.parametrize("bad", [["0.3", "0.7"], [0.3, 0.5j], np.array([True, False]), [10**400], [object()]])
def test_real_array_rejects_strings_complex_bool_and_overflow(bad):
    with pytest.raises(ValueError, match=r"^z must be an array of real numbers"):
        C.as_real_array(bad, "z")


@pytest.mark.parametrize("good", [[0.25, 0.5], np.array([1, 2], dtype=np.uint8), np.float32([0.5]), [np.int64(1), 0.5]])
def test_real_array_accepts_numbers_of_every_real_dtype(good):
    assert C.as_real_array(good, "z").dtype == np.float64


def test_labels_reject_numeric_strings():
    with pytest.raises(ValueError, match="^y must be an array of real numbers"):
        C.as_labels(["0", "1"], "y")


@pytest.mark.parametrize("bad", [10**400, 2**53 + 1, np.uint64(2**64 - 1), 1e300, float("inf")])
def test_check_int_bounds_before_arithmetic(bad):
    with pytest.raises(ValueError, match="^n must be (at most|an integer)"):
        C.check_int(bad, "n")


def test_check_int_uint64_is_not_wrapped():
    assert C.check_int(np.uint64(2**40), "n") == 2**40


@pytest.mark.parametrize("check", [C.check_open_unit, C.check_positive, C.check_tolerance, C.check_real])
@pytest.mark.parametrize("bad", [10**400, "0.3", 0.3 + 0j, None, True, np.bool_(True), [0.3]])
def test_scalar_checks_reject_non_reals_and_huge_ints(check, bad):
    with pytest.raises(ValueError, match="^x must be"):
        check(bad, "x")


@pytest.mark.parametrize("good", [0.25, np.float32(0.25), np.float64(0.25), 1 / 4])
def test_scalar_checks_accept_numpy_scalars(good):
    assert C.check_open_unit(good, "x") == 0.25
    assert C.check_tolerance(good, "x") == 0.25
    assert C.check_real(good, "x", minimum=0, maximum=1) == 0.25


@pytest.mark.parametrize("bad", [np.nan, np.inf, 0.0, 1.0, -1e-3])
def test_tolerance_in_open_unit_interval(bad):
    with pytest.raises(ValueError, match="^tol must be a real tolerance in"):
        C.check_tolerance(bad, "tol")


def test_check_real_bounds():
    with pytest.raises(ValueError, match=r"^t must be a finite real number in \[0, 2\]"):
        C.check_real(2.5, "t", minimum=0, maximum=2)
    with pytest.raises(ValueError, match=r"^t must be a finite real number"):
        C.check_real(np.nan, "t")


@pytest.mark.parametrize("bad", ["False", 0, 1, None, 1.0])
def test_check_bool_rejects_truthiness(bad):
    with pytest.raises(ValueError, match="^normalize must be True or False"):
        C.check_bool(bad, "normalize")
    assert C.check_bool(np.bool_(False), "normalize") is False


def test_check_option_compares_type_and_value():
    assert C.check_option("ts", "calibration", (None, "ts", "bcts")) == "ts"
    assert C.check_option(None, "calibration", (None, "ts")) is None
    for bad in ("TS", 1, True, ["ts"]):
        with pytest.raises(ValueError, match="^calibration must be one of None, 'ts'"):
            C.check_option(bad, "calibration", (None, "ts"))


def test_check_callable_and_nonempty():
    assert C.check_callable(len, "h") is len
    with pytest.raises(ValueError, match="^h must be callable"):
        C.check_callable(None, "h")
    assert C.check_nonempty(np.array([1, 2]), "n_values") == (1, 2)
    for bad, rule in (([], "at least one value"), ("abc", "a list, tuple or array"), (5, "a list, tuple or array")):
        with pytest.raises(ValueError, match=f"^n_values must .*{rule}"):
            C.check_nonempty(bad, "n_values")


@pytest.mark.parametrize("good", [np.array(0.25), np.array(0.25, dtype=np.float32)])
def test_scalar_checks_accept_zero_dimensional_real_arrays(good):
    for check in (C.check_open_unit, C.check_positive, C.check_tolerance, C.check_real):
        assert check(good, "x") == 0.25
    assert C.check_real(np.array(2, dtype=np.int64), "x") == 2.0
    assert C.check_int(np.array(3, dtype=np.int64), "n") == 3 and C.check_int(np.array(3.0), "n") == 3


@pytest.mark.parametrize("bad", [np.array(True), np.array("0.3"), np.array(0.3 + 0j), np.array([0.3]), np.array(np.nan)])
def test_scalar_checks_reject_zero_dimensional_non_reals(bad):
    with pytest.raises(ValueError, match="x must"):
        C.check_real(bad, "x")
    with pytest.raises(ValueError, match="n must"):
        C.check_int(bad, "n")


def test_fraction_is_a_real_number():
    from fractions import Fraction

    assert C.check_open_unit(Fraction(1, 4), "x") == 0.25
    assert C.check_int(Fraction(6, 2), "n") == 3


def test_sequences_and_sizes():
    assert C.as_sequence([1, 2.5], "v").tolist() == [1, 2.5]
    assert C.as_sequence(3, "v", scalar=True).tolist() == [3]
    assert C.as_sizes(np.array([10, 20], dtype=np.uint16), "n_values", minimum=2) == [10, 20]
    for bad, rule in ((3, "1-D sequence"), ([], "at least one value"), ([[1, 2]], "1-D sequence"),
                      (["3"], "real numbers"), ([True], "real numbers"), ([1, [2, 3]], "1-D sequence")):
        with pytest.raises(ValueError, match=f"^n_values must .*{rule}"):
            C.as_sizes(bad, "n_values")
    with pytest.raises(ValueError, match="^n_values entries must be at least 2"):
        C.as_sizes([5, 1], "n_values", minimum=2)
    with pytest.raises(ValueError, match="^n_values entries must be at most"):
        C.as_sizes([10**400], "n_values")


def test_real_values_of_any_shape():
    assert C.as_real_values(0.5, "t").shape == ()
    assert C.as_real_values([[0.5, 1.0]], "t").shape == (1, 2)
    for bad in ("0.5", [0.5, np.nan], [], [[1.0], [1.0, 2.0]]):
        with pytest.raises(ValueError, match="^t must"):
            C.as_real_values(bad, "t")


# --- issue 27 item 15: a size is bounded by the memory it implies, and the message says so ---


def test_check_size_bounds_the_memory_and_says_so():
    from companion._checks import MAX_BYTES, check_memory, check_size

    assert check_size(MAX_BYTES // 32, "n", item_bytes=32) == MAX_BYTES // 32
    with pytest.raises(ValueError, match=r"n is too large for memory: .* 4 GiB per call \(at most 134,217,728 entries\)"):
        check_size(MAX_BYTES // 32 + 1, "n", item_bytes=32)
    with pytest.raises(ValueError, match="n must be an integer"):
        check_size(2.5, "n")
    check_memory(10**3 * 10**3, "n_reps", item_bytes=8)
    with pytest.raises(ValueError, match=r"n_reps is too large for memory: it implies 1e\+12 entries \(reps x bins\)"):
        check_memory(10**6 * 10**6, "n_reps", what="reps x bins")


def _memory_reproducers():
    from companion.binning_label_shift.experiments import theorem3_coverage
    from companion.calibration_sharpness import decomposition_across_priors
    from companion.label_shift_recalibration.experiments import ratio_event_frequency
    from companion.multiclass_lp import MulticlassScenario, top_label_ece
    from companion.multiclass_lp.guarantee_checks import two_worlds_demo
    from companion.scenarios import GaussianMixture, RatingScaleExample

    rows = np.full((4, 2), 0.5)
    return {
        "n": lambda: GaussianMixture(0.3, 2.0).sample(10**15, 0),
        "n_nodes": lambda: RatingScaleExample(n_nodes=10**15).target_masses,
        "n_trials": lambda: RatingScaleExample(n_trials=10**15).target_masses,
        "n_atoms": lambda: MulticlassScenario(3, n_atoms=10**9),
        "n ": lambda: decomposition_across_priors(n=10**9),
        "n_reps": lambda: theorem3_coverage(n_reps=10**12),
        "n_bins": lambda: top_label_ece(rows, np.array([0, 1, 0, 1]), n_bins=10**9),
        "n_bins_values": lambda: two_worlds_demo(n_bins_values=[10**15]),
        "mu": lambda: GaussianMixture(0.3, 1e6).population_risks(np.array([0, 0.5, 1.0]), np.array([0.25, 0.75])),
        "beta": lambda: ratio_event_frequency(1 + 1e-9, 0.1, 0.5, 0.1, 10),
    }


@pytest.mark.parametrize("arg", sorted(_memory_reproducers()))
def test_sizes_that_would_exhaust_memory_are_refused_up_front(arg):
    # each call used to raise MemoryError or OverflowError (or to allocate tens of GiB) after passing validation
    with pytest.raises(ValueError, match=rf"^{arg.strip()} (is too large for memory|must be at most|= )"):
        _memory_reproducers()[arg]()
