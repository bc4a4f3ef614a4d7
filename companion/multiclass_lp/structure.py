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

import fractions
import math
from typing import NamedTuple

import numpy as np

from .._checks import MAX_INT
from .bounds import lemma8_accuracy, lp_threshold, theorem6_budget
from .level_sets import _canonical_from_counts, _counts, _keys_from_counts, _project_rows

__all__ = ["AUTO_THRESHOLD_SCALE"]


# ---------------------------------------------------------------------------
# The calibration algorithm (paper's Algorithm 2, alg-multiclass-lp)
# ---------------------------------------------------------------------------


class _QGroup(NamedTuple):
    bins: np.ndarray  # H-indices of the bins in the group (size a power of 2)
    mass: float  # estimate of q(A) = P[r(f(X)) in A], from the mass pool of its size
    labels: np.ndarray  # estimate of (q(A), E[Y 1{r(f(X)) in A}]) (k + 1 entries), from the label pool of its size


def _pool_count(omega_m: float) -> int:
    """Number J of group sizes 1, 2, 4, ... up to floor(1/omega_m) (at most that many high-mass bins).

    J = floor(log2(1/omega_m)) + 1, read exactly from the binary exponent of
    ``omega_m`` in (0, 1), so a subnormal threshold (where 1/omega_m overflows) gives its J too.
    """
    mantissa, exponent = math.frexp(omega_m)  # omega_m = mantissa * 2**exponent, mantissa in [1/2, 1)
    return -exponent + (2 if mantissa == 0.5 else 1)


def _event_count(omega_m: float) -> int:
    """Lemma 8's event count floor(1/omega_m), where an exact reciprocal within rounding (relative 2**-52) of an
    integer counts as that integer: a decimal threshold is read by its intent (0.1 gives 10, 1e-5 gives 100000,
    though ``1.0 / 1e-5`` is 99999.99999999999), a power of two exactly (5e-324 gives 2**1074).  From 2**52 up
    every reciprocal is within rounding of an integer, the nearest one is returned (1e-17 gives
    99999999999999993, the float's own reciprocal rounded): a float fixes so large a count only to within its
    rounding, and counts above 2**53 are refused where the union bound uses them."""
    reciprocal = 1 / fractions.Fraction(omega_m)
    nearest = round(reciprocal)
    return nearest if abs(reciprocal - nearest) <= reciprocal * fractions.Fraction(1, 2**52) else math.floor(reciprocal)


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
        omega = lp_threshold(cal.epsilon, cal.p) if cal.epsilon is not None else cal.threshold
        omega_m = omega if cal.mass_threshold is None else cal.mass_threshold
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
        if cal.noise is True and n_events > MAX_INT:
            name = "mass_threshold" if cal.mass_threshold is not None else ("epsilon" if cal.epsilon is not None else "threshold")
            raise ValueError(
                f"{name} gives omega_m = {omega_m!r}, too small for the noisy algorithm: Lemma 8 counts up to "
                f"floor(1/omega_m) >= 2**{n_events.bit_length() - 1} high-mass bins, at most 2**53 (omega_m >= about 1.1e-16)"
            )
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


