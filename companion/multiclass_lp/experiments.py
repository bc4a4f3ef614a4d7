r"""Drivers for multiclass calibration under :math:`\ell_p` error (paper 002, Bairaktari and Nguyen).

The paper has no experiments; every driver here is the book's own study of
its algorithm (``alg-multiclass-lp``) on :class:`~companion.multiclass_lp.MulticlassScenario`,
where population errors are exact finite sums.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._checks import (
    as_real_array,
    as_rng,
    as_sequence,
    as_sizes,
    check_int,
    check_memory,
    check_nonempty,
    check_open_unit,
    check_positive,
    check_size,
)
from .._memo import memoised
from .baselines import ClasswiseBinning, TemperatureScaling, TopLabelBinning
from .bounds import (
    discretisation_bound,
    lemma13_iteration_bound,
    lemma14_bound,
    lemma8_accuracy,
    squared_error_excess_bound,
)
from .calibrator import LpCalibrator
from .level_sets import (
    _counts,
    _keys_from_counts,
    _p_values,
    canonical_distribution,
    check_lam,
    grid_size,
    level_set_count,
    level_set_counts,
)
from .scenario import MulticlassScenario

__all__ = [
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
]


#: Forecaster shape per number of classes: confident enough that a few dozen level sets carry most of the mass.
MULTICLASS_SETTINGS = {3: {"sharpness": 2.5, "spread": 1.0}, 5: {"sharpness": 3.0, "spread": 0.7}, 10: {"sharpness": 4.0, "spread": 0.5}}


#: The four versions of the algorithm compared in the chapter: (noise, pools).
MULTICLASS_CONFIGS = {"noise + pools": (True, True), "pools only": (False, True), "noise only": (True, False), "plain": (False, False)}


#: Calibration sample sizes of the rate experiment.
MULTICLASS_N_VALUES = np.array([1000, 3000, 10_000, 30_000, 100_000, 300_000])


# ---------------------------------------------------------------------------
# Validation of the drivers' own arguments (sequences of sizes, exponents, steps; configs; grids)
# ---------------------------------------------------------------------------


def _exponents(p_values, name: str = "p_values") -> np.ndarray:
    """A scalar or non-empty 1-D sequence of l_p exponents in [1, inf] (``check_p`` per entry)."""
    return _p_values(p_values, name)[0]


def _configs(configs, name: str = "configs") -> list:
    """A non-empty list of keys of :data:`MULTICLASS_CONFIGS`."""
    configs = list(check_nonempty(configs, name))
    for c in configs:
        if not isinstance(c, str) or c not in MULTICLASS_CONFIGS:
            raise ValueError(f"{name} entries must be among {list(MULTICLASS_CONFIGS)}, got {c!r}")
    return configs


def _grid_arrays(grid, keys: tuple, ndim: int, name: str = "grid") -> dict:
    """Check that ``grid`` is a result of :func:`lp_error_grid`: a dict whose ``keys`` hold finite arrays.

    Each array of ``keys`` must have ``ndim`` axes (``lp`` one more, over p), its
    sample-size axis (2) must match ``grid["n"]``; returns the validated arrays.
    """
    if not isinstance(grid, dict):
        raise ValueError(f"{name} must be the dict returned by lp_error_grid, got {type(grid).__name__}")
    missing = [key for key in ("k", "n", "p", "configs", *keys) if key not in grid]
    if missing:
        raise ValueError(f"{name} must be the dict returned by lp_error_grid (missing keys {missing})")
    n = as_real_array(grid["n"], f"{name}['n']")
    out = {"n": n}
    for key in keys:
        arr = as_real_array(grid[key], f"{name}[{key!r}]", ndim=ndim + (key == "lp"))
        if arr.shape[2] != n.size:
            raise ValueError(f"{name}[{key!r}] must have len({name}['n']) = {n.size} sample sizes on axis 2, got shape {arr.shape}")
        out[key] = arr
    return out


#: Atoms of the chapter's scenario (:func:`book_multiclass_scenario`).
_N_ATOMS = 4000


def book_multiclass_scenario(k: int, seed: int = 1, temperature: float = 0.5) -> MulticlassScenario:
    r"""The chapter's scenario for ``k`` classes: 4000 atoms, true label law :math:`\mathrm{softmax}(t z + b)`, :math:`t = 1/2`.

    Offsets :math:`b` run linearly from -1/2 to 1/2 over the classes; the
    forecaster's sharpness and spread are :data:`MULTICLASS_SETTINGS` (other
    ``k`` use those of ``k = 5``).
    """
    k = check_size(k, "k", minimum=2, item_bytes=_N_ATOMS * 32, what=f"four float64 arrays of {_N_ATOMS} atoms x k classes")
    if not isinstance(seed, np.random.Generator):
        seed = check_int(seed, "seed", minimum=0)
    temperature = check_positive(temperature, "temperature")
    settings = MULTICLASS_SETTINGS.get(k, MULTICLASS_SETTINGS[5])
    return MulticlassScenario(k, _N_ATOMS, temperature=temperature, seed=seed, **settings)


def _discretised(scenario: MulticlassScenario, lam: float) -> np.ndarray:
    return canonical_distribution(level_set_counts(scenario.atoms, lam), lam)


def _population_bin_stats(scenario: MulticlassScenario, lam: float, keys: np.ndarray) -> np.ndarray:
    """Exact (mass, E[Y 1{level set}]) of the level sets with the given keys; shape (len(keys), k + 1)."""
    _, m = check_lam(lam)
    atom_keys = _keys_from_counts(_counts(scenario.atoms, m), m)
    pos = np.searchsorted(keys, atom_keys)
    inside = np.zeros(atom_keys.size, dtype=bool)
    ok = pos < keys.size
    inside[ok] = keys[pos[ok]] == atom_keys[ok]
    k = scenario.n_classes
    out = np.zeros((keys.size, k + 1))
    out[:, 0] = np.bincount(pos[inside], weights=scenario.weights[inside], minlength=keys.size)
    for i in range(k):
        out[:, 1 + i] = np.bincount(pos[inside], weights=scenario.weights[inside] * scenario.h_star[inside, i], minlength=keys.size)
    return out


def _pool_radii(cal: LpCalibrator, k: int) -> list[tuple[float, float]]:
    r"""Radii :math:`(\psi_m, \psi_y)` of ``lem-multiclass-lp-disjoint`` for the mass and label pools of each group size of a fitted ``cal``."""
    n_sizes = (len(cal.pool_sizes_) - 1) // 2
    delta_pool = cal.delta / (4 * n_sizes)
    return [(lemma8_accuracy(cal.pool_sizes_[1 + 2 * j], 1, max(1, cal.keys_.size >> j), delta_pool),
             lemma8_accuracy(cal.pool_sizes_[2 + 2 * j], k + 1, max(1, cal.keys_.size >> j), delta_pool))
            for j in range(n_sizes)]


def _lemma8_ratio(cal: LpCalibrator, scenario: MulticlassScenario, lam: float) -> float:
    r"""Largest error of the estimation structure's answers in units of the radius of the paper's Lemma 8 (``lem-multiclass-lp-disjoint``).

    Masses are compared with :math:`\psi_m`, label vectors with :math:`2\psi_y`
    (the label pool answers :math:`(1, e_Y)/2`, doubled); both radii are those
    :class:`~companion.multiclass_lp.LpCalibrator` uses for its noise.  A value
    at most 1 means every answer was within the radius of that lemma.
    """
    if not cal.queries_ or not cal.pools:
        return np.nan
    pop = _population_bin_stats(scenario, lam, cal.keys_)
    radii = _pool_radii(cal, scenario.n_classes)
    worst = 0.0
    for bins, mass, labels in cal.queries_:
        psi_m, psi_y = radii[bins.size.bit_length() - 1]
        truth = pop[bins].sum(axis=0)
        worst = max(worst, abs(mass - truth[0]) / psi_m, float(np.max(np.abs(labels - truth))) / (2 * psi_y))
    return worst


@memoised
def lp_error_grid(
    k_values=(3, 5, 10),
    n_values=MULTICLASS_N_VALUES,
    p_values=(1.0, 2.0, 4.0, np.inf),
    configs=tuple(MULTICLASS_CONFIGS),
    n_reps: int = 3,
    lam: float = 0.1,
    rng=0,
) -> dict:
    r"""Population :math:`\ell_p` errors and squared errors of the recalibrated predictor over (k, version, n, repetition).

    For each ``k`` (scenario :func:`book_multiclass_scenario`), sample size
    ``n`` and repetition one calibration sample is drawn; every version of the
    algorithm in ``configs`` (keys of :data:`MULTICLASS_CONFIGS`, default
    threshold ``"auto"``) is fitted on it and evaluated exactly.

    Returns a dict with ``k``, ``n``, ``p``, ``configs``, ``lam`` and arrays
    indexed ``[k, config, n, rep]`` (``lp`` has a last axis over ``p``):
    ``lp``, ``sq``, ``threshold``, ``steps``, ``merges``, ``n_high`` (:math:`|H|`),
    ``visited`` (distinct level sets occupied by group predictions during the
    run), ``occupied`` (distinct level sets of the forecasts in the sample),
    ``lemma8_ratio`` (see :func:`_lemma8_ratio`; NaN without pools),
    ``converged``; and per ``k``: ``lp_f``, ``sq_f`` (the forecaster) and
    ``lp_discretised``, ``sq_discretised`` (:math:`c\circ r\circ f`), ``n_level_sets``
    (:math:`|V_\lambda|`), ``grid_cells`` (:math:`(1/\lambda + 1)^k`).
    """
    k_values = as_sizes(k_values, "k_values", minimum=2, scalar=True)
    n_values = np.array(as_sizes(n_values, "n_values", minimum=10, scalar=True))
    p_values = _exponents(p_values)
    configs = _configs(configs)
    n_reps = check_int(n_reps, "n_reps")
    check_memory(n_reps * len(k_values) * len(configs) * n_values.size * (10 + p_values.size), "n_reps",
                 what=f"{10 + p_values.size} results per (k, configuration, n, repetition)")
    lam, m = check_lam(lam)
    rng = as_rng(rng)
    shape = (len(k_values), len(configs), n_values.size, n_reps)
    out = {key: np.full(shape, np.nan) for key in ("sq", "threshold", "steps", "merges", "n_high", "visited", "occupied", "lemma8_ratio", "converged")}
    out["lp"] = np.full((*shape, p_values.size), np.nan)
    per_k = {key: [] for key in ("lp_f", "sq_f", "lp_discretised", "sq_discretised", "n_level_sets", "grid_cells")}
    seeds = rng.integers(2**62, size=(len(k_values), n_values.size, n_reps))  # one sample per (k, n, rep), shared by the versions
    for a, k in enumerate(k_values):
        sc = book_multiclass_scenario(k)
        base, disc = sc.evaluate(sc.atoms, lam, p_values), sc.evaluate(_discretised(sc, lam), lam, p_values)
        per_k["lp_f"].append(base["lp"])
        per_k["sq_f"].append(base["squared_error"])
        per_k["lp_discretised"].append(disc["lp"])
        per_k["sq_discretised"].append(disc["squared_error"])
        per_k["n_level_sets"].append(level_set_count(k, lam))
        per_k["grid_cells"].append(grid_size(k, lam))
        for j, n in enumerate(n_values):
            for r in range(n_reps):
                seed = int(seeds[a, j, r])
                probs, y = sc.sample(int(n), seed)
                occupied = np.unique(_keys_from_counts(_counts(probs, m), m)).size
                for c, name in enumerate(configs):
                    noise, pools = MULTICLASS_CONFIGS[name]
                    cal = LpCalibrator(lam, noise=noise, pools=pools, record_queries=True, rng=seed + 1).fit(probs, y)
                    res = sc.evaluate(cal.predict, lam, p_values)
                    cell = (a, c, j, r)
                    out["lp"][cell] = res["lp"]
                    out["sq"][cell] = res["squared_error"]
                    out["threshold"][cell] = cal.threshold_
                    out["steps"][cell] = cal.n_steps_
                    out["merges"][cell] = cal.n_merges_
                    out["n_high"][cell] = cal.keys_.size
                    out["visited"][cell] = cal.visited_.size
                    out["occupied"][cell] = occupied
                    out["lemma8_ratio"][cell] = _lemma8_ratio(cal, sc, lam)
                    out["converged"][cell] = cal.converged_
    out.update({key: np.array(v) for key, v in per_k.items()})
    out.update({"k": np.array(k_values), "n": n_values, "p": p_values, "configs": configs, "lam": lam})
    return out


def lp_rate_summary(grid: dict, n_min: int = 10_000, level: float = 0.95) -> dict:
    r"""Fitted rates :math:`\mathrm{err}_p \propto n^{a}` per (k, version, p), with intervals, beside the theorem's :math:`-(p-1)/(2p)`.

    Least squares of :math:`\log \mathrm{err}_p` of every repetition against
    :math:`\log n`, over the sample sizes ``n >= n_min``; the interval is the
    two-sided ``level`` t-interval from the fit's standard error (degrees of
    freedom: number of points minus 2).  The theorem's rate is that of
    Theorem 6 as reconstructed: :math:`n = \tilde O(\varepsilon^{-2p/(p-1)})`
    samples for error :math:`\varepsilon`, i.e.
    :math:`\varepsilon = \tilde O(n^{-(p-1)/(2p)})`; none at :math:`p = 1`.

    Returns ``slopes``, ``low``, ``high`` (interval ends) and ``se`` of shape
    ``(len(k), len(configs), len(p))``, ``theorem`` of shape ``(len(p),)``
    (NaN at p = 1), ``n_min`` and ``level``.
    """
    n_min = check_int(n_min, "n_min")
    level = check_open_unit(level, "level")
    lp = _grid_arrays(grid, ("lp",), ndim=4)["lp"]
    use = grid["n"] >= n_min
    if use.sum() < 2:
        raise ValueError("n_min must leave at least two sample sizes for a fit")
    sub = lp[:, :, use]  # [k, config, n, rep, p]
    n_reps = sub.shape[3]
    x = np.repeat(np.log(grid["n"][use].astype(float)), n_reps)
    x_c = x - x.mean()
    sxx = float(x_c @ x_c)
    dof = x.size - 2
    t = stats.t.ppf(0.5 + level / 2.0, dof) if dof > 0 else np.nan
    logs = np.log(np.moveaxis(sub, 4, 2).reshape(sub.shape[0], sub.shape[1], sub.shape[4], -1))  # [k, config, p, points]
    slopes = logs @ x_c / sxx
    resid = logs - logs.mean(axis=-1, keepdims=True) - slopes[..., None] * x_c
    se = np.sqrt(np.sum(resid**2, axis=-1) / dof / sxx) if dof > 0 else np.full(slopes.shape, np.nan)
    p = grid["p"]
    with np.errstate(divide="ignore", invalid="ignore"):
        theorem = np.where(p > 1, -(1.0 - 1.0 / p) / 2.0, np.nan)
    return {"slopes": slopes, "low": slopes - t * se, "high": slopes + t * se, "se": se, "theorem": theorem,
            "n_min": n_min, "level": level}


def level_sets_visited(grid: dict) -> dict:
    """Level sets the algorithm touched, at the largest sample size, against :math:`|V_\\lambda|` and :math:`(1/\\lambda+1)^k`.

    Returns per k (rows) and config (columns) the mean over repetitions of
    ``occupied`` (level sets holding a forecast of the sample), ``n_high``
    (:math:`|H|`) and ``visited``, and per k ``n_level_sets`` and ``grid_cells``.
    """
    arrays = _grid_arrays(grid, ("occupied", "n_high", "visited"), ndim=4)
    for key in ("n_level_sets", "grid_cells"):
        if key not in grid:
            raise ValueError(f"grid must be the dict returned by lp_error_grid (missing key {key!r})")
    last = grid["n"].size - 1
    return {
        "k": grid["k"],
        "configs": grid["configs"],
        "occupied": arrays["occupied"][:, :, last].mean(axis=2),
        "n_high": arrays["n_high"][:, :, last].mean(axis=2),
        "visited": arrays["visited"][:, :, last].mean(axis=2),
        "n_level_sets": grid["n_level_sets"],
        "grid_cells": grid["grid_cells"],
        "n": int(grid["n"][last]),
    }


@memoised
def exact_trajectory(k: int = 5, lam: float = 0.1, threshold: float = 0.004, p_values=(2.0, np.inf)) -> dict:
    r"""Run the algorithm with exact estimates (:meth:`~companion.multiclass_lp.LpCalibrator.fit_exact`) and evaluate every step.

    Returns per step ``sq_stage1``, ``sq_stage2`` (population squared error
    after the projection and after the merge stage), ``lp_stage2`` (shape
    ``(steps, len(p))``), ``merged``, ``moved_mass``, the starting values
    ``sq_start`` (of :math:`c\circ r\circ f`), ``lp_start``, ``sq_f``, and the
    checks of the paper's Lemmas 10, 11, 13 and 14 (``lem-multiclass-lp-merge``,
    ``lem-multiclass-lp-patch``, ``lem-multiclass-lp-termination``,
    ``lem-multiclass-lp-final-error``): ``min_decrease`` (smallest drop of a
    projection stage, to compare with :math:`\omega^2`), ``max_merge_excess``
    (largest rise of a merge minus :math:`4\lambda` times the moved mass;
    must be at most 0; ``inf`` and ``-inf``, the minimum and maximum over no
    step, when no level set is heavy enough to start a step), ``iteration_bound``,
    ``lp_bound`` (Lemma 14 with zero estimation error) and ``threshold``, which must lie in
    [1e-15, 1), the domain of :class:`LpCalibrator`.
    """
    k = check_int(k, "k", minimum=2)
    lam, _ = check_lam(lam)
    p_values = _exponents(p_values)
    cal = LpCalibrator(lam, threshold=threshold, record_states=True)
    sc = book_multiclass_scenario(k)
    cal.fit_exact(sc.atoms, sc.h_star, sc.weights)  # checks the threshold
    t = cal.trajectory_
    sq1, sq2, lp2 = [], [], []
    for step in range(cal.n_steps_):
        sq1.append(sc.evaluate(cal.predict(sc.atoms, t["stage1"][step]), lam, p_values)["squared_error"])
        res = sc.evaluate(cal.predict(sc.atoms, t["stage2"][step]), lam, p_values)
        sq2.append(res["squared_error"])
        lp2.append(res["lp"])
    start = sc.evaluate(_discretised(sc, lam), lam, p_values)
    sq1, sq2 = np.array(sq1), np.array(sq2)
    before = np.concatenate([[start["squared_error"]], sq2[:-1]])
    return {
        "k": k,
        "lam": lam,
        "threshold": cal.threshold_,
        "p": p_values,
        "sq_f": sc.evaluate(sc.atoms, lam, p_values)["squared_error"],
        "sq_start": start["squared_error"],
        "lp_start": start["lp"],
        "sq_stage1": sq1,
        "sq_stage2": sq2,
        "lp_stage2": np.array(lp2).reshape(-1, p_values.size),
        "merged": t["merged"],
        "moved_mass": t["moved_mass"],
        "min_decrease": float(np.min(before - sq1)) if sq1.size else np.inf,  # no step: the checks hold vacuously
        "max_merge_excess": float(np.max(sq2 - sq1 - 4 * lam * t["moved_mass"])) if sq1.size else -np.inf,
        "steps": cal.n_steps_,
        "merges": cal.n_merges_,
        "iteration_bound": lemma13_iteration_bound(cal.threshold_, cal.mass_threshold_, lam),
        "lp_bound": np.array([lemma14_bound(cal.threshold_, cal.mass_threshold_, p) for p in p_values]),
        "visited": cal.visited_.size,
        "n_high": cal.keys_.size,
    }


@memoised
def squared_error_vs_lam(
    k: int = 5,
    lam_values=(1 / 2, 1 / 4, 1 / 5, 1 / 10, 1 / 20, 1 / 40),
    n: int = 100_000,
    n_reps: int = 3,
    configs=("noise + pools", "plain"),
    rng=0,
) -> dict:
    r"""Squared error of :math:`f`, of :math:`c\circ r\circ f` and of the recalibrated predictor against :math:`\lambda`.

    Returns ``lam``, ``sq_f`` (scalar), ``sq_discretised`` (per
    :math:`\lambda`), ``sq_calibrated`` (``[lam, config, rep]``), ``mass_threshold``
    (same shape), and the bounds ``lemma12`` (:math:`4\lambda`) and
    ``theorem6`` (:math:`4\lambda(1 + \log_{3/2}(2/\omega_m))` at the mean
    :math:`\omega_m` of the fits).
    """
    k = check_int(k, "k", minimum=2)
    lams = np.array([check_lam(v, "lam_values entries")[0] for v in as_sequence(lam_values, "lam_values", scalar=True).tolist()])
    n = check_int(n, "n", minimum=10)
    n_reps = check_int(n_reps, "n_reps")
    configs = _configs(configs)
    check_memory(n_reps * lams.size * len(configs) * 2, "n_reps", what="two results per (lam, configuration, repetition)")
    rng = as_rng(rng)
    sc = book_multiclass_scenario(k)
    sq_f = sc.evaluate(sc.atoms, 0.5)["squared_error"]
    disc = np.array([sc.evaluate(_discretised(sc, lam), lam)["squared_error"] for lam in lams])
    cal_sq = np.full((lams.size, len(configs), n_reps), np.nan)
    mass_thresholds = np.full_like(cal_sq, np.nan)
    for r in range(n_reps):
        seed = int(rng.integers(2**63))
        probs, y = sc.sample(n, seed)
        for a, lam in enumerate(lams):
            for c, name in enumerate(configs):
                noise, pools = MULTICLASS_CONFIGS[name]
                cal = LpCalibrator(lam, noise=noise, pools=pools, rng=seed + 1).fit(probs, y)
                cal_sq[a, c, r] = sc.evaluate(cal.predict, lam)["squared_error"]
                mass_thresholds[a, c, r] = cal.mass_threshold_
    return {
        "k": k,
        "lam": lams,
        "configs": configs,
        "sq_f": sq_f,
        "sq_discretised": disc,
        "sq_calibrated": cal_sq,
        "mass_threshold": mass_thresholds,
        "lemma12": np.array([discretisation_bound(lam) for lam in lams]),
        "theorem6": np.array([[squared_error_excess_bound(lam, b) for b in mass_thresholds[a].mean(axis=1)] for a, lam in enumerate(lams)]),
    }


def method_comparison(
    k: int = 5,
    n: int = 30_000,
    n_reps: int = 5,
    lam: float = 0.1,
    n_bins: int = 15,
    p_values=(1.0, 2.0, np.inf),
    rng=0,
) -> dict:
    r"""Population errors of the recalibrated predictors of several methods on the same samples.

    Methods: the forecaster, its discretisation :math:`c\circ r\circ f`, the
    algorithm with and without the noise and pools, class-wise and top-label
    uniform-mass histogram binning (``n_bins`` bins) and temperature scaling.
    Returns ``methods``, ``metrics`` (names) and ``values`` of shape
    ``(methods, metrics, reps)``; metrics are the :math:`\ell_p` errors for
    ``p_values``, top-label and class-wise ECE (15 equal-width bins), squared
    error and accuracy.  ``light_mass`` (per repetition) is the mass of the level
    sets the plain algorithm left out of :math:`H`.
    """
    k = check_int(k, "k", minimum=2)
    n = check_int(n, "n", minimum=10)
    n_reps = check_int(n_reps, "n_reps")
    lam, _ = check_lam(lam)
    n_bins = check_size(n_bins, "n_bins", item_bytes=16 * k, what=f"edges and values of {k} class-wise binnings")
    p_values = _exponents(p_values)
    check_memory(n_reps * 7 * (p_values.size + 4), "n_reps", what=f"{p_values.size + 4} metrics of seven methods per repetition")
    rng = as_rng(rng)
    sc = book_multiclass_scenario(k)
    methods = ["forecaster f", "discretised c(r(f))", "algorithm, noise + pools", "algorithm, plain",
               "class-wise binning", "top-label binning", "temperature scaling"]
    metric_names = [f"l_{'inf' if np.isinf(p) else f'{p:g}'}" for p in p_values] + [
        "top-label ECE", "class-wise ECE", "squared error", "accuracy"]
    values = np.full((len(methods), len(metric_names), n_reps), np.nan)
    light = np.full(n_reps, np.nan)

    def record(i, r, predictions):
        res = sc.evaluate(predictions, lam, p_values)
        values[i, :, r] = [*res["lp"], res["top_label_ece"], res["classwise_ece"], res["squared_error"], res["accuracy"]]

    for r in range(n_reps):
        seed = int(rng.integers(2**63))
        probs, y = sc.sample(n, seed)
        record(0, r, sc.atoms)
        record(1, r, _discretised(sc, lam))
        record(2, r, LpCalibrator(lam, rng=seed + 1).fit(probs, y).predict)
        plain = LpCalibrator(lam, noise=False, pools=False).fit(probs, y)
        record(3, r, plain.predict)
        atom_keys = _keys_from_counts(_counts(sc.atoms, plain.m), plain.m)
        light[r] = sc.weights[~np.isin(atom_keys, plain.keys_)].sum()
        record(4, r, ClasswiseBinning(n_bins).fit(probs, y).predict)
        record(5, r, TopLabelBinning(n_bins).fit(probs, y).predict)
        record(6, r, TemperatureScaling().fit(probs, y).predict)
    return {"k": k, "n": n, "lam": lam, "methods": methods, "metrics": metric_names, "values": values, "light_mass": light}


def full_version_demo(k: int = 3, lam: float = 0.5, temperature: float = 0.2, n: int = 300_000, n_reps: int = 3,
                            p_values=(2.0, np.inf), rng=0) -> dict:
    r"""A regime where the full version (Laplace noise and pools) acts: a strongly over-confident forecaster on a coarse grid.

    The scenario is :func:`book_multiclass_scenario` with ``temperature``
    (0.2: :math:`h^* = \mathrm{softmax}(z/5 + o)`, far from the forecasts), so a
    few heavy level sets carry mass-weighted errors above the automatic
    threshold.  For each repetition the full version is fitted on ``n`` samples
    and evaluated exactly.  Returns per repetition ``steps``, ``merges``,
    ``n_high``, ``threshold``, ``lp`` (``(reps, len(p))``), ``sq``,
    ``lemma8_ratio`` (NaN in a repetition with no heavy level set, hence no
    answers), ``n_queries`` (answers of the estimation structure),
    ``n_sizes`` (:math:`J`, the number of group sizes), ``pool_size`` (samples in
    the mass pool of singletons) and ``radius_mass`` (its radius :math:`\psi_m` of
    ``lem-multiclass-lp-disjoint``; the theorem's event :math:`E_2` needs
    :math:`J\psi_m \le \omega/8`, which the automatic threshold does not give),
    and ``lp_discretised``, ``sq_discretised`` of :math:`c\circ r\circ f`.
    """
    k = check_int(k, "k", minimum=2)
    lam, _ = check_lam(lam)
    temperature = check_positive(temperature, "temperature")
    n = check_int(n, "n", minimum=10)
    n_reps = check_int(n_reps, "n_reps")
    p_values = _exponents(p_values)
    check_memory(n_reps * (10 + p_values.size), "n_reps", what=f"{10 + p_values.size} results per repetition")
    rng = as_rng(rng)
    sc = book_multiclass_scenario(k, temperature=temperature)
    disc = sc.evaluate(_discretised(sc, lam), lam, p_values)
    out = {key: np.full(n_reps, np.nan) for key in ("steps", "merges", "n_high", "threshold", "sq", "lemma8_ratio", "n_queries",
                                                     "n_sizes", "pool_size", "radius_mass")}
    out["lp"] = np.full((n_reps, p_values.size), np.nan)
    for r in range(n_reps):
        seed = int(rng.integers(2**62))
        probs, y = sc.sample(n, seed)
        cal = LpCalibrator(lam, record_queries=True, rng=seed + 1).fit(probs, y)
        res = sc.evaluate(cal.predict, lam, p_values)
        out["steps"][r], out["merges"][r], out["n_high"][r] = cal.n_steps_, cal.n_merges_, cal.keys_.size
        out["threshold"][r], out["sq"][r], out["lp"][r] = cal.threshold_, res["squared_error"], res["lp"]
        out["lemma8_ratio"][r] = _lemma8_ratio(cal, sc, lam)
        out["n_queries"][r] = len(cal.queries_)
        out["n_sizes"][r], out["pool_size"][r] = (len(cal.pool_sizes_) - 1) // 2, cal.pool_sizes_[1]
        out["radius_mass"][r] = _pool_radii(cal, k)[0][0]
    out.update({"k": k, "lam": lam, "temperature": temperature, "n": n, "p": p_values,
                "lp_discretised": disc["lp"], "sq_discretised": disc["squared_error"]})
    return out
