"""The companion of the chapter on uniform-mass binning (``chap-uniform-mass-binning``).

Paper 000, section 4 and Appendix B: the risk bound of Theorem 1, the bin-count rule of
eqs. (10)-(12), and the reproduction of Figures 1-2.  The estimator itself,
:class:`~companion.calibration_sharpness.UniformMassBinning` (Definition 6), is in the package of
the first chapter, which already uses it as an example map.

Modules
-------
grid
    Risks of uniform-mass binning for many bin counts from one sort of the sample.
bounds
    Theorem 1 and its parts (Lemmas 3-7), the optimal bin count.
derivations
    SymPy checks of the bin-wise decomposition, the bin-count rule and Remark 9.
experiments
    Figures 1-2 at full scale and Monte Carlo checks of the lemmas.
"""

from __future__ import annotations

from .grid import UniformMassGrid, uniform_mass_grid
from .bounds import (
    LEMMA3_CONSTANT,
    umb_calibration_bound,
    umb_sharpness_bound,
    umb_risk_bound,
    umb_sample_size,
    umb_zeta,
    optimal_n_bins,
    theorem1_optimal_n_bins,
)
from .derivations import (
    BinwiseIdentity,
    binwise_pooling_identity,
    ZetaOptimum,
    umb_zeta_optimum,
    uniform_bins_sharpness,
)
from .experiments import (
    FIGURE1_N_VALUES,
    FIGURE1_N_BINS,
    RISK_TERMS,
    umb_risk_grid,
    umb_binwise_risks,
    umb_figure_summary,
    umb_a3_regime_start,
    umb_bin_statistics,
    umb_balance_probability_bounds,
    umb_lemma_frequencies,
)

__all__ = [
    "UniformMassGrid",
    "uniform_mass_grid",
    "LEMMA3_CONSTANT",
    "umb_calibration_bound",
    "umb_sharpness_bound",
    "umb_risk_bound",
    "umb_sample_size",
    "umb_zeta",
    "optimal_n_bins",
    "theorem1_optimal_n_bins",
    "BinwiseIdentity",
    "binwise_pooling_identity",
    "ZetaOptimum",
    "umb_zeta_optimum",
    "uniform_bins_sharpness",
    "FIGURE1_N_VALUES",
    "FIGURE1_N_BINS",
    "RISK_TERMS",
    "umb_risk_grid",
    "umb_binwise_risks",
    "umb_figure_summary",
    "umb_a3_regime_start",
    "umb_bin_statistics",
    "umb_balance_probability_bounds",
    "umb_lemma_frequencies",
]
