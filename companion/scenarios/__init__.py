"""The papers' worlds, with exact oracles: the ground floor every chapter draws its data from.

Each scenario draws samples with a seeded generator and knows its own population
quantities (optimal recalibration, risks, posteriors under source and target) by closed
forms or high-order quadrature, so every simulation in the book has an exact target.

Modules
-------
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

from .gaussian_mixture import GaussianMixture, PopulationDecomposition
from .label_shift import GaussianLabelShift, two_class_gaussian, three_class_gaussian
from .rating_scale import RatingScaleExample

__all__ = [
    "GaussianMixture",
    "PopulationDecomposition",
    "GaussianLabelShift",
    "two_class_gaussian",
    "three_class_gaussian",
    "RatingScaleExample",
]
