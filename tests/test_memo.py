"""Memoised drivers compute once per argument set and hand out independent copies."""

import numpy as np

from companion._memo import memoised


def _counting():
    calls = []

    @memoised
    def driver(n, grid=np.arange(3), rng=0):
        calls.append((n, rng))
        return {"values": np.asarray(grid) * n}

    return driver, calls


def test_equal_arguments_compute_once_defaults_included():
    driver, calls = _counting()
    first = driver(2)
    again = driver(n=2, grid=np.arange(3), rng=0)
    assert len(calls) == 1 and np.array_equal(first["values"], again["values"])
    driver(2, grid=np.arange(4))
    driver(2, rng=1)
    assert len(calls) == 3


def test_results_are_copies():
    driver, _ = _counting()
    driver(2)["values"][:] = -1
    assert np.array_equal(driver(2)["values"], [0, 2, 4])


def test_generators_are_never_cached():
    driver, calls = _counting()
    gen = np.random.default_rng(0)
    driver(2, rng=gen)
    driver(2, rng=gen)
    assert len(calls) == 2


# --- issue 27 item 14: the key holds values, never addresses; results never alias a caller's array ---


def test_object_arrays_are_keyed_by_value_not_by_address():
    # the bytes of an object array are pointers; freed ints' addresses are reused by the next array
    @memoised
    def echo(values):
        return np.array(values, dtype=np.int64)

    for i in range(300):  # freed ints' addresses come back within a few calls (CPython's allocator)
        v = [1000 + i, 3000 + 2 * i]
        a = np.array([int(str(x)) for x in v], dtype=object)
        assert echo(a).tolist() == v
        del a


def test_object_array_reproducer_of_the_grid_driver():
    from companion.uniform_mass_binning import umb_risk_grid_exact

    for v in ((1000, 3000), (2000, 4000), (5000, 7000)):
        a = np.array([int(str(x)) for x in v], dtype=object)
        assert umb_risk_grid_exact(a, (2,), 2)["n"].tolist() == list(v)
        del a


def test_an_argument_mutated_in_place_gets_a_fresh_result():
    @memoised
    def alias(values):
        return values  # a driver whose result aliases its argument

    a = np.array([1.0, 2.0])
    alias(a)
    a[0] = 5.0  # must change neither the cached result nor the next lookup
    assert alias(a).tolist() == [5.0, 2.0]
    assert alias(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]
    nested = np.empty(1, dtype=object)
    nested[0] = [1, 2]
    assert alias(nested)[0] == [1, 2]
    nested[0].append(3)  # an entry mutated in place: same address, new value
    assert alias(nested)[0] == [1, 2, 3]


def test_negative_zero_is_not_zero():
    @memoised
    def sign(x):
        return np.copysign(1.0, x)

    assert sign(0.0) == 1.0 and sign(-0.0) == -1.0
    assert sign(np.float32(0.0)) == 1.0 and sign(np.float32(-0.0)) == -1.0
    assert sign(np.array(0.0)) == 1.0 and sign(np.array(-0.0)) == -1.0
