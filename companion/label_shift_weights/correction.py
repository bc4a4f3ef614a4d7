"""Label encoding, probability rows and the Bayes correction of a posterior under label shift (paper 001, eq. (16)).

Labels may be of any hashable, mutually comparable type; they are mapped
once to ``0, ..., k-1`` in the order of ``classes`` (column ``j`` of every
probability matrix belongs to ``classes[j]``).  Book label:
``prop-lsw-bayes-correction``.
"""

from __future__ import annotations

import numpy as np

from .._checks import SIMPLEX_ATOL, as_real_array, as_weights, check_real, check_size, simplex_tolerance


__all__ = [ "as_simplex_rows", "encode_labels", "posterior_correction"]


# ---------------------------------------------------------------------------
# Validation of probability matrices and labels
# ---------------------------------------------------------------------------


def as_simplex_rows(probs, name: str, *, atol: float = SIMPLEX_ATOL) -> np.ndarray:
    """Return ``probs`` as an ``(n, k)`` float array whose rows lie in the probability simplex.

    Every entry must be finite and in [0, 1], every row must sum to 1 within
    ``atol`` (a finite number >= 0; for float32 input, within k times its
    epsilon: :func:`companion._checks.simplex_tolerance`), and there must be at least two columns
    (classes).  ``name`` is the caller's argument name, used in the messages.
    """
    atol = check_real(atol, "atol", minimum=0.0)
    arr = as_real_array(probs, name, ndim=2)
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least two columns (one per class), got shape {arr.shape}")
    if not (arr.min() >= 0.0 and arr.max() <= 1.0):  # finite already: two reductions check the range
        raise ValueError(f"{name} must hold probabilities in [0, 1] (rows of the simplex)")
    off = np.abs(arr @ np.ones(arr.shape[1]) - 1.0)  # row sums by one matrix-vector product
    row = int(np.argmax(off))
    if off[row] > simplex_tolerance(probs, arr.shape[1], atol):
        raise ValueError(f"{name} must have rows summing to 1 (rows of the simplex); row {row} is off by {off[row]:.3g}")
    return arr


def encode_labels(y, name: str, n_classes: int, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """Map labels of any hashable, comparable type to codes ``0, ..., n_classes - 1``.

    Parameters
    ----------
    y : array_like, shape (n,)
        Labels.
    name : str
        Argument name used in error messages.
    n_classes : int
        Number of classes ``k`` (columns of the probability matrices).
    classes : sequence, optional
        The ``k`` distinct labels, in the order of the probability columns.
        Default: ``0, ..., k-1`` when ``y`` holds integers in that range,
        otherwise the sorted distinct values of ``y`` (which must then
        number exactly ``k``).

    Returns
    -------
    codes : numpy.ndarray of int64
    classes : numpy.ndarray
        The labels of the columns, in column order.
    """
    n_classes = check_size(n_classes, "n_classes", minimum=2, what="the int64 class codes 0, ..., n_classes - 1")
    y = _as_label_vector(y, name)
    if classes is None and y.dtype.kind in "iu" and y.min() >= 0 and y.max() < n_classes:
        # labels that are already the positions 0, ..., k-1: no sort, the labels are the codes
        return y.astype(np.int64, copy=False), np.arange(n_classes)
    try:
        uniq, inverse = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"{name} must hold mutually comparable labels ({exc})") from None
    if classes is None:
        if uniq.dtype.kind in "iu" and uniq[0] >= 0 and uniq[-1] < n_classes:
            classes = np.arange(n_classes)
        elif uniq.size == n_classes:
            classes = uniq
        else:
            raise ValueError(
                f"{name} holds {uniq.size} distinct labels but the probabilities have {n_classes} columns; "
                "pass classes= to name the label of every column"
            )
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size != n_classes:
        raise ValueError(f"classes must list one label per probability column ({n_classes}), got {classes.size}")
    lookup = {}
    for j, c in enumerate(classes.tolist()):
        if c in lookup:
            raise ValueError(f"classes must be distinct; {c!r} appears twice")
        lookup[c] = j
    codes_of_uniq = np.empty(uniq.size, dtype=np.int64)
    for i, u in enumerate(uniq.tolist()):  # a loop over the distinct labels only
        if u not in lookup:
            raise ValueError(f"{name} contains the label {u!r}, which is not one of classes {classes.tolist()!r}")
        codes_of_uniq[i] = lookup[u]
    return codes_of_uniq[inverse.reshape(-1)], classes


def _as_label_vector(y, name: str) -> np.ndarray:
    """``y`` as a non-empty 1-D array of labels of a hashable, comparable kind (not complex, not NaN).

    Labels are not parsed: strings stay strings (class ``"0"`` is not class ``0``).
    """
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-dimensional array of labels ({exc})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-dimensional array of labels, got shape {arr.shape}")
    if arr.dtype.kind in "cV" or (arr.dtype.kind == "O" and any(isinstance(v, complex) for v in arr.tolist())):
        raise ValueError(f"{name} must hold real or string labels, got complex entries")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must not contain NaN or infinite labels")
    return arr


