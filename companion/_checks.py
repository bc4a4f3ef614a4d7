"""Input validation shared by every public function of the companion, and its one exception type for iterations.

Each helper either returns a clean ``numpy`` array / number or raises a
``ValueError`` whose message names the offending argument and the rule it
broke.  Nothing is clipped, dropped or guessed.  An iterative method that
fails raises :class:`ConvergenceError`, also a ``ValueError``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "check_real",
    "check_bool",
    "check_option",
    "check_callable",
    "check_tolerance",
    "check_nonempty",
    "as_sequence",
    "as_sizes",
    "as_real_values",
    "as_probabilities",
    "as_labels",
    "as_real_array",
    "check_same_length",
    "check_open_unit",
    "check_int",
    "check_size",
    "check_memory",
    "check_both_classes",
    "check_positive",
    "as_positive_ints",
    "as_weights",
    "as_edges",
    "as_masses",
    "as_rng",
    "input_eps",
    "tie_eps",
    "simplex_tolerance",
    "ConvergenceError",
]


#: The largest integer the companion accepts for a count (sizes, bins, repetitions): exact in a
#: float64 and far from the int64 limit, so ``2 * n`` and ``n + 1`` cannot overflow anywhere.
MAX_INT = 2**53

#: The most memory (bytes) the arrays one size argument implies may take: 4 GiB.  A size that
#: would need more is refused up front by :func:`check_memory` / :func:`check_size`, with a
#: message that gives the memory it implies, instead of a MemoryError (or swapping) part-way.
MAX_BYTES = 2**32

#: Tolerance on the row sums of a probability matrix.
SIMPLEX_ATOL = 1e-9


#: Array dtype kinds that hold real numbers (signed and unsigned integers, floats).
_REAL_KINDS = "iuf"


def _unwrap_0d(x):
    """A 0-d numpy array of a real dtype (``np.array(0.5)``) as its numpy scalar; anything else unchanged."""
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in _REAL_KINDS:
        return x[()]
    return x


def _real_scalar(x, name: str, rule: str) -> float:
    """``x`` as a Python float if it is a real number (not bool, str, complex); else a ValueError.

    Python and numpy real scalars, ``fractions.Fraction`` and 0-d real arrays are real numbers.
    """
    x = _unwrap_0d(x)
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{name} must be {rule}, got {x!r}")
    try:
        return float(x)
    except OverflowError:
        raise ValueError(f"{name} must be {rule}, got an integer too large for a float") from None


def check_real(x, name: str, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """Return ``x`` as a finite float, optionally within ``[minimum, maximum]``."""
    rule = "a finite real number"
    if minimum is not None or maximum is not None:
        lo = "-inf" if minimum is None else f"{minimum:g}"
        hi = "inf" if maximum is None else f"{maximum:g}"
        rule += f" in [{lo}, {hi}]"
    value = _real_scalar(x, name, rule)
    if not np.isfinite(value) or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {rule}, got {x!r}")
    return value


def check_bool(x, name: str) -> bool:
    """Return ``x`` if it is a bool (Python or numpy); truthiness (``"False"``, ``1``) is not accepted."""
    if not isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {x!r}")
    return bool(x)


def check_option(x, name: str, options) -> object:
    """Return ``x`` if it is one of ``options`` (compared by equality, same type)."""
    options = tuple(options)
    if not any(type(x) is type(o) and x == o for o in options):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {x!r}")
    return x


def check_callable(f, name: str):
    """Return ``f`` if it can be called."""
    if not callable(f):
        raise ValueError(f"{name} must be callable, got {type(f).__name__}")
    return f


def check_tolerance(x, name: str) -> float:
    """Return a solver tolerance: a finite float with 0 < x < 1."""
    value = _real_scalar(x, name, "a real tolerance in (0, 1)")
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must be a real tolerance in (0, 1), got {x!r}")
    return value


def check_nonempty(values, name: str) -> tuple:
    """Return ``values`` (any iterable but a string) as a tuple holding at least one item."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, np.ndarray, range)):
        raise ValueError(f"{name} must be a list, tuple or array of values, got {type(values).__name__}")
    values = tuple(np.asarray(values).ravel().tolist()) if isinstance(values, np.ndarray) else tuple(values)
    if not values:
        raise ValueError(f"{name} must hold at least one value")
    return values


