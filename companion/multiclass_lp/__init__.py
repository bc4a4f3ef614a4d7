"""The companion of the chapter on multiclass calibration under l_p error (``chap-multiclass-lp``).

Paper 002 (Bairaktari and Nguyen), as reconstructed in the book: level sets of the simplex,
the l_p calibration error, the calibration algorithm (Algorithm 2) and its guarantees.

The modules, in reading order:

level_sets
    Rounding to the grid, level sets and their integer keys, canonical distributions, the
    projection onto the simplex.
errors
    The l_p calibration error (Definition 5), ECEs and the squared error, empirical and population.
structure
    The prediction and estimation structures of Algorithm 2: pool sizes, Laplace scales and the
    patch-and-merge loop.
calibrator
    :class:`LpCalibrator`, the algorithm as an estimator.
baselines
    Temperature scaling, class-wise and top-label histogram binning.
scenario
    A finite-law multiclass forecaster with exact population errors.
bounds
    Lemmas 7, 8, 13, 14 and Theorem 6 as functions.
derivations
    SymPy checks of the lemmas' algebra and constants.
experiments
    The book's study of the algorithm (rates, trajectories, cost of noise and pools, comparisons).
guarantee_checks
    Simulations behind the testing lower bounds and the level-set lemmas.
"""

from __future__ import annotations

from .. import _lazy
from . import level_sets, errors, structure, calibrator, baselines, scenario, bounds
from .level_sets import *  # noqa: F401,F403
from .errors import *  # noqa: F401,F403
from .structure import *  # noqa: F401,F403
from .calibrator import *  # noqa: F401,F403
from .baselines import *  # noqa: F401,F403
from .scenario import *  # noqa: F401,F403
from .bounds import *  # noqa: F401,F403

# derivations, experiments and guarantee_checks (SymPy, simulations) load on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["level_sets", "errors", "structure", "calibrator", "baselines", "scenario", "bounds"],
    lazy=["derivations", "experiments", "guarantee_checks"],
)
