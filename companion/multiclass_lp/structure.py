r"""The prediction and estimation structures of Algorithm 2 (``alg-multiclass-lp``), apart from the estimator.

:class:`~companion.multiclass_lp.LpCalibrator` holds the settings and the fitted
attributes; the machinery it runs lives here:

- :func:`plan_pools` chooses the thresholds :math:`\omega, \omega_m`, the pool
  sizes and the Laplace scales (Lemma 8, ``lem-multiclass-lp-disjoint``, and
  Theorem 6, ``thm-multiclass-lp-main``, as reconstructed);
- :func:`run_groups` is the patch-and-merge loop over the high-mass level
  sets, with estimation groups of power-of-2 sizes (the paper's structure Q,
  Lemma 9).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .bounds import lemma8_accuracy, lp_threshold, theorem6_budget
from .level_sets import _canonical_from_counts, _counts, _keys_from_counts, _project_rows

__all__ = ["AUTO_THRESHOLD_SCALE", "THRESHOLD_MIN"]


# ---------------------------------------------------------------------------
# The calibration algorithm (paper's Algorithm 2, alg-multiclass-lp)
# ---------------------------------------------------------------------------


class _QGroup(NamedTuple):
    bins: np.ndarray  # H-indices of the bins in the group (size a power of 2)
    mass: float  # estimate of q(A) = P[r(f(X)) in A], from the mass pool of its size
    labels: np.ndarray  # estimate of (q(A), E[Y 1{r(f(X)) in A}]) (k + 1 entries), from the label pool of its size


def _pool_count(omega_m: float) -> int:
    """Number J = floor(log2(floor(1/omega_m))) + 1 of group sizes 1, 2, 4, ... (at most floor(1/omega_m) heavy bins)."""
    return math.floor(1 / omega_m).bit_length()


def _event_count(omega_m: float) -> int:
    """Lemma 8's event count floor(1/omega_m), where 1/omega_m within rounding of an integer counts as that integer.

    A decimal threshold is read by its intent: 0.1 gives 10 and 1e-5 gives 100000, though ``1.0 / 1e-5`` is
    99999.99999999999 (Numerical notes, ``numnotes-multiclass-lp``).
    """
    reciprocal = 1 / omega_m
    nearest = round(reciprocal)
    return nearest if abs(reciprocal - nearest) <= reciprocal * 2.0**-52 else math.floor(reciprocal)


#: Smallest threshold omega or omega_m served: an estimated error resolves omega only from about 1/omega^2
#: samples, so thresholds below 1e-15 serve no sample (Numerical notes, ``numnotes-multiclass-lp``).
THRESHOLD_MIN = 1e-15


#: ``threshold="auto"`` uses omega = omega_m = AUTO_THRESHOLD_SCALE standard deviations of an estimated group error.
AUTO_THRESHOLD_SCALE = 2.0


def pool_scales(cal, sizes: list[int], k: int, n_events: int, n_sizes: int) -> list[tuple[float, float]]:
    """Laplace scales (group mass, label vector) for each group size 2^j, from the paper's Lemma 8 (``lem-multiclass-lp-disjoint``)."""
    scales = []
    for j in range(n_sizes):
        n_mass = sizes[1 + 2 * j] if cal.pools else sizes[0]
        n_labels = sizes[2 + 2 * j] if cal.pools else sizes[0]
        if cal.noise is False:
            scales.append((0.0, 0.0))
        elif cal.noise is True:
            events = max(1, n_events >> j)
            delta_pool = cal.delta / (4 * n_sizes)
            psi_m = lemma8_accuracy(n_mass, 1, events, delta_pool)
            psi_y = lemma8_accuracy(n_labels, k + 1, events, delta_pool)
            # labels: answers for F = (1, e_y)/2 (l1 norm 1) are doubled, so their noise doubles
            scales.append((8.0 / (n_mass * psi_m), 2.0 * 8.0 / (n_labels * psi_y)))
        else:
            scales.append((2.0 / (n_mass * cal.noise), 4.0 / (n_labels * cal.noise)))
    return scales