def as_real_array(x, name: str, *, ndim: int = 1, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a finite float array of dimension ``ndim``.

    Only real numbers are accepted: strings (even numeric ones), booleans,
    complex numbers and integers too large for a float raise a ``ValueError``.
    """
    raw = x if isinstance(x, np.ndarray) else None
    if raw is None:
        try:
            raw = np.asarray(x)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if raw.dtype.kind == "O":
        items = raw.ravel().tolist()
        if not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in items):
            raise ValueError(f"{name} must be an array of real numbers (found {raw.dtype} entries that are not)")
    elif raw.dtype.kind not in _REAL_KINDS:
        raise ValueError(f"{name} must be an array of real numbers, got dtype {raw.dtype}")
    try:
        arr = raw.astype(float)
    except (TypeError, ValueError, OverflowError) as exc:
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
    if not arrays:
        raise ValueError("check_same_length needs at least one named array")
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length ({detail})")
    return next(iter(lengths.values()))


def check_open_unit(x, name: str) -> float:
    """Return ``x`` as a float, requiring 0 < x < 1 (alpha, delta, priors)."""
    x = _real_scalar(x, name, "a real number in (0, 1)")
    if not (0.0 < x < 1.0):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {x!r}")
    return x


def check_int(n, name: str, *, minimum: int = 1, maximum: int = MAX_INT) -> int:
    """Return ``n`` as a Python int, requiring ``minimum <= n <= maximum``.

    A float is accepted when it holds an integer value (``5.0``); the bounds
    are checked on the Python int, before any arithmetic, so numpy integer
    scalars cannot wrap around.
    """
    n = _unwrap_0d(n)
    if isinstance(n, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got {n!r}")
    if not isinstance(n, numbers.Integral):
        if isinstance(n, numbers.Real) and np.isfinite(float(n)) and float(n).is_integer():
            n = int(n)
        else:
            raise ValueError(f"{name} must be an integer, got {n!r}")
    n = int(n)
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {n}")
    if n > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {n}")
    return n


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB"


def check_memory(n_items, name: str, *, item_bytes: int = 8, what: str = "") -> None:
    """Raise a ValueError naming ``name`` if ``n_items`` items of ``item_bytes`` bytes exceed :data:`MAX_BYTES`.

    ``n_items`` is the number of array entries the size argument ``name``
    implies (a Python int, so the product cannot overflow); ``what`` says how
    (``"n_reps * len(n_values)"``).  The message gives the memory needed, the
    limit and the largest admissible count.
    """
    need = int(n_items) * int(item_bytes)
    if need > MAX_BYTES:
        how = f" ({what})" if what else ""
        raise ValueError(
            f"{name} is too large for memory: it implies {int(n_items):.3g} entries{how} of {item_bytes} bytes, "
            f"{_gib(need)}, above the companion's limit of {_gib(MAX_BYTES)} per call "
            f"(at most {MAX_BYTES // int(item_bytes):,} entries)")


#: Largest accepted chance that every redraw of a sample misses a class (see :func:`check_both_classes`).
MAX_REDRAW_FAILURE = 1e-9


def check_both_classes(prior: float, n: int, prior_name: str, size_name: str, *, draws: int) -> None:
    r"""Refuse, naming both arguments, a two-class prior and sample size whose samples so rarely hold both classes
    that ``draws`` redraws may all miss one.

    A sample of size ``n`` holds both classes with probability
    :math:`P = 1 - \pi^n - (1-\pi)^n`; all ``draws`` draws miss a class with
    probability :math:`(1-P)^{\text{draws}}`, which must be at most
    :data:`MAX_REDRAW_FAILURE` (for 10**4 draws :math:`P \gtrsim 2.1\times10^{-3}`;
    a prior of ``1e-300`` needs ``n`` beyond any sample).
    """
    both = -math.expm1(n * math.log1p(-prior)) - math.exp(n * math.log(prior))
    if both < 1.0 and draws * math.log1p(-both) > math.log(MAX_REDRAW_FAILURE):
        raise ValueError(
            f"{prior_name} = {prior!r} with {size_name} = {n}: a sample holds both classes with probability {both:.3g}, "
            f"so {draws} redraws all miss a class with probability above {MAX_REDRAW_FAILURE:g}; "
            "the sample is too small for this prior"
        )


def check_size(n, name: str, *, minimum: int = 1, item_bytes: int = 8, what: str = "") -> int:
    """:func:`check_int` for a size that sets an array's length: also bounded by the memory it implies.

    ``item_bytes`` is the memory one unit of ``n`` takes (all arrays of that
    length together, e.g. ``32`` for four float64 arrays of length ``n``).
    """
    n = check_int(n, name, minimum=minimum)
    check_memory(n, name, item_bytes=item_bytes, what=what)
    return n


def check_positive(x, name: str) -> float:
    """Return ``x`` as a float, requiring a finite number greater than 0."""
    value = _real_scalar(x, name, "a finite positive number")
    if not (0.0 < value < np.inf):
        raise ValueError(f"{name} must be a finite positive number, got {x!r}")
    return value


def as_positive_ints(x, name: str) -> np.ndarray:
    """Return an integer array (any shape, scalars included) whose entries are all at least 1."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a non-empty integer or array of integers, got {x!r}") from None
    if arr.size == 0 or arr.dtype.kind not in _REAL_KINDS:
        raise ValueError(f"{name} must be a non-empty integer or array of integers, got {x!r}")
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must hold integers, got {x!r}")
    if np.any(arr < 1):
        raise ValueError(f"{name} must be at least 1, got {x!r}")
    if np.any(arr > MAX_INT):
        raise ValueError(f"{name} must be at most {MAX_INT}, got {x!r}")
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