def _class_frequencies(codes: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
    """Label frequencies; every class must occur (assumption (A1) needs p(y) > 0 to identify w(y))."""
    counts = np.bincount(codes, minlength=classes.size)
    if np.any(counts == 0):
        absent = classes.tolist()[int(np.flatnonzero(counts == 0)[0])]
        raise ValueError(
            f"class {absent!r} is absent from {name}: its source prior is estimated as 0, so its "
            "importance weight q/p is not identifiable (assumption (A1))"
        )
    return counts / codes.size


def _check_same_classes(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"{name_a} and {name_b} must have the same number of columns (classes), got {a.shape[1]} and {b.shape[1]}")


def _check_rows(probs: np.ndarray, codes: np.ndarray, name_p: str, name_y: str) -> None:
    """``probs`` (validated rows) and the encoded labels ``codes`` must have the same length."""
    if probs.shape[0] != codes.shape[0]:
        raise ValueError(f"{name_p} and {name_y} must have the same length (rows), got {probs.shape[0]} and {codes.shape[0]}")


# ---------------------------------------------------------------------------
# The Bayes correction (paper 001 eq. (16))
# ---------------------------------------------------------------------------


#: Largest weight :func:`posterior_correction` accepts (only ratios matter: divide by the largest weight).
MAX_WEIGHT = 1e300


def posterior_correction(probs, weights) -> np.ndarray:
    r"""The Bayes correction of posteriors to a new prior: :math:`g_w(\eta)_y = w_y\eta_y / \sum_j w_j\eta_j`.

    Paper 001, eq. (16); book ``alg-lsw-bayes-correction`` and
    ``prop-lsw-bayes-correction``.  With the true weights :math:`w^* = q/p`
    and the true source posterior it returns the true target posterior;
    applied to the bin frequencies of a binning recalibrator it is eq. (17)
    of the paper.

    Parameters
    ----------
    probs : array_like, shape (n, k), or (k,) for one row
        Rows of the simplex (source posteriors or bin frequencies); float32 rows
        are accepted within their precision.
    weights : array_like, shape (k,)
        Weights in [0, 1e300], not all zero; only their ratios matter.

    Returns
    -------
    numpy.ndarray
        The corrected rows, of the shape of ``probs``.

    Raises
    ------
    ValueError
        If ``probs`` is not of shape (n, k) or (k,) with ``k = len(weights)``
        (one column of a ``predict_proba`` array is not enough), or a row puts
        all its mass on classes of weight 0 (then eq. (16) is 0/0; see
        ``rem-lsw-bayes-q-null``).

    Examples
    --------
    >>> posterior_correction([[0.5, 0.5], [0.8, 0.2]], [0.4, 1.6]).round(3)
    array([[0.2, 0.8],
           [0.5, 0.5]])
    """
    w = _check_weights(weights)
    eta = _check_posterior_rows(probs, w.size)
    w = w / w.max()  # only the ratios matter: products at most 1, none lost to underflow by the scale
    u = eta * w  # step 1: u_ty = w_y eta_ty
    total = u.sum(axis=1)
    if np.any(total <= 0.0):
        row = int(np.flatnonzero(total <= 0.0)[0])
        raise ValueError(f"probs row {row} puts all its mass on classes of weight 0, so eq. (16) is 0/0 there")
    corrected = u / total[:, None]  # step 2: renormalise each row
    return corrected[0] if np.ndim(probs) == 1 else corrected


def _check_weights(weights) -> np.ndarray:
    """The weights of :func:`posterior_correction`: in [0, MAX_WEIGHT], not all zero."""
    w = as_weights(weights, "weights")
    if w.ndim != 1 or w.max() > MAX_WEIGHT:
        raise ValueError(f"weights must be a vector of numbers in [0, {MAX_WEIGHT:g}] (only their ratios matter), "
                         f"got shape {w.shape} and largest {w.max():g}")
    return w


def _check_posterior_rows(probs, k: int) -> np.ndarray:
    """``probs`` as rows of the simplex with ``k`` columns; a 1-D array is one row and must have length ``k``."""
    if np.ndim(probs) not in (1, 2) or np.shape(probs)[-1] != k:
        hint = " (pass every column of predict_proba, not one)" if np.ndim(probs) == 1 else ""
        raise ValueError(f"probs must have shape (n, k), or (k,) for one row, with k = {k} columns, one per entry of "
                         f"weights; got shape {np.shape(probs)}{hint}")
    return as_simplex_rows(np.atleast_2d(probs), "probs")
