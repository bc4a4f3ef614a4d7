"""The companion of the chapter on recalibrating to a target prior (``chap-target-prior``).

Paper 003 (Tasche): recalibration without target labels, by scaling, FJS, CSPD and quasi
moment matching.

The modules, in reading order:

auc
    Empirical distributions, mid-point CDFs, conditional and implied AUC (eq. (13)).
recalibration
    Capped scaling, label shift and FJS, with the root-finding helpers the methods share.
qmm
    Platt scaling, CSPD, ROC QMM and two-parameter QMM.
derivations
    SymPy checks of eq. (13), the Jensen bounds and the binormal ROC.
experiments
    Table 1, Figures 1-2, the ROC-QMM iteration (its trace and Jacobian) and Remark 1.
"""

from __future__ import annotations

from .. import _lazy
from . import auc, recalibration, qmm
from .auc import *  # noqa: F401,F403
from .recalibration import *  # noqa: F401,F403
from .qmm import *  # noqa: F401,F403

# derivations and experiments (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["auc", "recalibration", "qmm"],
    lazy=["derivations", "experiments"],
)
