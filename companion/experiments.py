"""One driver per figure or table of the papers.

Each driver runs the simulation or computation at full scale (or at a scale
its arguments choose) and returns arrays or a table; it never plots.
Chapters plot the results, ``benchmarks/`` time them and ``tests/`` check them.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_rng, check_int
from .metrics import mse_decomposition
from .scenarios import GaussianMixture

# ---------------------------------------------------------------------------
# Chapter 1 (paper 000, sections 2-3)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 2 (paper 000, section 4 and Appendix E.1): Figures 1-2
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 5 (paper 000, section 5 and Appendix E.2): Table 1, Figure 4
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Chapter 8 (paper 003): Table 1, Figures 1-2
# ---------------------------------------------------------------------------
