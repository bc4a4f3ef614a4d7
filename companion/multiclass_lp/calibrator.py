"""The calibration algorithm of paper 002 (Algorithm 2, book ``alg-multiclass-lp``) as an estimator.

:class:`LpCalibrator` holds the settings, validates the input and keeps the
fitted attributes; the pools, thresholds and the patch-and-merge loop are in
:mod:`companion.multiclass_lp.structure`.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._checks import (as_real_array, as_rng, check_bool, check_int, check_open_unit, check_positive, check_same_length,
                       simplex_tolerance)
from ..calibration_sharpness.binning import class_codes
from .level_sets import (
    ROW_SUM_TOLERANCE,
    _canonical_from_counts,
    _check_key_work_of,
    _cond_mean_for,
    _counts,
    _keys_from_counts,
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


def _settings(cal) -> SimpleNamespace:
    """The parameters of the :class:`LpCalibrator` ``cal`` checked (by ``fit``, scikit-learn's rule), under their names,
    as the loop of :mod:`~companion.multiclass_lp.structure` reads them (plus ``m = 1/lam``; ``max_iter`` None
    becomes :data:`DEFAULT_MAX_ITER`)."""
    s = SimpleNamespace()
    s.lam, s.m = check_lam(cal.lam)
    s.p = check_p(cal.p)
    s.delta = check_open_unit(cal.delta, "delta")
    s.epsilon = None
    if cal.epsilon is not None:
        s.epsilon = check_open_unit(cal.epsilon, "epsilon")
        if s.p == 1.0:
            raise ValueError("p must be greater than 1 when epsilon is given (Theorem 6 gives no sample size at p = 1)")
    if isinstance(cal.threshold, str):
        if cal.threshold != "auto":
            raise ValueError(f"threshold must be a number in [{THRESHOLD_MIN:g}, 1) or 'auto', got {cal.threshold!r}")
        s.threshold = "auto"
    else:
        s.threshold = _check_threshold(cal.threshold, "threshold")
    s.mass_threshold = None if cal.mass_threshold is None else _check_threshold(cal.mass_threshold, "mass_threshold")
    s.noise = bool(cal.noise) if isinstance(cal.noise, (bool, np.bool_)) else check_positive(cal.noise, "noise")
    if not isinstance(cal.pools, (bool, np.bool_)):
        raise ValueError(f"pools must be True or False, got {cal.pools!r}")
    s.pools = bool(cal.pools)
    s.max_iter = DEFAULT_MAX_ITER if cal.max_iter is None else check_int(cal.max_iter, "max_iter", minimum=0)
    s.record_states = check_bool(cal.record_states, "record_states")
    s.record_queries = check_bool(cal.record_queries, "record_queries")
    s.check_sample_size = check_bool(cal.check_sample_size, "check_sample_size")
    s.rng = as_rng(0 if cal.rng is None else cal.rng)  # a seed starts every fit from the same state
    return s


class LpCalibrator(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    r"""Recalibrate a ``k``-class predictor under :math:`\ell_p` error: Algorithm 2 of paper 002 (``alg-multiclass-lp``).

    :meth:`fit` rounds every forecast to its level set, keeps the heavy level sets
    :math:`H` (estimated mass at least :math:`\omega_m`), gives each a group of its own
    predicting :math:`c(v)`, and, while some group :math:`G` and class :math:`i` have estimated
    error :math:`\hat q(G)\,|u_{G,i} - \hat y_i(G)| > \omega`, patches the largest (stage 1)
    and merges groups whose predictions share a level set (stage 2).  :meth:`predict`
    returns :math:`u_G` on the groups and :math:`c(r(f(x)))` elsewhere.

    A scikit-learn transformer of probability rows: ``fit(probs, y)`` then ``transform(probs)``
    (the same method as :meth:`predict`), so it follows a classifier's ``predict_proba`` in a
    ``Pipeline``.  The parameters are stored as given and checked by :meth:`fit`.

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
    classes_ : ndarray of shape (k,)
        The label of each column: ``0, ..., k - 1`` for labels that are positions, else the ``k``
        distinct labels of ``y``, sorted.
    n_classes_ : int
        The number of classes ``k``.
    m_ : int
        The grid size :math:`m = 1/\lambda` of the fit.
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
    >>> names = np.array(["ant", "bee", "cat"])[y]  # any labels: the columns follow their sorted order
    >>> named = LpCalibrator(0.1, threshold=0.01, noise=False, pools=False).fit(probs, names)
    >>> named.classes_.tolist(), bool(np.array_equal(named.transform(probs[:2]), cal.predict(probs[:2])))
    (['ant', 'bee', 'cat'], True)
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
        self.lam = lam
        self.p = p
        self.epsilon = epsilon
        self.threshold = threshold
        self.mass_threshold = mass_threshold
        self.delta = delta
        self.noise = noise
        self.pools = pools
        self.max_iter = max_iter
        self.record_states = record_states
        self.record_queries = record_queries
        self.check_sample_size = check_sample_size
        self.rng = rng

    @property
    def m(self) -> int:
        """The grid size :math:`m = 1/\\lambda` of the parameter ``lam`` (``m_`` is that of the fit)."""
        return check_lam(self.lam)[1]

    # -- fitting ----------------------------------------------------------------
    @staticmethod
    def _rows(probs, m: int) -> tuple[np.ndarray, float]:
        """``probs`` checked (finite rows on the simplex, keyable at this grid) and the machine epsilon of its type."""
        _check_key_work_of(probs, m)
        return _probability_rows(probs)

    def fit(self, probs, y):
        """Run Algorithm 2 (``alg-multiclass-lp``) on a labelled sample: forecasts ``probs`` (n, k), labels ``y``; return self.

        ``probs``: an array or a DataFrame of ``k`` columns; ``y``: positions ``0, ..., k - 1`` or ``k``
        distinct labels (``classes_``, sorted).
        """
        s = _settings(self)
        probs, eps = self._rows(probs, s.m)
        y, classes = class_codes(y, probs.shape[1])  # positions 0..k-1, or k distinct labels in sorted order
        check_same_length(probs=probs, y=y)
        n, k = probs.shape
        # the thresholds omega, omega_m, the pool sizes and the Laplace scales (Lemma 8, Theorem 6)
        self.threshold_, self.mass_threshold_, sizes, scales = plan_pools(s, n, k)
        self.pool_sizes_, self.n_classes_, self.classes_, self.m_ = [int(x) for x in sizes], k, classes, s.m
        counts = _counts(probs, s.m, eps)  # r(f(x_s)) / lambda
        keys = _keys_from_counts(counts, s.m)
        # step 1: heavy level sets H from pool 0, and each pool's per-bin sums for the estimates of steps 2-3
        h_keys, h_levels, mass_stats, label_stats, scales = pool_statistics(
            s.pools, keys, counts, y, sizes, scales, self.mass_threshold_, s.rng)
        self.noise_scales_ = list(scales)
        s.threshold_, s.noise_scales_ = self.threshold_, self.noise_scales_
        self._store(run_groups(s, h_keys, h_levels, mass_stats, label_stats, s.rng))  # steps 2-4
        return self

    def fit_exact(self, probs, cond_mean, weights):
        r"""Run Algorithm 2 with exact estimates (an oracle) on a finite law; return self.

        ``probs[j]``, ``cond_mean[j]`` and ``weights[j]`` are the forecast, the
        exact :math:`\mathbb E[Y \mid f = \text{probs}[j]]` and the probability
        of atom ``j``.  Every estimate equals its population value, no noise is
        added and there are no pools, so Lemmas 10-14 apply with zero
        estimation error.  Thresholds: ``epsilon`` or a numeric ``threshold``
        (``"auto"`` has no meaning without a sample and raises ``ValueError``).  Classes: ``0, ..., k - 1``.
        """
        s = _settings(self)
        probs, eps = self._rows(probs, s.m)
        h = _cond_mean_for(probs, cond_mean)
        w = _weights_for(probs, weights)
        if s.epsilon is None and s.threshold == "auto":
            raise ValueError("threshold must be a number (or epsilon given) for fit_exact; 'auto' needs a sample size")
        self.threshold_, self.mass_threshold_ = fixed_thresholds(s)
        counts = _counts(probs, s.m, eps)
        h_keys, h_levels, labels = exact_statistics(_keys_from_counts(counts, s.m), counts, h, w, self.mass_threshold_)
        n_sizes, k = _pool_count(self.mass_threshold_), probs.shape[1]
        self.pool_sizes_, self.noise_scales_, self.n_classes_, self.classes_, self.m_ = [], [(0.0, 0.0)] * n_sizes, k, np.arange(k), s.m
        s.threshold_, s.noise_scales_ = self.threshold_, self.noise_scales_
        self._store(run_groups(s, h_keys, h_levels, [labels[:, 0]] * n_sizes, [labels] * n_sizes, as_rng(0)))
        return self

    def _store(self, run: GroupRun) -> None:
        """Keep the result of :func:`~companion.multiclass_lp.structure.run_groups` as the fitted attributes."""
        self.keys_, self.bin_levels_, self.bin_predictions_ = run.keys, run.bin_levels, run.bin_predictions
        self.groups_, self.visited_, self.trajectory_ = run.groups, run.visited, run.trajectory
        self.n_steps_, self.n_merges_, self.converged_ = run.n_steps, run.n_merges, run.converged
        self.queries_ = run.queries

    # -- prediction -------------------------------------------------------------
    def _check_fitted(self):
        check_is_fitted(self, "bin_predictions_")  # NotFittedError, a ValueError

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
        :meth:`transform` is this method (the name a ``Pipeline`` calls).
        """
        self._check_fitted()
        probs, eps = self._rows(probs, self.m_)
        if probs.shape[1] != self.n_classes_:
            raise ValueError(f"probs must have one column per fitted class ({self.n_classes_}), got shape {probs.shape}")
        table = self.bin_predictions_ if bin_predictions is None else self._bin_table(bin_predictions)
        counts = _counts(probs, self.m_, eps)
        out = _canonical_from_counts(counts, self.m_)  # step 5: c(r(f(x))) off the groups, u_G on them
        if self.keys_.size == 0:
            return out
        keys = _keys_from_counts(counts, self.m_)
        pos = np.searchsorted(self.keys_, keys)
        ok = pos < self.keys_.size
        hit = np.zeros(keys.size, dtype=bool)
        hit[ok] = self.keys_[pos[ok]] == keys[ok]
        out[hit] = table[pos[hit]]
        return out

    transform = predict

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True  # probability rows
        return tags