def auto_threshold(n_pool: int, scales) -> float:
    """Two standard deviations of an estimated group error: sampling 1/(2 sqrt(n)) plus Laplace sqrt(2)(b_m + 2 b_y)."""
    b_m, b_y = max(s[0] for s in scales), max(s[1] for s in scales)
    sd = 0.5 / math.sqrt(max(1, n_pool)) + math.sqrt(2.0) * (b_m + 2.0 * b_y)
    return min(0.5, AUTO_THRESHOLD_SCALE * sd)


def fixed_thresholds(cal) -> tuple[float, float]:
    """omega and omega_m of ``cal`` when they are not automatic: from ``epsilon`` (Theorem 6) or ``threshold``.

    Both must lie in [THRESHOLD_MIN, 1); ``threshold`` and ``mass_threshold`` are checked when
    ``cal`` is made, the omega that ``epsilon`` and ``p`` give is checked here.
    """
    omega = lp_threshold(cal.epsilon, cal.p) if cal.epsilon is not None else cal.threshold
    if omega < THRESHOLD_MIN:
        raise ValueError(f"epsilon = {cal.epsilon} and p = {cal.p} give omega = (epsilon/4)^(p/(p-1)) = {omega:.3g}, "
                         f"below THRESHOLD_MIN = {THRESHOLD_MIN:g} (a threshold no sample can resolve)")
    return omega, omega if cal.mass_threshold is None else cal.mass_threshold


def plan_pools(cal, n: int, k: int):
    """omega, omega_m, pool sizes [level sets, mass_1, labels_1, ...] and noise scales per group size, for ``cal``'s settings."""

    def split(j: int) -> list[int]:
        if not cal.pools:
            return [n]
        size = n // (2 * j + 1)
        if size < 1:
            raise ValueError(f"probs must hold at least {2 * j + 1} samples to fill the {2 * j + 1} pools, got {n}")
        return [n - 2 * j * size] + [size] * (2 * j)

    if cal.epsilon is not None or cal.threshold != "auto":
        omega, omega_m = fixed_thresholds(cal)
        j = _pool_count(omega_m)
        sizes = split(j)
        if cal.epsilon is not None and cal.pools:
            budget = theorem6_budget(k, cal.p, cal.epsilon, cal.delta, cal.lam)
            if n >= budget["total"] and cal.mass_threshold is None:
                rest = n - j * (budget["pool_mass"] + budget["pool_labels"])
                sizes = [rest] + [budget["pool_mass"], budget["pool_labels"]] * j
            elif cal.check_sample_size:
                raise ValueError(
                    f"probs must hold at least {budget['total']} samples for epsilon = {cal.epsilon}, "
                    f"p = {cal.p}, delta = {cal.delta}, lam = {cal.lam} (Theorem 6), got {n}"
                )
        n_events = _event_count(omega_m)
        return omega, omega_m, sizes, pool_scales(cal, sizes, k, n_events, j)
    # automatic: the smallest J whose pools support a threshold omega_m with J(omega_m) <= J
    j = 1
    while True:
        sizes = split(j)
        n_pool = sizes[-1]
        first_guess = min(0.5, 1.0 / math.sqrt(max(1, n_pool)))  # noise-free threshold: most events
        scales = pool_scales(cal, sizes, k, int(1.0 / first_guess), j)
        omega = auto_threshold(n_pool, scales)
        omega_m = omega if cal.mass_threshold is None else cal.mass_threshold
        if not cal.pools or _pool_count(omega_m) <= j:
            break
        j += 1
    return omega, omega_m, sizes, scales


