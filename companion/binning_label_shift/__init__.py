"""The companion of the chapter on distribution-free calibration by binning under label shift (``chap-binning-label-shift``).

Paper 001, section 3 and Appendices C-D.

Modules
-------
canonical_binning
    Partitions of the simplex, canonical binning and its label-shift corrected version.
bounds
    Theorem 3 (Bretagnolle-Huber-Carol), Theorem 4 and the combined target guarantee.
derivations
    SymPy checks of Theorem 3's radius, Proposition 1 and Theorem 4's algebra.
experiments
    Coverage of the bounds, Figures 2 and 7.
"""

from __future__ import annotations

from .canonical_binning import (
    CoordinatePartition,
    LogRatioGridPartition,
    uniform_mass_partition,
    bin_class_counts,
    CanonicalBinning,
    LabelShiftCanonicalBinning,
)
from .bounds import (
    bhc_tail_bound,
    multiclass_binning_epsilon,
    weight_condition_number,
    label_shift_binning_bound,
    target_binning_bound,
)
from .derivations import (
    theorem3_epsilon_residual,
    proposition1_residuals,
    theorem4_algebra,
    theorem4_zero_weight_example,
)
from .experiments import (
    THREE_CLASS_CONTRASTS,
    scenario_partition,
    theorem3_coverage,
    theorem4_check,
    target_guarantee_coverage,
    podkopaev_figure2,
    podkopaev_figure7,
    FIGURE7_SPLIT,
)

__all__ = [
    "CoordinatePartition",
    "LogRatioGridPartition",
    "uniform_mass_partition",
    "bin_class_counts",
    "CanonicalBinning",
    "LabelShiftCanonicalBinning",
    "bhc_tail_bound",
    "multiclass_binning_epsilon",
    "weight_condition_number",
    "label_shift_binning_bound",
    "target_binning_bound",
    "theorem3_epsilon_residual",
    "proposition1_residuals",
    "theorem4_algebra",
    "theorem4_zero_weight_example",
    "THREE_CLASS_CONTRASTS",
    "scenario_partition",
    "theorem3_coverage",
    "theorem4_check",
    "target_guarantee_coverage",
    "podkopaev_figure2",
    "podkopaev_figure7",
    "FIGURE7_SPLIT",
]
