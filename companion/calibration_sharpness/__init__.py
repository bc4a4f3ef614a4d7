"""The companion of the chapter on calibration, sharpness and the MSE decomposition (``chap-calibration-sharpness``).

Paper 000, sections 2-3: the decomposition of the mean squared error into calibration and
sharpness (eq. (2)), the recalibration risk (Proposition 1), reliability curves, and the
histogram-binning recalibrators whose risks the chapter computes (later chapters reuse them).

The modules, in reading order:

metrics
    Empirical MSE decomposition, calibration, sharpness and recalibration risks, reliability curves.
cells
    The cells of the scores: order statistics and bins of uniform-mass binning without a sort.
binning
    Bin assignment, equal-width edges and the histogram-binning recalibrators (equal-width,
    uniform-mass).
derivations
    SymPy checks of eq. (2), Proposition 1, the Gaussian posterior log-odds and the mirror symmetry.
experiments
    Convergence of the binned decomposition and the prior-free MSE, at full scale.
"""

from __future__ import annotations

from .. import _lazy
from . import metrics, cells, binning
from .metrics import *  # noqa: F401,F403
from .binning import *  # noqa: F401,F403

# derivations and experiments (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["metrics", "binning"],
    lazy=["derivations", "experiments"],
)