def pool_statistics(pools: bool, keys, counts, y, sizes: list[int], scales: list, omega_m: float, rng):
    """Step 1 of Algorithm 2 and the pools' answers.

    Splits the sample into the pools of :func:`plan_pools` (``pools``) or uses it whole,
    keeps the level sets whose mass in pool 0 is at least ``omega_m`` (the high-mass bins
    :math:`H`), and returns their keys and count vectors with, for each group size
    :math:`2^j`, the per-bin masses and (mass, class sums) of its pools, and the Laplace scales
    (repeated for every size when there are no pools).
    """
    n = keys.size
    k = counts.shape[1]
    if pools:
        order = rng.permutation(n)
        edges = np.cumsum([0] + sizes)
        pool_index = [order[edges[i] : edges[i + 1]] for i in range(len(sizes))]
    else:
        pool_index = [np.arange(n)]
    # step 1: level-set masses from pool 0, high-mass bins H
    b_keys, b_first, b_counts = np.unique(keys[pool_index[0]], return_index=True, return_counts=True)
    high = b_counts / pool_index[0].size >= omega_m
    h_keys = b_keys[high]
    h_levels = counts[pool_index[0][b_first[high]]]
    n_bins = h_keys.size
    hidx = np.searchsorted(h_keys, keys)
    in_h = np.zeros(n, dtype=bool)
    ok = hidx < n_bins
    in_h[ok] = h_keys[hidx[ok]] == keys[ok]

    def stats(index):
        """Per-bin mass and (mass, class sums) of one pool (fractions of the pool)."""
        sel = index[in_h[index]]
        mass = np.bincount(hidx[sel], minlength=n_bins) / index.size
        labels = np.zeros((n_bins, k + 1))
        labels[:, 0] = mass
        cells = np.bincount(hidx[sel] * k + y[sel], minlength=n_bins * k)
        labels[:, 1:] = cells.reshape(n_bins, k) / index.size
        return mass, labels

    n_sizes = _pool_count(omega_m)
    if pools:
        n_sizes = (len(sizes) - 1) // 2
        mass_stats = [stats(pool_index[1 + 2 * j])[0] for j in range(n_sizes)]
        label_stats = [stats(pool_index[2 + 2 * j])[1] for j in range(n_sizes)]
    else:
        mass, labels = stats(pool_index[0])
        mass_stats, label_stats = [mass] * n_sizes, [labels] * n_sizes
        scales = (scales * n_sizes)[:n_sizes] if len(scales) < n_sizes else scales
    return h_keys, h_levels, mass_stats, label_stats, scales


def exact_statistics(keys, counts, h, w, omega_m: float):
    """Step 1 with exact estimates (``fit_exact``): the heavy level sets of a finite law and their exact sums.

    ``keys`` and ``counts`` are the level sets of the atoms, ``h`` their exact conditional label
    means and ``w`` their probabilities; returns the keys and count vectors of the level sets of
    mass at least ``omega_m`` and, per such level set, (mass, class sums) ``(|H|, k + 1)``.
    """
    k = counts.shape[1]
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    mass = np.bincount(inverse, weights=w)
    high = mass >= omega_m
    sel = high[inverse]
    hidx = (np.cumsum(high) - 1)[inverse[sel]]
    n_bins = int(high.sum())
    labels = np.zeros((n_bins, k + 1))
    labels[:, 0] = np.bincount(hidx, weights=w[sel], minlength=n_bins)
    for i in range(k):
        labels[:, 1 + i] = np.bincount(hidx, weights=w[sel] * h[sel, i], minlength=n_bins)
    return uniq[high], counts[first[high]], labels


class GroupRun(NamedTuple):
    """What one run of the loop leaves: the fitted attributes of :class:`~companion.multiclass_lp.LpCalibrator` (without the ``_``)."""

    #: Level-set keys of the heavy level sets H, sorted (``keys_``).
    keys: np.ndarray
    #: Their count vectors (``bin_levels_``).
    bin_levels: np.ndarray
    #: Final prediction of each level set of H (``bin_predictions_``).
    bin_predictions: np.ndarray
    #: The groups, as index arrays into H (``groups_``).
    groups: list
    #: Keys of every level set a group prediction occupied during the run (``visited_``).
    visited: np.ndarray
    #: Per-step arrays of the run: group size, class, estimated error, merges, moved mass, number of groups (``trajectory_``).
    trajectory: dict
    #: Steps taken (``n_steps_``).
    n_steps: int
    #: Merges made (``n_merges_``).
    n_merges: int
    #: Whether the loop ended below the threshold (``converged_``).
    converged: bool
    #: Every answer of the estimation structure, when recorded (``queries_``).
    queries: list


