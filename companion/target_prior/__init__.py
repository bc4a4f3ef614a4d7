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

from . import auc, recalibration, qmm, derivations, experiments
from .auc import *  # noqa: F401,F403
from .recalibration import *  # noqa: F401,F403
from .qmm import *  # noqa: F401,F403
from .derivations import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403

__all__ = [
    *auc.__all__,
    *recalibration.__all__,
    *qmm.__all__,
    *derivations.__all__,
    *experiments.__all__,
]
