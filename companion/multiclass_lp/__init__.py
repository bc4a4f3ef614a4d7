"""The companion of the chapter on multiclass calibration under l_p error (``chap-multiclass-lp``).

Paper 002 (Bairaktari and Nguyen), as reconstructed in the book: level sets of the simplex,
the l_p calibration error, the calibration algorithm (Algorithm 2) and its guarantees.

Modules
-------
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

from .level_sets import (
    ROW_SUM_TOLERANCE,
    MAX_EXACT_KEY_WORK,
    check_lam,
    check_p,
    as_probability_rows,
    level_set_counts,
    rounding,
    level_set_key,
    level_set_count,
    level_set_count_bound,
    grid_size,
    enumerate_level_sets,
    canonical_distribution,
    project_to_simplex,
)
from .errors import (
    calibration_error_terms,
    lp_calibration_error,
    population_lp_calibration_error,
    top_label_ece,
    population_top_label_ece,
    classwise_ece,
    population_classwise_ece,
    squared_error,
    population_squared_error,
)
from .structure import AUTO_THRESHOLD_SCALE
from .calibrator import DEFAULT_MAX_ITER, LpCalibrator
from .baselines import TemperatureScaling, ClasswiseBinning, TopLabelBinning
from .scenario import MulticlassScenario
from .bounds import (
    LEMMA8_CONSTANT,
    lp_threshold,
    lemma14_bound,
    lemma7_sample_size,
    lemma7_sizes,
    lemma8_sample_size,
    lemma8_accuracy,
    lemma13_iteration_bound,
    discretisation_bound,
    squared_error_excess_bound,
    theorem6_budget,
    theorem6_sample_size,
    theorem6_iterations,
)
from .derivations import (
    LevelSetCount,
    level_set_count_identity,
    patch_step_identity,
    group_squared_error_identity,
    same_level_set_change,
    lemma11_constants,
    termination_constants,
    lemma7_bucket_constants,
    grid_gain_factor,
    lemma8_constants,
    two_worlds_errors,
    recalibration_lower_bound_constants,
)
from .experiments import (
    MULTICLASS_SETTINGS,
    MULTICLASS_CONFIGS,
    MULTICLASS_N_VALUES,
    book_multiclass_scenario,
    lp_error_grid,
    lp_rate_summary,
    level_sets_visited,
    exact_trajectory,
    squared_error_vs_lam,
    method_comparison,
    full_version_demo,
)
from .guarantee_checks import two_worlds_demo, light_level_sets_check, level_set_mass_check, bernoulli_test_size

__all__ = [
    "ROW_SUM_TOLERANCE",
    "MAX_EXACT_KEY_WORK",
    "check_lam",
    "check_p",
    "as_probability_rows",
    "level_set_counts",
    "rounding",
    "level_set_key",
    "level_set_count",
    "level_set_count_bound",
    "grid_size",
    "enumerate_level_sets",
    "canonical_distribution",
    "project_to_simplex",
    "calibration_error_terms",
    "lp_calibration_error",
    "population_lp_calibration_error",
    "top_label_ece",
    "population_top_label_ece",
    "classwise_ece",
    "population_classwise_ece",
    "squared_error",
    "population_squared_error",
    "AUTO_THRESHOLD_SCALE",
    "DEFAULT_MAX_ITER",
    "LpCalibrator",
    "TemperatureScaling",
    "ClasswiseBinning",
    "TopLabelBinning",
    "MulticlassScenario",
    "LEMMA8_CONSTANT",
    "lp_threshold",
    "lemma14_bound",
    "lemma7_sample_size",
    "lemma7_sizes",
    "lemma8_sample_size",
    "lemma8_accuracy",
    "lemma13_iteration_bound",
    "discretisation_bound",
    "squared_error_excess_bound",
    "theorem6_budget",
    "theorem6_sample_size",
    "theorem6_iterations",
    "LevelSetCount",
    "level_set_count_identity",
    "patch_step_identity",
    "group_squared_error_identity",
    "same_level_set_change",
    "lemma11_constants",
    "termination_constants",
    "lemma7_bucket_constants",
    "grid_gain_factor",
    "lemma8_constants",
    "two_worlds_errors",
    "recalibration_lower_bound_constants",
    "MULTICLASS_SETTINGS",
    "MULTICLASS_CONFIGS",
    "MULTICLASS_N_VALUES",
    "book_multiclass_scenario",
    "lp_error_grid",
    "lp_rate_summary",
    "level_sets_visited",
    "exact_trajectory",
    "squared_error_vs_lam",
    "method_comparison",
    "full_version_demo",
    "two_worlds_demo",
    "light_level_sets_check",
    "level_set_mass_check",
    "bernoulli_test_size",
]
