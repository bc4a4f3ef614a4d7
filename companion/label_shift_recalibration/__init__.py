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

from .. import _lazy
from . import recalibration, bounds
from .recalibration import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403

# derivations and experiments (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["recalibration", "bounds"],
    lazy=["derivations", "experiments"],
)
