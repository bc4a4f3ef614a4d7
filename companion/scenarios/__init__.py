"""The papers' worlds, with exact oracles: the ground floor every chapter draws its data from.

Each scenario draws samples with a seeded generator and knows its own population
quantities (optimal recalibration, risks, posteriors under source and target) by closed
forms or high-order quadrature, so every simulation in the book has an exact target.

The modules, in reading order:

gaussian_mixture
    The one-dimensional Gaussian mixture with the sigmoid forecaster of paper 000, and the
    population risks of recalibration maps under it.
label_shift
    The two- and three-class Gaussian examples of paper 001, with exact posteriors under the
    source and the target prior.
rating_scale
    The rating-scale example of paper 003 (Gauss-Hermite discretised binormal scores).
"""

from __future__ import annotations

from .. import _lazy
from . import gaussian_mixture, label_shift
from .gaussian_mixture import *  # noqa: F401,F403
from .label_shift import *  # noqa: F401,F403

# rating_scale (scipy.stats, used by chapter 8 only) loads on first use (companion/_lazy.py)
__getattr__, __dir__ = _lazy.attach(
    __name__, globals(), eager=["gaussian_mixture", "label_shift"],
    lazy=["rating_scale"],
)
