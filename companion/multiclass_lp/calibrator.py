"""The calibration algorithm of paper 002 (Algorithm 2, book ``alg-multiclass-lp``) as an estimator.

:class:`LpCalibrator` holds the settings, validates the input and keeps the
fitted attributes; the pools, thresholds and the patch-and-merge loop are in
:mod:`companion.multiclass_lp.structure`.
"""

from __future__ import annotations


import numpy as np

from .._checks import as_real_array, as_rng, check_bool, check_int, check_open_unit, check_positive, simplex_tolerance
from .level_sets import (
    ROW_SUM_TOLERANCE,
    _canonical_from_counts,
    _check_key_work_of,
    _cond_mean_for,
    _counts,
    _keys_from_counts,
    _labels_for,
    _probability_rows,
    _weights_for,
    check_lam,
    check_p,
)
from .structure import THRESHOLD_MIN, GroupRun, _pool_count, exact_statistics, fixed_thresholds, plan_pools, pool_statistics, run_groups


__all__ = ["DEFAULT_MAX_ITER", "LpCalibrator"]


def _check_threshold(value, name: str) -> float:
    """A threshold omega or omega_m in [THRESHOLD_MIN, 1)."""
    value = check_open_unit(value, name)
    if value < THRESHOLD_MIN:
        raise ValueError(f"{name} must lie in [{THRESHOLD_MIN:g}, 1) (a threshold no sample can resolve below), got {value!r}")
    return value


#: Default cap on the number of steps (the loop always terminates, see ``LpCalibrator``).
DEFAULT_MAX_ITER = 100_000


