"""The companion of the chapter on uniform-mass binning (``chap-uniform-mass-binning``).

Paper 000, section 4 and Appendix B: the risk bound of Theorem 1, the bin-count rule of
eqs. (10)-(12), and the reproduction of Figures 1-2.  The estimator itself,
:class:`~companion.calibration_sharpness.UniformMassBinning` (Definition 6), is in the package of
the first chapter, which already uses it as an example map.

The modules, in reading order:

grid
    Risks of uniform-mass binning for many bin counts from one sort of the sample.
bounds
    Theorem 1 and its parts (Lemmas 3-7), the optimal bin count.
derivations
    SymPy checks of the bin-wise decomposition, the bin-count rule and Remark 9.
experiments
    Figures 1-2 at full scale and Monte Carlo checks of the lemmas.
exact_sampling
    Uniform-mass fits drawn from their exact law without drawing the sample (any ``n`` up to ``10**12``).
"""

from __future__ import annotations

from .. import _lazy
from . import grid, bounds
from .grid import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403

# derivations (SymPy), experiments and exact_sampling (which builds on the experiments and
# scipy.stats) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["grid", "bounds"],
    lazy=["derivations", "experiments", "exact_sampling"],
)