class _Structures:
    """The prediction structure P and the estimation structure Q of Algorithm 2 (``alg-multiclass-lp``, step 2).

    ``groups[g] = [bins, u_G, Q-groups]``: a group of P (indices into H), its prediction and the
    groups of Q it is the disjoint union of (distinct power-of-2 sizes, Lemma 9); ``est[g]`` its
    estimates (step 3); ``level[g]`` the key of :math:`r(u_G)` and ``owner`` the inverse map.
    """

    def __init__(self, cal, h_keys, h_levels, mass_stats, label_stats, rng):
        self.m, self.k, self.n_bins = cal.m, h_levels.shape[1], h_keys.size
        self.scales, self.rng = cal.noise_scales_, rng
        self.mass_stats, self.label_stats = mass_stats, label_stats
        self.queries = [] if cal.record_queries else None
        u = _canonical_from_counts(h_levels, cal.m)  # step 2: one group {v} per heavy v, u = c(v)
        self.groups = {g: [np.array([g]), u[g].copy(), [self.query(np.array([g]))]] for g in range(h_keys.size)}
        self.level = {g: int(key) for g, key in enumerate(h_keys.tolist())}
        self.owner = {key: g for g, key in self.level.items()}
        self.visited = set(self.owner)
        self.est = {g: self.estimates(g) for g in self.groups}

    def query(self, bins: np.ndarray) -> _QGroup:
        """A group of Q of size 2^j: its mass and (mass, class sums) from the pools of size 2^j, plus Laplace noise."""
        j = bins.size.bit_length() - 1
        mass, labels = float(self.mass_stats[j][bins].sum()), self.label_stats[j][bins].sum(axis=0)
        b_m, b_y = self.scales[j]
        if b_m > 0:
            mass += float(self.rng.laplace(0.0, b_m))
        if b_y > 0:
            labels = labels + self.rng.laplace(0.0, b_y, size=self.k + 1)
        if self.queries is not None:
            self.queries.append((bins, mass, labels))
        return _QGroup(bins, mass, labels)

    def estimates(self, g: int) -> tuple[float, np.ndarray]:
        """Step 3: qhat(G) and yhat(G) = Pi(shat(G) / qtilde(G)), sums over the Q-groups of G."""
        qs = self.groups[g][2]
        mass, labels = sum(q.mass for q in qs), np.sum([q.labels for q in qs], axis=0)
        if labels[0] <= 0.0:  # no label estimate (only with noise): the group is not patched
            return mass, self.groups[g][1].copy()
        return mass, _project_rows((labels[1:] / labels[0])[None, :])[0]

    def errors(self) -> tuple[list, np.ndarray]:
        """The groups and the estimated errors err(G, i) = qhat(G) |u_G,i - yhat_i(G)| (step 3)."""
        gids = list(self.groups)
        q = np.array([self.est[g][0] for g in gids])
        yhat = np.array([self.est[g][1] for g in gids])
        u = np.array([self.groups[g][1] for g in gids])
        return gids, q[:, None] * np.abs(u - yhat)

    def patch(self, g: int, i: int) -> int:
        """Stage 1: w = u_G with w_i = yhat_i(G), u_G = Pi(w); return the key of the new level set r(u_G)."""
        w = self.groups[g][1].copy()
        w[i] = self.est[g][1][i]
        self.groups[g][1] = _project_rows(w[None, :])[0]
        del self.owner[self.level[g]]
        key = int(_keys_from_counts(_counts(self.groups[g][1][None, :], self.m), self.m)[0])
        self.visited.add(key)
        return key

    def merge(self, g: int, other: int) -> float:
        """Stage 2: G and G' become one group with the prediction of the heavier (G on a tie); return the lighter's mass."""
        (q_g, _), (q_o, _) = self.est[g], self.est[other]
        keep = self.groups[g][1] if q_g >= q_o else self.groups[other][1]
        bins = np.concatenate([self.groups[g][0], self.groups[other][0]])
        parts = self._add_binary(self.groups[g][2] + self.groups[other][2], bins.size)
        del self.groups[other], self.est[other], self.owner[self.level[other]], self.level[other]
        self.groups[g] = [bins, keep.copy(), parts]
        self.est[g] = self.estimates(g)
        return min(q_g, q_o)

    def _add_binary(self, parts: list, total: int) -> list:
        """Pair Q-groups of equal size into new ones, as in binary addition, until all sizes differ (Lemma 9)."""
        by_size: dict[int, list] = {}
        for qg in parts:
            by_size.setdefault(qg.bins.size, []).append(qg)
        size = 1
        while size <= total:
            same = by_size.get(size, [])
            while len(same) >= 2:
                a, b = same.pop(), same.pop()
                by_size.setdefault(2 * size, []).append(self.query(np.concatenate([a.bins, b.bins])))
            size *= 2
        return [qg for lst in by_size.values() for qg in lst]

    def bin_state(self) -> np.ndarray:
        """The prediction of every heavy level set, ``(|H|, k)``."""
        out = np.empty((self.n_bins, self.k))
        for bins, u, _ in self.groups.values():
            out[bins] = u
        return out


