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