class LpCalibrator:
    r"""Recalibrate a ``k``-class predictor under :math:`\ell_p` error: Algorithm 2 of paper 002 (``alg-multiclass-lp``).

    :meth:`fit` rounds every forecast to its level set, keeps the heavy level sets
    :math:`H` (estimated mass at least :math:`\omega_m`), gives each a group of its own
    predicting :math:`c(v)`, and, while some group :math:`G` and class :math:`i` have estimated
    error :math:`\hat q(G)\,|u_{G,i} - \hat y_i(G)| > \omega`, patches the largest (stage 1)
    and merges groups whose predictions share a level set (stage 2).  :meth:`predict`
    returns :math:`u_G` on the groups and :math:`c(r(f(x)))` elsewhere.

    Parameters
    ----------
    lam : float
        Grid step :math:`\lambda = 1/m`, ``m`` an integer of at least 2.
    p : float
        The :math:`\ell_p` exponent in [1, inf]; used only with ``epsilon`` (then in (1, inf]).
    epsilon : float, optional
        Target :math:`\ell_p` error in (0, 1): sets :math:`\omega = \omega_m = (\varepsilon/4)^{p/(p-1)}`
        (``thm-multiclass-lp-main``) and makes :meth:`fit` refuse fewer samples than
        :func:`companion.multiclass_lp.theorem6_sample_size` (unless ``check_sample_size=False``).
    threshold : float or "auto"
        Error threshold :math:`\omega` in [``THRESHOLD_MIN`` = 1e-15, 1).  ``"auto"`` (the default,
        used when ``epsilon`` is None) sets :math:`\omega = \omega_m` to
        :data:`AUTO_THRESHOLD_SCALE` = 2 standard deviations of an estimated group error,
        :math:`1/\sqrt{n_{\mathrm{pool}}}` without noise (a choice of the book, not the theorem's: see the errata).
    mass_threshold : float, optional
        :math:`\omega_m` in [1e-15, 1), the mass from which a level set is heavy (default :math:`\omega`).
    delta : float
        Failure probability in (0, 1), for the noise scales and the sample size.
    noise : bool or float
        True: the Laplace noise of ``lem-multiclass-lp-disjoint``; False: exact sample means;
        a float :math:`\varepsilon_{\mathrm{DP}} > 0`: Laplace noise of scale :math:`2/(n\varepsilon_{\mathrm{DP}})`.
    pools : bool
        True: the paper's sample splitting (pool 0 for the level-set masses, and for each group
        size :math:`2^j` a mass pool and a label pool); False: every estimate from the whole sample.
    max_iter : int, optional
        Cap on the number of steps (default :data:`DEFAULT_MAX_ITER`; the loop always ends).
    record_states, record_queries : bool
        Keep the per-bin predictions after both stages of every step in ``trajectory_``;
        keep every answer ``(bins, mass, labels)`` of the estimation structure in ``queries_``.
    check_sample_size : bool
        With ``epsilon``, refuse samples smaller than Theorem 6 asks for.
    rng : numpy.random.Generator or int, optional
        Generator or seed for the pool split and the noise (None: seed 0, so every fit is the same).

    Attributes
    ----------
    threshold_, mass_threshold_ : float
        The thresholds :math:`\omega` and :math:`\omega_m` used.
    keys_, bin_levels_, bin_predictions_ : array
        The heavy level sets :math:`H` (keys of :func:`level_set_key`, sorted), their count
        vectors, and the final prediction of each.
    groups_ : list of arrays
        The groups of the prediction structure, as index arrays into :math:`H`.
    n_steps_, n_merges_, converged_ : int, int, bool
        Steps taken, merges made, and whether the loop ended below the threshold.
    pool_sizes_, noise_scales_ : list
        Sizes of the pools and Laplace scales (mass, labels) per group size.
    visited_ : array
        Keys of every level set a group prediction occupied during the run.
    trajectory_ : dict
        Per-step arrays ``group_size``, ``cls``, ``est_error``, ``merged``, ``moved_mass``,
        ``n_groups``; with ``record_states`` also ``stage1`` and ``stage2``, ``(steps, |H|, k)``.
    queries_ : list
        With ``record_queries``, every answer of the estimation structure.

    Notes
    -----
    The estimated label distribution :math:`\hat y(G)` is projected onto the simplex, so the
    loop always terminates (a reconstruction choice: see the errata).  Group estimates are sums over
    estimation groups of distinct power-of-2 sizes (the paper's Lemma 9, ``lem-multiclass-lp-binary``),
    one pool per size and kind.  The domain (probability rows, the rounding allowance, the
    thresholds) is on the page Numerical notes (``numnotes-multiclass-lp``).

    Examples
    --------
    >>> from companion.multiclass_lp import book_multiclass_scenario
    >>> probs, y = book_multiclass_scenario(3).sample(20_000, 0)
    >>> cal = LpCalibrator(0.1, threshold=0.01, noise=False, pools=False).fit(probs, y)
    >>> cal.keys_.size, cal.n_steps_, cal.n_merges_
    (21, 7, 3)
    >>> cal.predict(probs[:2]).round(3)
    array([[0.591, 0.162, 0.247],
           [0.233, 0.733, 0.033]])
    """

    def __init__(
        self,
        lam=0.1,
        *,
        p=2.0,
        epsilon=None,
        threshold="auto",
        mass_threshold=None,
        delta: float = 0.1,
        noise=True,
        pools: bool = True,
        max_iter=None,
        record_states: bool = False,
        record_queries: bool = False,
        check_sample_size: bool = True,
        rng=None,
    ):
        self.lam, self.m = check_lam(lam)
        self.p = check_p(p)
        self.delta = check_open_unit(delta, "delta")
        if epsilon is not None:
            self.epsilon = check_open_unit(epsilon, "epsilon")
            if self.p == 1.0:
                raise ValueError("p must be greater than 1 when epsilon is given (Theorem 6 gives no sample size at p = 1)")
        else:
            self.epsilon = None
        if isinstance(threshold, str):
            if threshold != "auto":
                raise ValueError(f"threshold must be a number in [{THRESHOLD_MIN:g}, 1) or 'auto', got {threshold!r}")
            self.threshold = "auto"
        else:
            self.threshold = _check_threshold(threshold, "threshold")
        self.mass_threshold = None if mass_threshold is None else _check_threshold(mass_threshold, "mass_threshold")
        if isinstance(noise, (bool, np.bool_)):
            self.noise = bool(noise)
        else:
            self.noise = check_positive(noise, "noise")
        if not isinstance(pools, (bool, np.bool_)):
            raise ValueError(f"pools must be True or False, got {pools!r}")
        self.pools = bool(pools)
        self.max_iter = DEFAULT_MAX_ITER if max_iter is None else check_int(max_iter, "max_iter", minimum=0)
        self.record_states = check_bool(record_states, "record_states")
        self.record_queries = check_bool(record_queries, "record_queries")
        self.check_sample_size = check_bool(check_sample_size, "check_sample_size")
        if rng is not None:
            as_rng(rng)  # validated now; kept as given, so that every fit starts from the same seed
        self.rng = rng

    # -- fitting ----------------------------------------------------------------
    def _rows(self, probs) -> tuple[np.ndarray, float]:
        """``probs`` checked (finite rows on the simplex, keyable at this grid) and the machine epsilon of its type."""
        _check_key_work_of(probs, self.m)
        return _probability_rows(probs)

    def fit(self, probs, y):
        """Run Algorithm 2 (``alg-multiclass-lp``) on a labelled sample: forecasts ``probs`` (n, k), labels ``y``; return self."""
        probs, eps = self._rows(probs)
        y = _labels_for(probs, y)
        n, k = probs.shape
        rng = as_rng(0 if self.rng is None else self.rng)
        # the thresholds omega, omega_m, the pool sizes and the Laplace scales (Lemma 8, Theorem 6)
        self.threshold_, self.mass_threshold_, sizes, scales = plan_pools(self, n, k)
        self.pool_sizes_, self.n_classes_ = [int(s) for s in sizes], k
        counts = _counts(probs, self.m, eps)  # r(f(x_s)) / lambda
        keys = _keys_from_counts(counts, self.m)
        # step 1: heavy level sets H from pool 0, and each pool's per-bin sums for the estimates of steps 2-3
        h_keys, h_levels, mass_stats, label_stats, scales = pool_statistics(
            self.pools, keys, counts, y, sizes, scales, self.mass_threshold_, rng)
        self.noise_scales_ = list(scales)
        self._store(run_groups(self, h_keys, h_levels, mass_stats, label_stats, rng))  # steps 2-4
        return self

    def fit_exact(self, probs, cond_mean, weights):
        r"""Run Algorithm 2 with exact estimates (an oracle) on a finite law; return self.

        ``probs[j]``, ``cond_mean[j]`` and ``weights[j]`` are the forecast, the
        exact :math:`\mathbb E[Y \mid f = \text{probs}[j]]` and the probability
        of atom ``j``.  Every estimate equals its population value, no noise is
        added and there are no pools, so Lemmas 10-14 apply with zero
        estimation error.  Thresholds: ``epsilon`` or a numeric ``threshold``
        (``"auto"`` has no meaning without a sample and raises ``ValueError``).
        """
        probs, eps = self._rows(probs)
        h = _cond_mean_for(probs, cond_mean)
        w = _weights_for(probs, weights)
        if self.epsilon is None and self.threshold == "auto":
            raise ValueError("threshold must be a number (or epsilon given) for fit_exact; 'auto' needs a sample size")
        self.threshold_, self.mass_threshold_ = fixed_thresholds(self)
        counts = _counts(probs, self.m, eps)
        h_keys, h_levels, labels = exact_statistics(_keys_from_counts(counts, self.m), counts, h, w, self.mass_threshold_)
        n_sizes = _pool_count(self.mass_threshold_)
        self.pool_sizes_, self.noise_scales_, self.n_classes_ = [], [(0.0, 0.0)] * n_sizes, probs.shape[1]
        self._store(run_groups(self, h_keys, h_levels, [labels[:, 0]] * n_sizes, [labels] * n_sizes, as_rng(0)))
        return self

    def _store(self, run: GroupRun) -> None:
        """Keep the result of :func:`~companion.multiclass_lp.structure.run_groups` as the fitted attributes."""
        self.keys_, self.bin_levels_, self.bin_predictions_ = run.keys, run.bin_levels, run.bin_predictions
        self.groups_, self.visited_, self.trajectory_ = run.groups, run.visited, run.trajectory
        self.n_steps_, self.n_merges_, self.converged_ = run.n_steps, run.n_merges, run.converged
        self.queries_ = run.queries

    # -- prediction -------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "bin_predictions_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(probs, y) first")

    def _bin_table(self, bin_predictions) -> np.ndarray:
        """``bin_predictions`` checked: one probability vector per heavy level set (entries in [0, 1], rows
        summing to 1 within ``ROW_SUM_TOLERANCE`` = 1e-8, or ``k`` machine epsilons of a lower-precision type)."""
        table = as_real_array(bin_predictions, "bin_predictions", ndim=2, allow_empty=True)
        if table.shape != (self.keys_.size, self.n_classes_):
            raise ValueError(f"bin_predictions must have shape {(self.keys_.size, self.n_classes_)}, got {table.shape}")
        tol = simplex_tolerance(bin_predictions, self.n_classes_, ROW_SUM_TOLERANCE)
        bad = np.any((table < 0) | (table > 1), axis=1) | (np.abs(table.sum(axis=1) - 1) > tol)
        if np.any(bad):
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"bin_predictions rows must be probability vectors (entries in [0, 1] summing to 1 within "
                             f"{tol:g}); row {i} is {table[i].tolist()}")
        return table

    def predict(self, probs, bin_predictions=None) -> np.ndarray:
        r"""Recalibrated probability vectors: the group prediction for high-mass level sets, :math:`c(r(f(x)))` otherwise.

        ``bin_predictions`` (optional, shape ``(len(keys_), k)``) replaces the
        fitted per-bin predictions, e.g. a state of ``trajectory_``; its rows must
        be probability vectors (entries in [0, 1] summing to 1 within 1e-8).
        """
        self._check_fitted()
        probs, eps = self._rows(probs)
        if probs.shape[1] != self.n_classes_:
            raise ValueError(f"probs must have one column per fitted class ({self.n_classes_}), got shape {probs.shape}")
        table = self.bin_predictions_ if bin_predictions is None else self._bin_table(bin_predictions)
        counts = _counts(probs, self.m, eps)
        out = _canonical_from_counts(counts, self.m)  # step 5: c(r(f(x))) off the groups, u_G on them
        if self.keys_.size == 0:
            return out
        keys = _keys_from_counts(counts, self.m)
        pos = np.searchsorted(self.keys_, keys)
        ok = pos < self.keys_.size
        hit = np.zeros(keys.size, dtype=bool)
        hit[ok] = self.keys_[pos[ok]] == keys[ok]
        out[hit] = table[pos[hit]]
        return out
