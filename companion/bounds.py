"""The papers' theorems as functions: bounds and the sample sizes they need.

Each function cites the theorem or equation of the book it implements and
validates its arguments (see :mod:`companion._checks`).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int, check_open_unit

# ---------------------------------------------------------------------------
# Chapter 2: uniform-mass binning (Theorem 1, eqs. (10)-(12))
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 5: label shift (Theorem 2, Corollary 9, Lemma 10)
# ---------------------------------------------------------------------------