def run_groups(cal, h_keys, h_levels, mass_stats, label_stats, rng) -> GroupRun:
    """Steps 2-4 of Algorithm 2 (``alg-multiclass-lp``) on the heavy level sets H.

    ``cal`` is the :class:`~companion.multiclass_lp.LpCalibrator` whose settings (``m``,
    ``threshold_``, ``noise_scales_``, ``max_iter``, ``record_states``, ``record_queries``)
    the loop follows; ``mass_stats[j]`` and ``label_stats[j]`` are the per-bin sums of the pools
    of group size :math:`2^j`.
    """
    s = _Structures(cal, h_keys, h_levels, mass_stats, label_stats, rng)  # step 2 (and the first estimates, step 3)
    k = h_levels.shape[1]
    traj = {name: [] for name in ("group_size", "cls", "est_error", "merged", "moved_mass", "n_groups")}
    states = {"stage1": [], "stage2": []}
    n_steps, n_merges, converged = 0, 0, True
    while s.groups:
        gids, err = s.errors()  # step 3
        row, i = divmod(int(np.argmax(err)), k)  # step 4: the largest error (first group, first class on ties)
        if err[row, i] <= cal.threshold_:
            break
        if n_steps >= cal.max_iter:
            converged = False
            break
        g = gids[row]
        key = s.patch(g, i)  # stage 1
        if cal.record_states:
            states["stage1"].append(s.bin_state())
        other = s.owner.get(key)
        moved_mass = 0.0 if other is None else s.merge(g, other)  # stage 2
        n_merges += other is not None
        s.level[g], s.owner[key] = key, g
        if cal.record_states:
            states["stage2"].append(s.bin_state())
        for name, value in zip(traj, (s.groups[g][0].size, i, float(err[row, i]), other is not None, moved_mass, len(s.groups))):
            traj[name].append(value)
        n_steps += 1
    trajectory = {name: np.array(v) for name, v in traj.items()}
    if cal.record_states:
        for name, lst in states.items():
            trajectory[name] = np.array(lst).reshape(len(lst), h_keys.size, k)  # h_keys.size may be 0
    return GroupRun(keys=h_keys, bin_levels=h_levels, bin_predictions=s.bin_state(),
                    groups=[np.sort(bins) for bins, _, _ in s.groups.values()],
                    visited=np.array(sorted(s.visited), dtype=h_keys.dtype), trajectory=trajectory,
                    n_steps=n_steps, n_merges=n_merges, converged=converged, queries=s.queries or [])
