"""The companion of the chapter on distribution-free calibration by binning under label shift (``chap-binning-label-shift``).

Paper 001, section 3 and Appendices C-D.

The modules, in reading order:

canonical_binning
    Partitions of the simplex, canonical binning and its label-shift corrected version.
bounds
    Theorem 3 (Bretagnolle-Huber-Carol), Theorem 4 and the combined target guarantee.
derivations
    SymPy checks of Theorem 3's radius, Proposition 1 and Theorem 4's algebra.
experiments
    Coverage of the bounds, Figures 2 and 7.
"""

from __future__ import annotations

from .. import _lazy
from . import canonical_binning, bounds
from .canonical_binning import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403

# derivations and experiments (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["canonical_binning", "bounds"],
    lazy=["derivations", "experiments"],
)
