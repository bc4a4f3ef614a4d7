"""The companion of the chapter on conformal prediction sets under label shift (``chap-conformal-label-shift``).

Paper 001, section 2 and Appendix B.

The modules, in reading order:

scores
    Exact levels and ranks, the conformity scores (randomised and not).
thresholds
    Split, weighted and label-conditional thresholds, oracle sets, prediction sets and coverage.
derivations
    SymPy checks of the weighted quantile, the label-shift weights and the split coverage.
experiments
    Figures 1 and 3-6.
guarantee_checks
    Simulations of the coverage guarantees and the Bernoulli example of Corollary 1.
"""

from __future__ import annotations

from .. import _lazy
from . import scores, thresholds
from .scores import *  # noqa: F401,F403
from .thresholds import *  # noqa: F401,F403

# derivations, experiments and guarantee_checks (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["scores", "thresholds"],
    lazy=["derivations", "experiments", "guarantee_checks"],
)
