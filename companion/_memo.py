"""Memoised drivers: an expensive experiment is computed once per process and reused.

A chapter's figure cell calls the driver it needs, so it runs alone after the
set-up cell; when the chapter has already computed the same result (same
arguments), :func:`memoised` hands back a copy instead of computing it again.
The key is built from the arguments bound to the signature (defaults
included) and holds their VALUES, never an object's address: a float by its
bits (so ``-0.0`` and ``0.0`` are different keys), a numeric array by dtype,
shape and bytes, an object array entry by entry, like a list.  The key is
taken when the call is made and the result is stored as a deep copy, so an
argument mutated in place later (or a result that aliases an argument) cannot
change what the cache hands out.  A call whose arguments hold a
``numpy.random.Generator`` (whose state changes with use) or another object
without a stable value key is computed, not cached.
"""

from __future__ import annotations

import copy
import functools
import inspect

import numpy as np

__all__ = ["memoised"]


class _Unkeyable(Exception):
    """An argument has no stable key (a generator, an arbitrary object)."""


def _key(value):
    """A hashable key equal for two arguments exactly when their values (types, bits, shapes) are equal."""
    if isinstance(value, (float, np.floating)):  # bits: -0.0 != 0.0, every NaN payload its own key
        return (type(value).__name__, np.float64(value).tobytes() if isinstance(value, float) else value.tobytes())
    if isinstance(value, complex):
        return ("complex", _key(value.real), _key(value.imag))
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, np.generic):
        return ("np", value.dtype.str, value.tobytes())
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:  # the bytes of an object array are addresses, reused once an entry is freed
            return ("ndarray", "O", value.shape, tuple(_key(v) for v in value.ravel().tolist()))
        return ("ndarray", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, (list, tuple, range)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), _key(v)) for k, v in value.items())))
    raise _Unkeyable(type(value).__name__)


def memoised(func):
    """Decorate a driver so that repeated calls with equal arguments return a deep copy of the first result."""
    signature = inspect.signature(func)
    cache: dict = {}

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            key = _key(tuple(bound.arguments.items()))
        except _Unkeyable:
            return func(*args, **kwargs)
        if key not in cache:
            cache[key] = copy.deepcopy(func(*args, **kwargs))
        return copy.deepcopy(cache[key])

    wrapper.cache_clear = cache.clear
    return wrapper
