"""Input validation shared by every public function of the companion.

Each helper either returns a clean ``numpy`` array / number or raises a
``ValueError`` whose message names the offending argument and the rule it
broke.  Nothing is clipped, dropped or guessed.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_probabilities",
    "as_labels",
    "as_real_array",
    "check_same_length",
    "check_open_unit",
    "check_int",
    "check_positive",
    "as_positive_ints",
    "as_weights",
    "as_edges",
    "as_masses",
    "as_rng",
]


def as_real_array(x, name: str, *, ndim: int = 1, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a finite float array of dimension ``ndim``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (found NaN or infinity)")
    return arr


def as_probabilities(p, name: str, *, ndim: int = 1, open_interval: bool = False) -> np.ndarray:
    """Return ``p`` as a finite float array with every entry in [0, 1] (or (0, 1))."""
    arr = as_real_array(p, name, ndim=ndim)
    if open_interval:
        if np.any((arr <= 0.0) | (arr >= 1.0)):
            raise ValueError(f"{name} must lie in the open interval (0, 1)")
    elif np.any((arr < 0.0) | (arr > 1.0)):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr


def as_labels(y, name: str, *, n_classes: int = 2) -> np.ndarray:
    """Return integer labels in {0, ..., n_classes - 1} as an ``int64`` array.

    Integer and boolean arrays take a fast path (a min/max range check) that
    skips the float conversion, which dominates for samples of 10^7 labels.
    """
    allowed = "{0, 1}" if n_classes == 2 else f"{{0, ..., {n_classes - 1}}}"
    error = ValueError(f"{name} must contain only labels in {allowed}")
    raw = np.asarray(y)
    if raw.dtype.kind in "biu" and raw.ndim == 1 and raw.size > 0:
        if raw.min() < 0 or raw.max() > n_classes - 1:
            raise error
        return raw.astype(np.int64, copy=False)
    arr = as_real_array(raw, name)
    if np.any(arr != np.round(arr)) or np.any((arr < 0) | (arr > n_classes - 1)):
        raise error
    return arr.astype(np.int64)


def check_same_length(**arrays: np.ndarray) -> int:
    """Raise unless every array has the same length; return that length."""
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length ({detail})")
    return next(iter(lengths.values()))


def check_open_unit(x, name: str) -> float:
    """Return ``x`` as a float, requiring 0 < x < 1 (alpha, delta, priors)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name} must be a real number in (0, 1), got {x!r}")
    x = float(x)
    if not (0.0 < x < 1.0):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {x!r}")
    return x


def check_int(n, name: str, *, minimum: int = 1) -> int:
    """Return ``n`` as an int, requiring ``n >= minimum``."""
    if isinstance(n, bool):
        raise ValueError(f"{name} must be an integer, got {n!r}")
    if not isinstance(n, numbers.Integral):
        if isinstance(n, numbers.Real) and float(n).is_integer():
            n = int(n)
        else:
            raise ValueError(f"{name} must be an integer, got {n!r}")
    n = int(n)
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {n}")
    return n


def check_positive(x, name: str) -> float:
    """Return ``x`` as a float, requiring a finite number greater than 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not (0.0 < float(x) < np.inf):
        raise ValueError(f"{name} must be a finite positive number, got {x!r}")
    return float(x)


def as_positive_ints(x, name: str) -> np.ndarray:
    """Return an integer array (any shape, scalars included) whose entries are all at least 1."""
    arr = np.asarray(x)
    if arr.size == 0 or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a non-empty integer or array of integers, got {x!r}")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integers, got {x!r}")
    if np.any(arr < 1):
        raise ValueError(f"{name} must be at least 1, got {x!r}")
    return arr.astype(np.int64)


def as_weights(w, name: str) -> np.ndarray:
    """Return non-negative, finite weights that are not all zero."""
    arr = as_real_array(w, name)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    if not np.any(arr > 0):
        raise ValueError(f"{name} must not be all zero")
    return arr


def as_edges(edges, name: str = "edges") -> np.ndarray:
    """Return bin edges on [0, 1]: non-decreasing, starting at 0 and ending at 1."""
    arr = as_probabilities(edges, name)
    if arr.size < 2:
        raise ValueError(f"{name} must have at least two entries (one bin)")
    if np.any(np.diff(arr) < 0):
        raise ValueError(f"{name} must be sorted in non-decreasing order")
    if arr[0] != 0.0 or arr[-1] != 1.0:
        raise ValueError(f"{name} must start at 0 and end at 1")
    return arr


def as_masses(m, name: str, *, atol: float = 1e-10) -> np.ndarray:
    """Return a probability vector: non-negative entries summing to 1 within ``atol``."""
    arr = as_real_array(m, name)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    total = arr.sum()
    if abs(total - 1.0) > atol:
        raise ValueError(f"{name} must sum to 1 (within {atol:g}), got {total!r}")
    return arr


def as_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a Generator or an integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"{name} must be a numpy.random.Generator or a non-negative integer seed, got {rng!r}")