def run_groups(cal, h_keys, h_levels, mass_stats, label_stats, rng) -> GroupRun:
    """The loop of Algorithm 2 on the high-mass bins (prediction structure P, estimation structure Q).

    ``cal`` is the :class:`~companion.multiclass_lp.LpCalibrator` whose settings (``m``,
    ``threshold_``, ``noise_scales_``, ``max_iter``, ``record_states``, ``record_queries``)
    the loop follows; ``mass_stats[j]`` and ``label_stats[j]`` are the per-bin sums of the pool
    of group size :math:`2^j`.
    """
    m, omega = cal.m, cal.threshold_
    n_bins = h_keys.size
    k = h_levels.shape[1]
    traj = {name: [] for name in ("group_size", "cls", "est_error", "merged", "moved_mass", "n_groups")}
    states1, states2 = [], []
    n_steps, n_merges, converged = 0, 0, True
    scales = cal.noise_scales_
    queries = []

    def estimate(bins: np.ndarray) -> _QGroup:
        j = bins.size.bit_length() - 1
        mass = float(mass_stats[j][bins].sum())
        labels = label_stats[j][bins].sum(axis=0)
        b_m, b_y = scales[j]
        if b_m > 0:
            mass += float(rng.laplace(0.0, b_m))
        if b_y > 0:
            labels = labels + rng.laplace(0.0, b_y, size=k + 1)
        if cal.record_queries:
            queries.append((bins, mass, labels))
        return _QGroup(bins, mass, labels)

    def level_key(u: np.ndarray) -> int:
        return int(_keys_from_counts(_counts(u[None, :], m), m)[0])

    # prediction structure P: gid -> [bins, prediction, estimation groups]; estimates per gid
    preds = _canonical_from_counts(h_levels, m)
    groups = {g: [np.array([g]), preds[g].copy(), [estimate(np.array([g]))]] for g in range(n_bins)}
    group_key = {g: int(key) for g, key in enumerate(h_keys.tolist())}
    owner = {key: g for g, key in group_key.items()}
    visited = set(owner)

    def totals(g: int) -> tuple[float, np.ndarray]:
        """Estimated mass and label distribution of a group (sums over its estimation groups)."""
        qs = groups[g][2]
        mass = sum(q.mass for q in qs)
        labels = np.sum([q.labels for q in qs], axis=0)
        if labels[0] <= 0.0:  # no usable label information: the group cannot be corrected
            return mass, groups[g][1].copy()
        return mass, _project_rows((labels[1:] / labels[0])[None, :])[0]

    est = {g: totals(g) for g in groups}

    def bin_state() -> np.ndarray:
        out = np.empty((n_bins, k))
        for bins, pred, _ in groups.values():
            out[bins] = pred
        return out

    while n_bins:
        gids = list(groups)
        q = np.array([est[g][0] for g in gids])
        yhat = np.array([est[g][1] for g in gids])
        u = np.array([groups[g][1] for g in gids])
        err = q[:, None] * np.abs(u - yhat)
        row, cls = divmod(int(np.argmax(err)), k)
        if err[row, cls] <= omega:
            break
        if n_steps >= cal.max_iter:
            converged = False
            break
        g = gids[row]
        # stage 1: patch coordinate cls with the estimated label frequency, then project
        w = groups[g][1].copy()
        w[cls] = yhat[row, cls]
        groups[g][1] = _project_rows(w[None, :])[0]
        del owner[group_key[g]]
        key = level_key(groups[g][1])
        visited.add(key)
        if cal.record_states:
            states1.append(bin_state())
        merged, moved_mass = False, 0.0
        other = owner.get(key)
        if other is not None:
            # stage 2: merge g and other; keep the prediction of the larger estimated mass
            merged = True
            q_g, q_o = est[g][0], est[other][0]
            keep = groups[g][1] if q_g >= q_o else groups[other][1]
            moved_mass = min(q_g, q_o)
            bins = np.concatenate([groups[g][0], groups[other][0]])
            by_size: dict[int, list] = {}
            for qg in groups[g][2] + groups[other][2]:
                by_size.setdefault(qg.bins.size, []).append(qg)
            size = 1
            while size <= bins.size:  # merge estimation groups of equal size (binary addition)
                same = by_size.get(size, [])
                while len(same) >= 2:
                    a, b = same.pop(), same.pop()
                    by_size.setdefault(2 * size, []).append(estimate(np.concatenate([a.bins, b.bins])))
                size *= 2
            del groups[other], est[other], owner[key], group_key[other]
            groups[g] = [bins, keep.copy(), [qg for lst in by_size.values() for qg in lst]]
            est[g] = totals(g)
            n_merges += 1
        group_key[g] = key
        owner[key] = g
        if cal.record_states:
            states2.append(bin_state())
        traj["group_size"].append(groups[g][0].size)
        traj["cls"].append(cls)
        traj["est_error"].append(float(err[row, cls]))
        traj["merged"].append(merged)
        traj["moved_mass"].append(moved_mass)
        traj["n_groups"].append(len(groups))
        n_steps += 1

    trajectory = {key: np.array(v) for key, v in traj.items()}
    if cal.record_states:
        trajectory["stage1"] = np.array(states1).reshape(len(states1), n_bins, k)  # n_bins may be 0
        trajectory["stage2"] = np.array(states2).reshape(len(states2), n_bins, k)
    return GroupRun(
        keys=h_keys,
        bin_levels=h_levels,
        bin_predictions=bin_state(),
        groups=[np.sort(bins) for bins, _, _ in groups.values()],
        visited=np.array(sorted(visited), dtype=h_keys.dtype),
        trajectory=trajectory,
        n_steps=n_steps,
        n_merges=n_merges,
        converged=converged,
        queries=queries,
    )
