"""Population risks of recalibration maps under the Gaussian mixture of paper 000, by closed forms and quadrature.

:class:`RecalibrationRisks` is mixed into :class:`~companion.scenarios.GaussianMixture`:
it reads the mixture's ``prior`` and ``mu`` and its oracles (``_posterior_x``, ``_x_edges``,
``_x_grid``, ``h_star``, ``forecast_density``) and gives the calibration, sharpness and
recalibration risks of paper 000, Definitions 3-5 (book ``def-calibration-risk``,
``def-sharpness-risk``, ``def-recalibration-risk``) for piecewise-constant and for
strictly increasing maps, with an independent adaptive-quadrature reference.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import expit

from .._checks import _nonempty_rows, as_edges, as_probabilities, as_real_array, check_callable, check_memory, check_open_unit
from .._numerics import _normal_mass

#: Nothing public of its own: :class:`RecalibrationRisks` is mixed into
#: :class:`~companion.scenarios.GaussianMixture`, whose methods these are.
__all__: list[str] = []


class RecalibrationRisks:
    """The risk oracles of a :class:`~companion.scenarios.GaussianMixture` for recalibration maps ``h o f``."""

    def population_risks(self, edges, values) -> dict:
        r"""Population risks of the piecewise-constant map ``h(z) = values[b]`` on bin ``b``.

        Bins follow :func:`companion.calibration_sharpness.bin_indices` (first bin closed).
        Returns a dict of floats: ``cal`` (paper 000 Definition 3, book
        ``def-calibration-risk``), ``sha`` (Definition 4, ``def-sharpness-risk``),
        ``risk`` (Definition 5, ``def-recalibration-risk``) and ``mse``
        :math:`= \mathbb E[(Y - h(Z))^2]`, all under this mixture.  ``risk`` is
        *computed* as ``cal + sha`` (Proposition 1, ``prop-risk-decomposition``),
        so comparing the two checks nothing; :meth:`recalibration_risk_by_quadrature`
        gives an independent value.  See :meth:`population_risks_batch` for the method.
        """
        batch = self._risks_batch([as_edges(edges, "edges")], [as_probabilities(values, "values")], "values")
        return {key: float(val[0]) for key, val in batch.items()}

    def population_risks_batch(self, edges_list, values_list) -> dict:
        r"""Population risks of many piecewise-constant maps at once (arrays, one entry per map).

        Bins with equal values are pooled, since Definitions 3-4 condition
        on the value :math:`h(Z)`.  Per bin, the masses :math:`P[Z \in I, Y=k]`
        are normal CDF differences in :math:`x = \mathrm{logit}(z)`, and
        :math:`\mathbb E[h^*(Z) 1\{Z \in I\}] = P[Z \in I, Y = 1]` exactly.
        This gives ``cal`` and ``mse`` in closed form.  The sharpness risk
        :math:`\sum_I \mathbb E[(h^*(Z) - \theta_I)^2 1\{Z \in I\}]`, with
        :math:`\theta_I = \mathbb E[Y \mid Z \in I]` the population mean of
        :math:`Y` over the pooled bin, is one
        vectorized composite Gauss-Legendre pass whose panels are a fixed grid
        in ``x`` split at every bin edge of every map, so each panel lies in
        one bin (tests: within 1e-9 relative of 30-digit quadrature).
        """
        edges_list = _nonempty_rows(edges_list, "edges_list")
        values_list = _nonempty_rows(values_list, "values_list")
        if len(edges_list) != len(values_list):
            raise ValueError(
                f"edges_list and values_list must have the same length, got {len(edges_list)} and {len(values_list)}"
            )
        edges_list = [as_edges(e, "edges_list entries") for e in edges_list]
        values_list = [as_probabilities(v, "values_list entries") for v in values_list]
        return self._risks_batch(edges_list, values_list, "values_list entries")

    def _risks_batch(self, edges_list: list, values_list: list, values_name: str) -> dict:
        """:meth:`population_risks_batch` on validated edges and values (``values_name`` names the values in errors)."""
        for e, v in zip(edges_list, values_list):
            if v.size != e.size - 1:
                raise ValueError(f"{values_name} must hold one value per bin ({e.size - 1}), got {v.size}")
        n_maps = len(edges_list)
        n_bins = np.array([v.size for v in values_list])
        map_of_bin = np.repeat(np.arange(n_maps), n_bins)
        values = np.concatenate(values_list)
        x_lo = self._x_edges(np.concatenate([e[:-1] for e in edges_list]))
        x_hi = self._x_edges(np.concatenate([e[1:] for e in edges_list]))
        pi, mu = self.prior, self.mu
        mass1 = _normal_mass(x_lo - mu, x_hi - mu)  # P[X in I | Y = 1]
        mass0 = _normal_mass(x_lo + mu, x_hi + mu)
        joint1 = pi * mass1  # P[Z in I, Y = 1] = E[h*(Z) 1{Z in I}]
        mass = joint1 + (1.0 - pi) * mass0
        mse = np.bincount(map_of_bin, joint1 * (1.0 - values) ** 2 + (1.0 - pi) * mass0 * values**2, n_maps)

        # pool bins of the same map that share a value: groups of E[Y | h(Z)]
        order = np.lexsort((values, map_of_bin))
        new_group = np.ones(values.size, dtype=bool)
        new_group[1:] = (np.diff(map_of_bin[order]) != 0) | (np.diff(values[order]) != 0)
        group = np.empty(values.size, dtype=np.int64)
        group[order] = np.cumsum(new_group) - 1
        group_mass = np.bincount(group, mass)
        group_mean = np.divide(np.bincount(group, joint1), group_mass, out=np.zeros_like(group_mass), where=group_mass > 0)
        cal_terms = mass * (values - group_mean[group]) ** 2
        cal = np.bincount(map_of_bin, cal_terms, n_maps)

        nodes, weights, bin_of_node = self._panel_rule(x_lo, x_hi, map_of_bin, n_maps)
        density = (pi * np.exp(-0.5 * (nodes - mu) ** 2) + (1.0 - pi) * np.exp(-0.5 * (nodes + mu) ** 2)) / np.sqrt(2.0 * np.pi)
        spread = (self._posterior_x(nodes) - group_mean[group[bin_of_node]]) ** 2
        sha = np.bincount(map_of_bin[bin_of_node], weights * density * spread, n_maps)
        return {"cal": cal, "sha": sha, "risk": cal + sha, "mse": mse}

    def _panel_rule(self, x_lo, x_hi, map_of_bin, n_maps, order: int = 20):
        """Gauss-Legendre nodes on panels = fixed x-grid split at the bin edges, per bin.

        Returns ``(nodes, weights, bin_of_node)``; the integration range is
        truncated to ``|x| <= mu + 16`` where both class densities are below
        ``1e-55``.
        """
        half_width = self.mu + 16.0
        n_base = int(np.ceil(2.0 * half_width * self.mu / 0.75))
        check_memory((n_base + 1) * n_maps * (order + 4), "mu", item_bytes=32,
                     what=f"quadrature nodes on a grid of step 0.75/mu = {0.75 / self.mu:.3g}, {n_maps} maps")
        base = np.linspace(-half_width, half_width, n_base + 1)
        lo = np.clip(x_lo, -half_width, half_width)
        hi = np.clip(x_hi, -half_width, half_width)
        # every base point, placed in the bin (of every map) that contains it
        base_map = np.repeat(np.arange(n_maps), base.size)
        base_x = np.tile(base, n_maps)
        key_lo = map_of_bin * 4.0 * half_width + lo  # sorts bins by (map, left edge)
        base_bin = np.searchsorted(key_lo, base_map * 4.0 * half_width + base_x, side="right") - 1
        # panel breakpoints: bin edges and interior base points, grouped by bin
        inside = (base_x > lo[base_bin]) & (base_x < hi[base_bin])
        point_bin = np.concatenate((np.arange(lo.size), np.arange(lo.size), base_bin[inside]))
        point_x = np.concatenate((lo, hi, base_x[inside]))
        sort = np.lexsort((point_x, point_bin))
        point_bin, point_x = point_bin[sort], point_x[sort]
        panel = (point_bin[1:] == point_bin[:-1]) & (point_x[1:] > point_x[:-1])
        a, b, panel_bin = point_x[:-1][panel], point_x[1:][panel], point_bin[:-1][panel]
        t, w = np.polynomial.legendre.leggauss(order)
        half, mid = 0.5 * (b - a), 0.5 * (a + b)
        nodes = (mid[:, None] + half[:, None] * t[None, :]).ravel()
        weights = (half[:, None] * w[None, :]).ravel()
        return nodes, weights, np.repeat(panel_bin, order)

    # -- Label shift (paper 000 s5): risks of a strictly increasing recalibration map ------
    def population_risks_of_map(self, h) -> dict:
        r"""Population risks of ``h o f`` for a strictly increasing map ``h`` of [0, 1].

        An injective ``h`` keeps all the information in ``Z``, so
        :math:`\mathbb E[Y \mid h(Z)] = h^*(Z)`: the sharpness risk is exactly 0
        and the calibration risk equals the recalibration risk
        :math:`\mathbb E[(h(Z) - h^*(Z))^2]` (paper 000 Proposition 1, book
        ``prop-risk-decomposition``): ``sha`` is set to 0 and ``cal`` to
        ``risk`` by this argument, not computed.  Used for the
        LABEL-SHIFT baseline :math:`\hat g \circ f` of the composite-estimator chapter, with this
        mixture playing the target.

        Parameters
        ----------
        h : callable
            Vectorized map; ``h(z)`` for a 1-D array ``z`` returns an array
            whose last axis matches ``z`` (leading axes give a batch of maps,
            e.g. one per realization of the estimated weights).

        Returns
        -------
        dict
            ``cal``, ``sha`` (zeros), ``risk`` and ``mse`` (:math:`\mathbb E[(h(Z)-Y)^2]`),
            floats or arrays of the batch shape.
        """
        check_callable(h, "h")
        x, w0, w1 = self._x_grid
        raw = h(expit(x))
        hz = as_real_array(raw, "h(z)", ndim=np.ndim(raw))
        if hz.ndim == 0 or hz.shape[-1] != x.size:
            raise ValueError(f"h must map an array of {x.size} forecasts to an array whose last axis has that length")
        if not np.all(np.isfinite(hz)) or np.any((hz < 0.0) | (hz > 1.0)):
            raise ValueError("h must return finite values in [0, 1]")
        step = np.diff(hz, axis=-1)
        # Within 1e-9 of 0 or 1, ties and reversals are rounding of a saturating map (amplified by the odds ratio).
        saturated = (hz[..., 1:] >= 1.0 - 1e-9) | (hz[..., :-1] <= 1e-9)
        if np.any((step <= 0.0) & ~saturated):
            raise ValueError("h must be strictly increasing (injective), otherwise its sharpness risk is not 0")
        pi = self.prior
        sq_err = (hz - self._posterior_x(x)) ** 2
        risk = (1.0 - pi) * (sq_err @ w0) + pi * (sq_err @ w1)
        mse = pi * ((1.0 - hz) ** 2 @ w1) + (1.0 - pi) * (hz**2 @ w0)
        if np.ndim(risk) == 0:
            return {"cal": float(risk), "sha": 0.0, "risk": float(risk), "mse": float(mse)}
        return {"cal": risk, "sha": np.zeros_like(risk), "risk": risk, "mse": mse}

    def recalibration_risk_by_quadrature(self, h, breakpoints=(), *, rtol: float = 1e-12) -> float:
        r"""Recalibration risk :math:`R(h) = \mathbb E[(h(Z) - h^*(Z))^2]` by adaptive quadrature in ``z``.

        An independent reference for :meth:`population_risks` and
        :meth:`population_risks_of_map`.  It integrates paper 000 Definition 5
        in the form of book ``eq-excess-mse``,
        :math:`R(h) = \int_0^1 (h(z) - h^*(z))^2\,p_Z(z)\,dz`, with
        :func:`scipy.integrate.quad` (adaptive Gauss-Kronrod) on every piece
        between consecutive ``breakpoints``.  The integrand is written out here
        from the normal density :math:`\varphi`: at :math:`x = \operatorname{logit} z`,
        :math:`p_Z(z) = [\pi\varphi(x-\mu) + (1-\pi)\varphi(x+\mu)]/(z(1-z))`
        and, by Bayes' rule,
        :math:`h^*(z) = \pi\varphi(x-\mu)/[\pi\varphi(x-\mu) + (1-\pi)\varphi(x+\mu)]`.
        No normal distribution function, no Gauss-Legendre rule in ``x`` and no
        calibration or sharpness risk enters, so agreement with ``cal + sha``
        checks Proposition 1 (book ``prop-risk-decomposition``) and the code
        that computes the two risks.

        Parameters
        ----------
        h : callable
            Recalibration map; ``h(z)`` for a 1-D array holding one forecast
            returns one value in [0, 1] (the maps of :mod:`companion.calibration_sharpness`
            and vectorized functions qualify).  Called once per quadrature node.
        breakpoints : array of floats in [0, 1], optional
            Points where ``h`` may jump or kink, e.g. the interior edges of a
            piecewise-constant map; each smooth piece is integrated separately.
        rtol : float
            Relative accuracy requested from ``quad`` on every piece, in (0, 1);
            ``quad`` warns (``IntegrationWarning``) if it cannot reach it.

        Returns
        -------
        float
            :math:`R(h)` under this mixture.
        """
        check_callable(h, "h")
        rtol = check_open_unit(rtol, "rtol")
        cuts = as_real_array(breakpoints, "breakpoints", ndim=np.ndim(breakpoints), allow_empty=True).reshape(-1)
        if np.ndim(breakpoints) > 1:
            raise ValueError(f"breakpoints must be a 1-D array of points in [0, 1], got shape {np.shape(breakpoints)}")
        if np.any((cuts < 0.0) | (cuts > 1.0)):
            raise ValueError("breakpoints must lie in [0, 1]")
        pieces = np.unique(np.concatenate(([0.0, 1.0], cuts)))
        pi, mu = self.prior, self.mu
        norm = 1.0 / math.sqrt(2.0 * math.pi)

        def integrand(z: float) -> float:
            x = math.log(z) - math.log1p(-z)
            dens1 = pi * norm * math.exp(-0.5 * (x - mu) ** 2)
            dens = dens1 + (1.0 - pi) * norm * math.exp(-0.5 * (x + mu) ** 2)
            if dens == 0.0:  # both class densities underflow: no probability here
                return 0.0
            hz = np.asarray(h(np.array([z])), dtype=float).reshape(-1)
            if hz.size != 1 or not 0.0 <= hz[0] <= 1.0:
                raise ValueError(f"h must return one value in [0, 1] for one forecast, got {hz!r} at z = {z!r}")
            return (float(hz[0]) - dens1 / dens) ** 2 * dens / (z * (1.0 - z))

        total = 0.0
        for a, b in zip(pieces[:-1], pieces[1:]):
            total += quad(integrand, a, b, epsabs=1e-17, epsrel=rtol, limit=500)[0]
        return float(total)
