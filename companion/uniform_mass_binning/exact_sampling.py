"""Uniform-mass fits drawn exactly without drawing the sample (paper 000, Definition 6; book ``prop-umb-exact-sampling``).

The fit of Definition 6 depends on a sample of size ``n`` only through the
order statistics at the ranks ``floor(n b / B)`` and the class-1 counts
between them.  Book ``prop-umb-exact-sampling`` gives their joint law:
Dirichlet spacings of uniform order statistics mapped through the quantile
function of the forecast, Bernoulli labels at the order statistics and
binomial class-1 counts in the gaps.  :func:`umb_exact_fits` draws the fits
of every bin count of a grid at once from that law, at a cost that does not
grow with ``n``; :func:`umb_risk_grid_exact` is the exact counterpart of
:func:`~companion.uniform_mass_binning.umb_risk_grid`, with the same result
layout; :func:`umb_logit_quantile` is the tail-accurate quantile they use;
:func:`umb_expected_bin_ones` gives the mean class-1 count of a bin by
quadrature, an independent check.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_ndtr, ndtr, ndtri
from scipy.stats import beta as beta_law
from scipy.stats import binom

from .._checks import as_probabilities, as_rng, as_sizes, check_bool, check_int
from .._memo import memoised
from .._numerics import _normal_mass
from ..calibration_sharpness.binning import _uniform_mass_ranks
from ..scenarios import GaussianMixture
from .experiments import FIGURE1_N_BINS, FIGURE1_N_VALUES, RISK_TERMS, _check_cells, _closed_form_risks, _grid_arguments, _mixture
from .grid import UniformMassGrid


__all__ = ["umb_logit_quantile", "umb_exact_fits", "umb_expected_bin_ones", "umb_risk_grid_exact"]


#: Largest sample size of the exact sampler: ranks, binomial counts and spacings stay exact in int64/float64.
_MAX_EXACT_N = 10**12

#: Largest ``n`` of :func:`umb_expected_bin_ones`: its 200 x 20-node rule resolves the binomial transitions up to here.
_MAX_QUADRATURE_N = 10**5

#: Most bins of :func:`umb_expected_bin_ones`: its arrays hold 4000 quadrature nodes per bin (32 MB each at this limit).
_MAX_QUADRATURE_BINS = 1000
#: Largest class separation the exact sampler takes: the spacing of float64 at 1e12 is 1.2e-4, and a
#: point's offset from its class mean (the quantity the class masses depend on) must stay resolved.
_MAX_EXACT_MU = 1e12

#: Iteration cap of the safeguarded Newton solve (bisection alone needs about 60 halvings of the 2 mu bracket).
_MAX_NEWTON = 100

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


# ---------------------------------------------------------------------------
# The quantile of the forecast, from either tail
# ---------------------------------------------------------------------------


def _exact_scenario(prior, mu) -> GaussianMixture:
    """The scenario of the exact sampler, with ``mu`` small enough for float64 to resolve offsets from it."""
    scenario = GaussianMixture(prior, mu)
    if scenario.mu > _MAX_EXACT_MU:
        raise ValueError(f"mu must be at most {_MAX_EXACT_MU:.0e} for the exact sampler: beyond it float64 cannot "
                         f"resolve a point's offset from its class mean; got {scenario.mu:g}")
    return scenario


def _newton(u: np.ndarray, x: np.ndarray, prior: float, mu: float) -> np.ndarray:
    """Solve ``log F(x) = log u`` for ``F = (1-prior) Phi(x + mu) + prior Phi(x - mu)``, Newton from ``x``.

    The bracket ``ndtri(u) -+ mu`` holds the root because ``Phi(x - mu) <= F(x) <= Phi(x + mu)``;
    a step that leaves it is replaced by bisection.  Stops after a Newton step
    below ``1e-8 (1 + |x -+ mu|)`` (the offset from the nearer class mean) or four float spacings of
    ``x``: by quadratic convergence its result is accurate to rounding.
    """
    log_u, centre = np.log(u), ndtri(u)
    lo, hi = centre - mu, centre + mu
    x = np.clip(x, lo, hi)
    log_w0, log_w1 = np.log1p(-prior), np.log(prior)
    active = np.arange(u.size)
    for _ in range(_MAX_NEWTON):
        xa, la, ha = x[active], lo[active], hi[active]
        log_cdf = np.logaddexp(log_w0 + log_ndtr(xa + mu), log_w1 + log_ndtr(xa - mu))
        log_pdf = np.logaddexp(log_w0 - 0.5 * (xa + mu) ** 2, log_w1 - 0.5 * (xa - mu) ** 2) - _LOG_SQRT_2PI
        gap = log_cdf - log_u[active]
        la, ha = np.where(gap < 0, xa, la), np.where(gap < 0, ha, xa)
        with np.errstate(over="ignore", invalid="ignore"):  # a step too long to represent is not finite: bisect
            new = xa - gap * np.exp(log_cdf - log_pdf)
        inside = (new >= la) & (new <= ha)
        # the scale of a step is the offset from the nearer class mean, not |x| (x is near -+mu when mu is large)
        done = inside & (np.abs(new - xa) <= np.maximum(1e-8 * (1.0 + np.minimum(np.abs(xa - mu), np.abs(xa + mu))),
                                                        4.0 * np.spacing(np.abs(xa))))
        new = np.where(inside, new, 0.5 * (la + ha))
        x[active], lo[active], hi[active] = new, la, ha
        active = active[~done]
        if active.size == 0:
            break
    return x


def _lower_quantile(u: np.ndarray, prior: float, mu: float) -> np.ndarray:
    """``x`` with ``(1-prior) Phi(x + mu) + prior Phi(x - mu) = u``, for ``u`` in (0, 1) of any size.

    The start is interpolated, in ``ndtri(u)``, from the roots at 1025 levels
    (themselves started from the class that dominates the lower tail), so
    :func:`_newton` mostly needs two steps.
    """
    w = ndtri(u)
    w_grid = np.linspace(min(w.min(initial=0.0), -1.0), max(w.max(initial=0.0), 1.0), 1025)
    levels = ndtr(w_grid)
    x_grid = _newton(levels, ndtri(np.minimum(levels / (1.0 - prior), 0.5)) - mu, prior, mu)
    return _newton(u, np.interp(w, w_grid, x_grid), prior, mu)


def _quantile_two_sided(u: np.ndarray, v: np.ndarray, prior: float, mu: float) -> np.ndarray:
    """Logit quantile at level ``u`` given also ``v = 1 - u`` (each accurate on its own): ``u`` below 1/2, ``v`` above."""
    x = np.empty(u.shape)
    low = u < 0.5
    x[low] = _lower_quantile(u[low], prior, mu)
    # P[X > x] = v is P[-X < -x] = v, and -X is the mixture with prior 1 - prior
    x[~low] = -_lower_quantile(v[~low], 1.0 - prior, mu)
    return x


def umb_logit_quantile(u, prior: float = 0.5, mu: float = 2.0, upper: bool = False) -> np.ndarray:
    r"""Quantile of ``X = logit Z`` under :class:`~companion.scenarios.GaussianMixture`, from the lower or upper tail.

    Returns ``x`` with :math:`P[X \le x] = u` or, with ``upper``,
    :math:`P[X > x] = u`, for ``u`` in (0, 1) of any shape; so the level
    ``1 - 1e-16`` is reached as ``upper=True`` at ``u = 1e-16``.  A
    vectorized Newton solve on the logarithm of the tail probability,
    safeguarded by bisection (the sampler of book ``prop-umb-exact-sampling``).
    """
    u = as_probabilities(u, "u", ndim=np.ndim(u), open_interval=True)
    upper = check_bool(upper, "upper")
    scenario = _exact_scenario(prior, mu)
    flat = u.ravel()
    if upper:
        x = -_lower_quantile(flat, 1.0 - scenario.prior, scenario.mu)
    else:
        x = _lower_quantile(flat, scenario.prior, scenario.mu)
    return float(x[0]) if u.ndim == 0 else x.reshape(u.shape)


# ---------------------------------------------------------------------------
# The sampler of book prop-umb-exact-sampling
# ---------------------------------------------------------------------------


def _draw(scenario: GaussianMixture, n: int, ranks: np.ndarray, n_reps: int, rng: np.random.Generator):
    """Logit order statistics at the distinct sorted ``ranks`` and the class-1 counts up to them, ``n_reps`` samples.

    Returns ``x`` of shape ``(n_reps, m)`` and ``ones_below`` of shape
    ``(n_reps, m + 1)``: the class-1 count among the points of rank at most
    ``ranks[j]``, and in the last column among all ``n`` points.
    """
    steps = np.diff(ranks, prepend=0, append=n + 1)  # Dirichlet parameters of the m + 1 spacings
    spacings = rng.standard_gamma(steps.astype(float), size=(n_reps, steps.size))
    below = np.cumsum(spacings[:, :-1], axis=1)  # F(X_(r_j)) times the total, from the left
    above = np.cumsum(spacings[:, :0:-1], axis=1)[:, ::-1]  # 1 - F(X_(r_j)) times the total, from the right
    total = below[:, -1:] + spacings[:, -1:]
    x = _quantile_two_sided(below / total, above / total, scenario.prior, scenario.mu)
    labels = rng.random(x.shape) < scenario._posterior_x(x)  # Bernoulli(h*) at the order statistics
    inf = np.full((n_reps, 1), np.inf)
    x_lo, x_hi = np.concatenate((-inf, x), axis=1), np.concatenate((x, inf), axis=1)
    joint1 = scenario.prior * _normal_mass(x_lo - scenario.mu, x_hi - scenario.mu)
    mass = joint1 + (1.0 - scenario.prior) * _normal_mass(x_lo + scenario.mu, x_hi + scenario.mu)
    q = np.clip(np.divide(joint1, mass, out=np.zeros_like(mass), where=mass > 0), 0.0, 1.0)
    gap_ones = rng.binomial(steps - 1, q)  # Binomial(r_{j+1} - r_j - 1, q_j) in each open gap
    gap_ones[:, :-1] += labels
    return x, np.cumsum(gap_ones, axis=1)


def _rank_union(n: int, n_bins_values: np.ndarray):
    """The distinct ranks of Definition 6 over all bin counts, and for each bin count its edges' positions.

    Positions index ``[rank 0, ranks..., rank n]``: 0 and ``m + 1`` are the
    outer edges ``u_0 = 0`` and ``u_B = 1``.
    """
    per_b = [_uniform_mass_ranks(n, int(b)) for b in n_bins_values]
    ranks, inverse = np.unique(np.concatenate(per_b), return_inverse=True)
    inner = np.split(inverse + 1, np.cumsum([r.size for r in per_b])[:-1])
    return ranks, [np.concatenate(([0], pos, [ranks.size + 1])) for pos in inner]


def _check_n(n_values: np.ndarray, name: str) -> None:
    if n_values.max() > _MAX_EXACT_N:
        raise ValueError(f"{name} must be at most {_MAX_EXACT_N} (exact integer ranks in float64), got {int(n_values.max())}")


def _check_bins(n_reps: int, n_bins: np.ndarray) -> None:
    """At most ``_MAX_CELLS`` bins are drawn at once (``n_reps`` times the sum of the bin counts)."""
    _check_cells(n_reps * int(n_bins.sum()), n_reps)


def umb_exact_fits(n: int, n_bins_values, n_reps: int = 1, prior: float = 0.5, mu: float = 2.0, rng=0) -> list:
    r"""Uniform-mass fits (Definition 6, eq. (9)) of ``n_reps`` samples of size ``n``, drawn without the samples.

    For each repetition and every bin count of ``n_bins_values`` (each at
    most ``n/2``) at once, from the joint law of book
    ``prop-umb-exact-sampling`` under
    :class:`~companion.scenarios.GaussianMixture`; the cost grows with the
    number of distinct ranks, not with ``n``.

    Returns
    -------
    list of :class:`~companion.uniform_mass_binning.UniformMassGrid`, one per
    repetition, with the fields that
    :func:`~companion.uniform_mass_binning.uniform_mass_grid` would return for
    a sample of that law.  The order statistics are drawn on the logit scale
    (:func:`umb_logit_quantile`) and the edges are their ``expit``: above
    ``logit z = 36.7`` that rounds to exactly 1 in float64, so at a large
    ``mu`` (say 40) neighbouring upper edges can tie at 1 (non-decreasing, not
    increasing); the lower edges keep their digits (``expit(-40)`` is 4.2e-18).  The counts and values are drawn on the logit scale and
    stay exact up to ``mu = 1e12``; a larger ``mu`` is refused.
    """
    n = check_int(n, "n", minimum=2, maximum=_MAX_EXACT_N)
    n_bins_values = np.array(as_sizes(n_bins_values, "n_bins_values", scalar=True), dtype=np.int64)
    n_reps = check_int(n_reps, "n_reps", minimum=1)
    if 2 * n_bins_values.max() > n:
        raise ValueError(f"n_bins_values entries must be at most n / 2 = {n // 2} (Definition 6), got {int(n_bins_values.max())}")
    _check_bins(n_reps, n_bins_values)
    rng = as_rng(rng)
    scenario = _exact_scenario(prior, mu)
    ranks, positions = _rank_union(n, n_bins_values)
    x, ones_below = _draw(scenario, n, ranks, n_reps, rng)
    inf = np.full((n_reps, 1), np.inf)
    edges_all = expit(np.concatenate((-inf, x, inf), axis=1))
    ones_all = np.concatenate((np.zeros((n_reps, 1), dtype=np.int64), ones_below), axis=1)
    rank_all = np.concatenate(([0], ranks, [n]))
    counts = [np.diff(rank_all[pos]) for pos in positions]
    ones = [np.diff(ones_all[:, pos], axis=1) for pos in positions]
    return [
        UniformMassGrid(
            n_bins=n_bins_values.copy(),
            edges=[edges_all[r, pos] for pos in positions],
            values=[o[r] / c for o, c in zip(ones, counts)],
            counts=[c.copy() for c in counts],
        )
        for r in range(n_reps)
    ]


def umb_expected_bin_ones(n: int, n_bins: int, prior: float = 0.5, mu: float = 2.0) -> np.ndarray:
    r"""Mean class-1 count of each uniform-mass bin (Definition 6) for samples of size ``n``, by quadrature.

    A point at ``x`` falls in the bin of ranks ``a + 1, ..., b`` exactly when
    between ``a`` and ``b - 1`` of the other ``n - 1`` points lie below it, so

    .. math:: \mathbb E[\text{class-1 count}] = n \int \pi\,\varphi(x - \mu)\,
              P\bigl[a \le \mathrm{Bin}(n - 1, F_X(x)) \le b - 1\bigr]\,dx,

    computed by composite Gauss-Legendre quadrature in ``x`` over the range
    where the order statistics of ranks ``a + 1`` and ``b`` lie (outside it
    the integrand is below ``1e-15`` of its scale).  Independent of the
    sampler: a check of book ``prop-umb-exact-sampling``.  Returns ``n_bins`` means.
    The fixed rule resolves the binomial transitions up to ``n = 10**5``
    (:data:`_MAX_QUADRATURE_N`; the means then sum to ``n * prior`` to 1e-9); beyond, they
    are narrower than its panels and ``n`` is refused; ``n_bins`` is at most 1000
    (:data:`_MAX_QUADRATURE_BINS`, checked before anything is allocated) and ``mu`` in (0, 40].
    """
    n = check_int(n, "n", minimum=2, maximum=_MAX_QUADRATURE_N)
    n_bins = check_int(n_bins, "n_bins", maximum=_MAX_QUADRATURE_BINS)
    if 2 * n_bins > n:
        raise ValueError(f"n_bins must be at most n / 2 = {n // 2} (Definition 6), got {n_bins}")
    scenario = _mixture(prior, mu)
    pi, mu = scenario.prior, scenario.mu
    ranks = np.concatenate(([0], _uniform_mass_ranks(n, n_bins), [n]))
    a, b = ranks[:-1], ranks[1:]
    t_lo = beta_law.ppf(1e-15, a + 1, n - a)  # the order statistic of rank a + 1 lies above, but for 1e-15
    s_hi = beta_law.ppf(1e-15, n - b + 1, b)  # 1 - F at the one of rank b lies above, but for 1e-15
    with np.errstate(over="ignore"):  # a Newton step from far out; the safeguard brackets it
        x_lo = np.maximum(_lower_quantile(t_lo, pi, mu), mu - 40.0)
        x_hi = np.minimum(-_lower_quantile(s_hi, 1.0 - pi, mu), mu + 40.0)
    t, w = np.polynomial.legendre.leggauss(20)
    panels = np.linspace(0.0, 1.0, 201)
    left = x_lo[:, None] + (x_hi - x_lo)[:, None] * panels[None, :-1]
    half = 0.5 * (x_hi - x_lo)[:, None, None] / (panels.size - 1)
    nodes = left[:, :, None] + half * (1.0 + t[None, None, :])
    cdf = (1.0 - pi) * ndtr(nodes + mu) + pi * ndtr(nodes - mu)
    sf = (1.0 - pi) * ndtr(-nodes - mu) + pi * ndtr(mu - nodes)
    lo_k, hi_k = a[:, None, None], b[:, None, None]
    inside = np.where(cdf < 0.5,
                      binom.cdf(hi_k - 1, n - 1, cdf) - binom.cdf(lo_k - 1, n - 1, cdf),
                      binom.sf(lo_k - 1, n - 1, 1.0 - sf) - binom.sf(hi_k - 1, n - 1, 1.0 - sf))
    density = pi * np.exp(-0.5 * (nodes - mu) ** 2) / np.sqrt(2.0 * np.pi)
    return n * np.sum(half * w[None, None, :] * density * inside, axis=(1, 2))


@memoised
def umb_risk_grid_exact(
    n_values=FIGURE1_N_VALUES,
    n_bins_values=FIGURE1_N_BINS,
    n_reps: int = 10,
    prior: float = 0.5,
    mu: float = 2.0,
    rng=0,
) -> dict:
    r"""Population risks of uniform-mass binning over (n, B, repetition), fits drawn by :func:`umb_exact_fits`.

    The exact counterpart of
    :func:`~companion.uniform_mass_binning.umb_risk_grid` (same arguments,
    defaults the Figure 1-2 grid, same result layout, so
    :func:`~companion.uniform_mass_binning.umb_figure_summary` accepts it):
    the fits of Definition 6 for every ``B <= n/2`` come from the law of book
    ``prop-umb-exact-sampling``, so ``n`` may reach ``10**12``.  All risks
    are closed forms in normal distribution functions, the pooled sharpness
    risk as :math:`\mathbb E[h^*(Z)^2] - \sum_G P[Z \in G]\,\theta_G^2` over
    the groups ``G`` of tied bins (the ``sha_pooled`` of
    :func:`~companion.uniform_mass_binning.umb_binwise_risks`), with
    ``risk = cal + sha``.  Memoised like ``umb_risk_grid``.
    """
    n_values, n_bins_values, n_reps, valid, out = _grid_arguments(
        n_values, n_bins_values, n_reps, lambda v, name: _check_n(v, f"{name} entries"))
    _check_bins(n_reps, n_bins_values)
    rng = as_rng(rng)
    scenario = _exact_scenario(prior, mu)
    for i, n in enumerate(n_values):
        bins = n_bins_values[valid[i]]
        if bins.size == 0:
            continue
        ranks, positions = _rank_union(int(n), bins)
        x, ones_below = _draw(scenario, int(n), ranks, n_reps, rng)
        lo = np.concatenate([pos[:-1] for pos in positions])
        hi = np.concatenate([pos[1:] for pos in positions])
        map_of_bin = np.repeat(np.arange(bins.size), bins)[None, :] + bins.size * np.arange(n_reps)[:, None]
        inf = np.full((n_reps, 1), np.inf)
        x_all = np.concatenate((-inf, x, inf), axis=1)
        ones_all = np.concatenate((np.zeros((n_reps, 1), dtype=np.int64), ones_below), axis=1)
        rank_all = np.concatenate(([0], ranks, [n]))
        values = (ones_all[:, hi] - ones_all[:, lo]) / (rank_all[hi] - rank_all[lo])
        risks = _closed_form_risks(scenario, x_all[:, lo].ravel(), x_all[:, hi].ravel(), values.ravel(),
                                   map_of_bin.ravel(), n_reps * bins.size)
        risks["sha"] = risks["sha_pooled"]
        risks["risk"] = risks["cal"] + risks["sha"]
        for key in RISK_TERMS:
            out[key][i, valid[i]] = risks[key].reshape(n_reps, bins.size).T
    return {"n": n_values, "n_bins": n_bins_values, "valid": valid, "prior": prior, "mu": mu, **out}