def input_eps(x) -> float:
    """Machine epsilon of the input's floating-point type (float64's for lists, integers and exact types)."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return float(max(np.finfo(dtype).eps, np.finfo(np.float64).eps))
    return float(np.finfo(np.float64).eps)


def tie_eps(x) -> float:
    """Epsilon of the tie rules (weighted thresholds, oracle sets): float32's for float32 and narrower inputs.

    A float16 input is read as the exact values it holds, at float32's epsilon: its own, 2^-10, would
    make a tolerance of several per cent, calling genuine shortfalls ties (decimal ties in float16 are
    then not recognised; pass float32 or float64 for those).
    """
    narrow = input_eps(x) > np.finfo(np.float64).eps
    return float(np.finfo(np.float32 if narrow else np.float64).eps)


def simplex_tolerance(x, n_terms: int, atol: float = SIMPLEX_ATOL) -> float:
    """The companion's one rule for probability rows and vectors given in a low-precision float type.

    Any real dtype is accepted (float16, float32, float64, integers) and
    converted to float64 for the computation; ``n_terms`` entries must sum to 1
    within ``max(atol, n_terms * eps)``, ``eps`` the machine epsilon of the
    input's type (:func:`input_eps`): float32 rows that sum to 1 in float32
    are off by up to about ``k * 6e-8`` in float64.  Nothing is renormalised.
    """
    return max(float(atol), int(n_terms) * input_eps(x))


def as_masses(m, name: str, *, atol: float = 1e-10) -> np.ndarray:
    """Return a probability vector: non-negative entries summing to 1 within ``atol`` (:func:`simplex_tolerance`)."""
    arr = as_real_array(m, name)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative")
    total = arr.sum()
    tol = simplex_tolerance(m, arr.size, atol)
    if abs(total - 1.0) > tol:
        raise ValueError(f"{name} must sum to 1 (within {tol:g}), got {total!r}")
    return arr


def as_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a Generator or an integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"{name} must be a numpy.random.Generator or a non-negative integer seed, got {rng!r}")


def as_sequence(values, name: str, *, scalar: bool = False) -> np.ndarray:
    """Return ``values`` as a non-empty 1-D array of real entries (not yet checked one by one).

    With ``scalar`` a single number is accepted as a sequence of one.  Strings,
    booleans, complex numbers, ragged nesting and more than one dimension raise
    a ``ValueError`` naming ``name``; the caller checks each entry under
    ``"<name> entries"``.
    """
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a 1-D sequence of numbers, got {values!r}") from None
    if scalar:
        raw = np.atleast_1d(raw)
    if raw.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of numbers, got shape {raw.shape}")
    if raw.size == 0:
        raise ValueError(f"{name} must hold at least one value")
    if raw.dtype.kind not in _REAL_KINDS + "O":
        raise ValueError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    if any(isinstance(v, (bool, np.bool_)) for v in raw.ravel().tolist() if raw.dtype.kind == "O") or (
            isinstance(values, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in values)):
        raise ValueError(f"{name} must hold numbers, not booleans (True would be read as 1), got {values!r}")
    return raw


def as_sizes(values, name: str, *, minimum: int = 1, scalar: bool = False) -> list[int]:
    """Return a non-empty 1-D sequence of integers ``>= minimum`` (sample sizes, bin counts) as Python ints.

    The sequence is checked by :func:`as_sequence`, each entry by
    :func:`check_int` under the name ``"<name> entries"``.
    """
    return [check_int(v, f"{name} entries", minimum=minimum) for v in as_sequence(values, name, scalar=scalar).tolist()]


def as_real_values(x, name: str) -> np.ndarray:
    """Return ``x`` (a real scalar or an array of any shape) as a finite, non-empty float array."""
    try:
        ndim = np.ndim(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of real numbers") from None
    return as_real_array(x, name, ndim=ndim)


def _nonempty_rows(items, name: str) -> list:
    """A non-empty sequence of arrays as a list: a list or tuple of arrays, or the rows of a 2-D array."""
    if isinstance(items, np.ndarray) and items.ndim >= 2:
        return list(items)
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a non-empty list of arrays, got {type(items).__name__}")
    if len(items) == 0:
        raise ValueError(f"{name} must hold at least one array")
    return list(items)


class ConvergenceError(ValueError):
    """An iterative estimator (the EM of MLLS, a calibration fit, the RLLS solver) did not converge."""


def as_points(x, name: str) -> np.ndarray:
    """``x`` as a non-empty, finite float array of at least one dimension (points along the last axis)."""
    try:
        nd = np.ndim(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if nd < 1 or x is None:
        raise ValueError(f"{name} must be an array of points (coordinates in its last axis), got {x!r}")
    return as_real_array(x, name, ndim=nd)


def as_cut_points(edges, name: str, *, strict: bool = False) -> np.ndarray:
    """Sorted cut points of a real line: a 1-D real array of at least two entries, no NaN.

    The first entry may be ``-inf`` and the last ``+inf`` (open end bins); every
    other entry is finite.  ``strict``: strictly increasing.
    """
    try:
        raw = np.asarray(edges)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of cut points ({exc})") from None
    if raw.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a 1-D array of real cut points, got {raw.dtype} entries")
    e = raw.astype(float)
    if e.ndim != 1 or e.size < 2:
        raise ValueError(f"{name} must be a 1-D array with at least two cut points, got shape {e.shape}")
    if np.any(np.isnan(e)) or not np.all(np.isfinite(e[1:-1])) or e[0] == np.inf or e[-1] == -np.inf:
        raise ValueError(f"{name} must be finite except for a first entry -inf and a last entry +inf")
    gaps = np.diff(e)
    if np.any(gaps <= 0) if strict else np.any(gaps < 0):
        raise ValueError(f"{name} must be {'strictly increasing' if strict else 'sorted in non-decreasing order'}")
    return e


def as_cut_point_list(edges, name: str, n_axes: int, *, strict: bool = False) -> list:
    """One array of cut points per axis (a list, tuple or 2-D array of ``n_axes`` rows)."""
    if isinstance(edges, (str, bytes, dict)) or not isinstance(edges, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a list holding one array of cut points per contrast ({n_axes}), got {type(edges).__name__}")
    if len(edges) != n_axes:
        raise ValueError(f"{name} must hold one array of cut points per contrast ({n_axes}), got {len(edges)}")
    return [as_cut_points(e, f"{name}[{r}]", strict=strict) for r, e in enumerate(edges)]
