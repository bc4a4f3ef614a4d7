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

from . import canonical_binning, bounds, derivations, experiments
from .canonical_binning import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403
from .derivations import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403

__all__ = [
    *canonical_binning.__all__,
    *bounds.__all__,
    *derivations.__all__,
    *experiments.__all__,
]
