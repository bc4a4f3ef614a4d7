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

from . import scores, thresholds, derivations, experiments, guarantee_checks
from .scores import *  # noqa: F401,F403
from .thresholds import *  # noqa: F401,F403
from .derivations import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .guarantee_checks import *  # noqa: F401,F403

__all__ = [
    *scores.__all__,
    *thresholds.__all__,
    *derivations.__all__,
    *experiments.__all__,
    *guarantee_checks.__all__,
]
