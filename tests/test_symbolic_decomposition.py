"""companion.calibration_sharpness.derivations: eq. (2) and Proposition 1 on finite laws, the posterior log-odds, the prior-free MSE."""

import pytest
import sympy as sp

from companion.calibration_sharpness import (
    finite_joint_distribution,
    mirror_symmetry_mse,
    mse_decomposition_residual,
    proposition1_residual,
    set_partitions,
)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_proposition1_for_every_grouping_of_m_values(m):
    partitions = list(set_partitions(list(range(m))))
    assert len(partitions) == [1, 2, 5, 15][m - 1]  # Bell numbers: every grouping map is covered
    assert len({str(sorted(map(sorted, p))) for p in partitions}) == len(partitions)  # no repeats
    for groups in partitions:
        residual, risks = proposition1_residual(groups)
        assert residual == 0
        assert risks["risk"] != 0  # the identity is not vacuous


def test_a_wrong_identity_is_detected():
    # Dropping the sharpness term must leave a non-zero residual: the check can fail.
    _, risks = proposition1_residual([[0, 1], [2]])
    assert sp.simplify(risks["risk"] - risks["calibration"]) != 0


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_mse_decomposition_identity(m):
    residual, terms = mse_decomposition_residual(m)
    assert residual == 0
    assert sp.expand(terms["mse"] - terms["variance"]) != 0


def test_masses_sum_to_one_and_bad_groups():
    law = finite_joint_distribution(4)
    assert sp.simplify(sum(law.masses) - 1) == 0
    with pytest.raises(ValueError, match="groups must partition"):
        proposition1_residual([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="m must be at least 1"):
        finite_joint_distribution(0)


def test_gaussian_posterior_log_odds():
    from companion.calibration_sharpness import gaussian_posterior_log_odds

    log_odds, residual = gaussian_posterior_log_odds()
    assert residual == 0
    # Independent numeric check of the log odds at one point.
    x, mu, pi = sp.Symbol("x", real=True), sp.Symbol("mu", positive=True), sp.Symbol("pi", positive=True)
    val = log_odds.subs({x: 0.3, mu: 2, pi: sp.Rational(1, 10)})
    assert abs(float(val) - (2 * 2 * 0.3 + float(sp.log(sp.Rational(1, 9))))) < 1e-14


def test_mirror_symmetry_makes_the_mse_prior_free():
    derivative, parts = mirror_symmetry_mse()
    assert derivative == 0
    assert parts["sigmoid"] == 0 and parts["integrand"] == 0
    # the unreflected derivative is E_1 - E_0: two different-looking integrals, not a trivial zero
    assert isinstance(parts["dmse_dprior"], sp.Add) and parts["dmse_dprior"] != 0
    pi = sp.Symbol("pi", positive=True)
    assert sp.diff(parts["mse"], pi) == parts["dmse_dprior"]


@pytest.mark.parametrize("offset", [1, sp.Rational(-1, 2)])
def test_mirror_symmetry_fails_for_a_shifted_forecaster(offset):
    """The check can fail: sigma(x + c) with c != 0 leaves a non-zero integrand."""
    derivative, parts = mirror_symmetry_mse(offset)
    assert parts["integrand"] != 0
    assert derivative != 0
    # and the integrand is really non-zero as a function (not a simplification artefact)
    x, mu = sp.Symbol("x", real=True), sp.Symbol("mu", positive=True)
    assert abs(float(parts["integrand"].subs({x: sp.Rational(3, 10), mu: 2}))) > 1e-3


def test_mirror_symmetry_integrand_numerically():
    """E_1 = E_0 by numerical integration of the two integrands the function builds (independent of simplify)."""
    import mpmath as mp

    _, parts = mirror_symmetry_mse()
    x, mu = sp.Symbol("x", real=True), sp.Symbol("mu", positive=True)
    integrals = parts["dmse_dprior"].atoms(sp.Integral)
    assert len(integrals) == 2
    mp.mp.dps = 25
    values = [mp.quad(sp.lambdify(x, i.function.subs(mu, 2), "mpmath"), [-mp.inf, 0, mp.inf]) for i in integrals]
    assert abs(values[0] - values[1]) < 1e-20 and values[0] > 0.03


def test_builders_reject_bad_sizes_and_objects():
    """Issue 13: counts through check_int with a bound, sequences of the right kind, errors naming the argument."""
    import numpy as np

    from companion.calibration_sharpness import (
        finite_joint_distribution,
        proposition1_residual,
        set_partitions,
    )

    for bad in (2.5, True, "3", None, np.uint64(2**64 - 1), 10**400, 41):
        with pytest.raises(ValueError, match="m "):
            finite_joint_distribution(bad)
    assert len(finite_joint_distribution(np.int64(3)).masses) == 3
    for bad in (None, 3, "x", {}, range(11)):
        with pytest.raises(ValueError, match="items"):
            set_partitions(bad)
    assert set_partitions([]) == [[]]
    assert len(set_partitions(np.arange(4))) == 15  # Bell(4)
    for bad in (None, 3, {}, [], [[0, 1.5]], [[True]]):
        with pytest.raises(ValueError, match="groups"):
            proposition1_residual(bad)
