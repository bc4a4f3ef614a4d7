"""The companion of the chapter on recalibrating under label shift (``chap-label-shift-recalibration``).

Paper 000, section 5 and Appendices C-E.2: the prior correction g, the composite estimator,
Theorem 2 and the Chernoff ratio bounds of Corollary 9.

Modules
-------
recalibration
    The prior correction, the composite recalibrator and the four estimators of Table 1.
bounds
    The Lipschitz constant of the correction, the ratio-event sample sizes, Theorem 2.
derivations
    SymPy checks of eq. (15), Lemma 10 and Step 2 of Theorem 2.
experiments
    Table 1, Figure 4, Remark 4, the Appendix E.2 grid and Monte Carlo checks of Theorem 2.
"""

from __future__ import annotations

from .recalibration import (
    prior_correction,
    cube_root_bins,
    CompositeRecalibrator,
    LabelShiftEstimators,
    fit_label_shift_estimators,
)
from .bounds import (
    prior_correction_lipschitz,
    ratio_event_sample_sizes,
    ratio_event_beta,
    composite_risk_bound,
    composite_high_probability_bound,
)
from .derivations import label_shift_composition_residuals, lemma10_derivatives, theorem2_step2_residuals
from .experiments import (
    LABEL_SHIFT_METHODS,
    LABEL_SHIFT_TERMS,
    SUN_TABLE1_PAPER,
    label_shift_risks,
    sun_table1,
    label_shift_curves,
    target_sample_complexity,
    label_shift_grid,
    theorem2_check,
    ratio_event_frequency,
)

__all__ = [
    "prior_correction",
    "cube_root_bins",
    "CompositeRecalibrator",
    "LabelShiftEstimators",
    "fit_label_shift_estimators",
    "prior_correction_lipschitz",
    "ratio_event_sample_sizes",
    "ratio_event_beta",
    "composite_risk_bound",
    "composite_high_probability_bound",
    "label_shift_composition_residuals",
    "lemma10_derivatives",
    "theorem2_step2_residuals",
    "LABEL_SHIFT_METHODS",
    "LABEL_SHIFT_TERMS",
    "SUN_TABLE1_PAPER",
    "label_shift_risks",
    "sun_table1",
    "label_shift_curves",
    "target_sample_complexity",
    "label_shift_grid",
    "theorem2_check",
    "ratio_event_frequency",
]
