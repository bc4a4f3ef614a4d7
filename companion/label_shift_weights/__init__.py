"""The companion of the chapter on label shift: the Bayes correction and estimating the weights (``chap-label-shift-weights``).

Paper 001, eq. (16) and Appendix A; paper 000, Remark 5.  The Gaussian scenarios the chapter
uses are on the ground floor (:mod:`companion.scenarios`).

The modules, in reading order:

correction
    Label encoding, simplex rows and the Bayes correction of the posterior (eq. (16)).
scaling
    Temperature, bias-corrected temperature and vector scaling (the calibration MLLS needs).
estimators
    BBSE (hard and soft), MLLS (EM) and RLLS.
bounds
    The BBSE error bound.
derivations
    SymPy checks of the correction, the moment identity, the perturbation bound, the EM
    stationarity and the Remark 5 chain.
experiments
    Estimation rates, the miscalibration study and the Remark 5 rates.
"""

from __future__ import annotations

from .. import _lazy
from . import correction, scaling, estimators, bounds
from .correction import *  # noqa: F401,F403
from .scaling import *  # noqa: F401,F403
from .estimators import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403

# derivations and experiments (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["correction", "scaling", "estimators", "bounds"],
    lazy=["derivations", "experiments"],
)
