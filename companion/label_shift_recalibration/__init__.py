"""The companion of the chapter on recalibrating under label shift (``chap-label-shift-recalibration``).

Paper 000, section 5 and Appendices C-E.2: the prior correction g, the composite estimator,
Theorem 2 and the Chernoff ratio bounds of Corollary 9.

The modules, in reading order:

recalibration
    The prior correction, the composite recalibrator and the four estimators of Table 1.
bounds
    The Lipschitz constant of the correction, the ratio-event sample sizes, Theorem 2.
derivations
    SymPy checks of eq. (15), Lemma 10 and Step 2 of Theorem 2.
experiments
    Table 1, Figure 4, Remark 4, the Appendix E.2 grid and Monte Carlo checks of Theorem 2.
"""

from __future__ import annotations

from . import recalibration, bounds, derivations, experiments
from .recalibration import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403
from .derivations import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403

__all__ = [
    *recalibration.__all__,
    *bounds.__all__,
    *derivations.__all__,
    *experiments.__all__,
]
