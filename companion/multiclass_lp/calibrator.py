"""The calibration algorithm of paper 002 (Algorithm 2, book ``alg-multiclass-lp``) as an estimator.

:class:`LpCalibrator` holds the settings, validates the input and keeps the
fitted attributes; the pools, thresholds and the patch-and-merge loop are in
:mod:`companion.multiclass_lp.structure`.
"""

from __future__ import annotations


import numpy as np

from .._checks import as_real_array, as_rng, check_bool, check_int, check_open_unit, check_positive, simplex_tolerance
from .bounds import lp_threshold
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
from .structure import GroupRun, _pool_count, plan_pools, pool_statistics, run_groups


__all__ = ["DEFAULT_MAX_ITER", "LpCalibrator"]


#: Default cap on the number of steps (the loop always terminates, see ``LpCalibrator``).
DEFAULT_MAX_ITER = 100_000


class LpCalibrator:
    r"""Recalibrate a ``k``-class predictor under :math:`\ell_p` error (the paper's Algorithm 2, ``alg-multiclass-lp``).

    Steps of :meth:`fit` (the book's reconstruction, see the chapter):

    1. round every forecast to its level set; estimate each level set's mass
       :math:`\hat q(v)` and keep the *high-mass bins* :math:`H = \{v : \hat q(v) \ge \omega_m\}`;
    2. one group per bin, predicting the canonical distribution :math:`c(v)`;
    3. while some group :math:`G` and class :math:`i` have estimated error
       :math:`\hat q(G)\,|u_{G,i} - \hat y_i(G)| > \omega` (:math:`u_G` the group's
       prediction, :math:`\hat q(G)` its estimated mass, :math:`\hat y(G)` its
       estimated label distribution): take the largest, set coordinate
       :math:`i` to :math:`\hat y_i(G)` and project onto the simplex (stage 1);
       if another group's prediction has the same level set, merge the two and
       keep the prediction of the group with the larger estimated mass
       (stage 2); re-estimate.
    4. Points of level sets outside :math:`H` get :math:`c(r(f(x)))`.

    Group statistics come from *estimation groups* whose sizes are powers of
    2 (the paper's structure Q): a group of the prediction structure is a
    disjoint union of estimation groups of distinct sizes and its estimates are
    sums of theirs (Lemma 9 of the paper).  :math:`\hat y(G)` is the projection
    onto the simplex of the estimated class frequencies of :math:`G`, so it is
    a distribution; the loop therefore always terminates (each step lowers
    :math:`\|u_G - \hat y(G)\|^2` by more than :math:`(\omega/\hat q(G))^2`, and
    there are fewer merges than bins).

    Parameters
    ----------
    lam : float
        Grid step :math:`\lambda = 1/m`.
    p : float
        The :math:`\ell_p` exponent in (1, inf]; used only with ``epsilon``.
    epsilon : float, optional
        Target :math:`\ell_p` error.  Sets :math:`\omega = \omega_m = (\varepsilon/4)^{p/(p-1)}`
        (Theorem 6 as reconstructed, ``thm-multiclass-lp-main``) and makes
        :meth:`fit` refuse fewer samples than :func:`companion.multiclass_lp.theorem6_sample_size`
        (unless ``check_sample_size=False``).
    threshold : float or "auto"
        Error threshold :math:`\omega`.  ``"auto"`` (the default, used when
        ``epsilon`` is None) sets :math:`\omega = \omega_m = 2\,\mathrm{sd}` with
        :math:`\mathrm{sd} = 1/(2\sqrt{n_{\mathrm{pool}}}) + \sqrt2(b_m + 2b_y)`, an upper
        bound on the standard deviation of an estimated group error from a pool of
        :math:`n_{\mathrm{pool}}` samples with Laplace noise of scales :math:`b_m`
        (masses) and :math:`b_y` (labels); :data:`AUTO_THRESHOLD_SCALE` is the 2.
        Without noise this is :math:`1/\sqrt{n_{\mathrm{pool}}}`.  The book's
        practical choice, *not* the theorem's.
    mass_threshold : float, optional
        :math:`\omega_m`, the mass above which a level set is heavy (default: :math:`\omega`).
        With ``noise=True`` at least about ``1.1e-16`` (Lemma 8 counts :math:`\lfloor 1/\omega_m\rfloor \le 2^{53}` events).
    delta : float
        Failure probability, used for the noise scale and the sample size.
    noise : bool or float
        True: Laplace noise of the paper's Lemma 8 (``lem-multiclass-lp-disjoint``), scaled
        for the accuracy the pool supports; False: exact sample means; a float:
        the privacy parameter :math:`\varepsilon_{\mathrm{DP}}` (scale :math:`2/(n\varepsilon_{\mathrm{DP}})`).
    pools : bool
        True: the paper's sample splitting (one pool for the level-set masses
        and, for each group size :math:`2^j`, one pool for group masses and one
        for label frequencies); False: every estimate from the whole sample.
    max_iter : int, optional
        Cap on the number of steps (default :data:`DEFAULT_MAX_ITER`).
    record_states : bool
        Store the per-bin predictions after both stages of every step in
        ``trajectory_`` (for population trajectories).
    record_queries : bool
        Store every answer of the estimation structure in ``queries_`` (list of
        ``(bins, mass, labels)``; ``labels`` estimates
        :math:`(q, \mathbb E[e_Y\,\mathbb 1\{\cdot\}])`), to compare with population values (the paper's Lemma 8, ``lem-multiclass-lp-disjoint``).
    check_sample_size : bool
        With ``epsilon``, refuse samples smaller than Theorem 6 asks for.
    rng : numpy.random.Generator or int
        Generator or seed, for the pool split and the noise.

    Attributes
    ----------
    threshold_, mass_threshold_ : float
        The thresholds :math:`\omega` and :math:`\omega_m` used.
    keys_ : array
        Level-set keys (:func:`level_set_key`) of the heavy level sets :math:`H`, sorted.
    bin_levels_ : array
        Their count vectors.
    bin_predictions_ : array
        Final prediction of each level set of :math:`H`.
    groups_ : list of arrays
        The groups, as index arrays into :math:`H`.
    n_steps_, n_merges_, converged_ : int, int, bool
        Steps taken, merges made, and whether the loop ended below the threshold.
    pool_sizes_, noise_scales_ : list
        Sizes of the pools and Laplace scales (mass, labels) per group size.
    visited_ : array
        Keys of every level set a group prediction occupied during the run.
    trajectory_ : dict
        Per-step arrays ``group_size``, ``cls``, ``est_error``, ``merged``,
        ``moved_mass`` (estimated mass of the group whose prediction moved in a
        merge) and ``n_groups``; with ``record_states`` also the
        ``(steps, |H|, k)`` arrays ``stage1`` and ``stage2``.
    queries_ : list
        With ``record_queries``, every answer of the estimation structure.
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
                raise ValueError(f"threshold must be a number in (0, 1) or 'auto', got {threshold!r}")
            self.threshold = "auto"
        else:
            self.threshold = check_open_unit(threshold, "threshold")
        self.mass_threshold = None if mass_threshold is None else check_open_unit(mass_threshold, "mass_threshold")
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
    def fit(self, probs, y):
        """Run Algorithm 2 on a labelled sample (forecasts ``probs``, labels ``y``); return self."""
        _check_key_work_of(probs, self.m)
        probs, eps = _probability_rows(probs)
        y = _labels_for(probs, y)
        n, k = probs.shape
        rng = as_rng(0 if self.rng is None else self.rng)
        omega, omega_m, sizes, scales = plan_pools(self, n, k)
        self.threshold_, self.mass_threshold_ = omega, omega_m
        counts = _counts(probs, self.m, eps)
        keys = _keys_from_counts(counts, self.m)
        self.pool_sizes_ = [int(s) for s in sizes]
        h_keys, h_levels, mass_stats, label_stats, scales = pool_statistics(self.pools, keys, counts, y, sizes, scales, omega_m, rng)
        self.noise_scales_ = list(scales)
        self.n_classes_ = k
        self._store(run_groups(self, h_keys, h_levels, mass_stats, label_stats, rng))
        return self

    def fit_exact(self, probs, cond_mean, weights):
        r"""Run Algorithm 2 with exact estimates (an oracle) on a finite law.

        ``probs[j]``, ``cond_mean[j]`` and ``weights[j]`` are the forecast, the
        exact :math:`\mathbb E[Y \mid f = \text{probs}[j]]` and the probability
        of atom ``j``.  Every estimate equals its population value, no noise is
        added and there are no pools, so Lemmas 10-14 apply with zero
        estimation error.  Thresholds: ``epsilon`` or a numeric ``threshold``
        (``"auto"`` has no meaning without a sample and raises ``ValueError``).
        """
        _check_key_work_of(probs, self.m)
        probs, eps = _probability_rows(probs)
        h = _cond_mean_for(probs, cond_mean)
        w = _weights_for(probs, weights)
        k = probs.shape[1]
        if self.epsilon is not None:

            omega = lp_threshold(self.epsilon, self.p)
        elif self.threshold == "auto":
            raise ValueError("threshold must be a number (or epsilon given) for fit_exact; 'auto' needs a sample size")
        else:
            omega = self.threshold
        omega_m = omega if self.mass_threshold is None else self.mass_threshold
        self.threshold_, self.mass_threshold_ = omega, omega_m
        counts = _counts(probs, self.m, eps)
        keys = _keys_from_counts(counts, self.m)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        mass = np.bincount(inverse, weights=w)
        high = mass >= omega_m
        h_keys, h_levels = uniq[high], counts[first[high]]
        sel = high[inverse]
        hidx = (np.cumsum(high) - 1)[inverse[sel]]
        n_bins = h_keys.size
        labels = np.zeros((n_bins, k + 1))
        labels[:, 0] = np.bincount(hidx, weights=w[sel], minlength=n_bins)
        for i in range(k):
            labels[:, 1 + i] = np.bincount(hidx, weights=w[sel] * h[sel, i], minlength=n_bins)
        n_sizes = _pool_count(omega_m)
        self.pool_sizes_ = []
        self.noise_scales_ = [(0.0, 0.0)] * n_sizes
        self.n_classes_ = k
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
        _check_key_work_of(probs, self.m)
        probs, eps = _probability_rows(probs)
        if probs.shape[1] != self.n_classes_:
            raise ValueError(f"probs must have one column per fitted class ({self.n_classes_}), got shape {probs.shape}")
        table = self.bin_predictions_ if bin_predictions is None else self._bin_table(bin_predictions)
        counts = _counts(probs, self.m, eps)
        out = _canonical_from_counts(counts, self.m)
        if self.keys_.size == 0:
            return out
        keys = _keys_from_counts(counts, self.m)
        pos = np.searchsorted(self.keys_, keys)
        ok = pos < self.keys_.size
        hit = np.zeros(keys.size, dtype=bool)
        hit[ok] = self.keys_[pos[ok]] == keys[ok]
        out[hit] = table[pos[hit]]
        return out
