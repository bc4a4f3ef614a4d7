"""Sympy derivations for recalibration under label shift (paper 000, section 5 and Appendix C).

Book labels: ``prop-ls-composition`` (eq. (15) of the paper),
``lem-ls-lipschitz`` (Lemma 10), ``cor-ls-ratio`` (Corollary 9) and the
proof of ``thm-ls-composite`` (Theorem 2, Steps 2 and 4).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["label_shift_composition_residuals", "lemma10_derivatives", "theorem2_step2_residuals"]


def _correction(z, w0, w1):
    """The label-shift correction g_w(z) = w1 z / (w1 z + w0 (1 - z)) of eq. (13) (book: ``def-prior-correction``)."""
    return w1 * z / (w1 * z + w0 * (1 - z))


def label_shift_composition_residuals() -> dict[str, sp.Expr]:
    r"""Eq. (15), :math:`g^* \circ h^*_P = h^*_Q` (book: ``prop-ls-composition``), as residuals that simplify to 0.

    ``"general"``: class-conditional densities ``a`` (class 1) and ``b``
    (class 0) of the forecast are arbitrary positive symbols, so
    :math:`h^*_\pi = \pi a / (\pi a + (1-\pi) b)` by Bayes' rule.
    ``"gaussian"``: the mixture of paper 000 with :math:`X \mid Y=k \sim N(\pm\mu, 1)`,
    written in ``x = logit z``.  Priors are ``p`` (source) and ``q`` (target).
    The residual is built from Bayes' rule under each prior separately, so
    its vanishing is the content of the proposition, not an identity of the code.
    """
    p, q, a, b, mu = sp.symbols("p q a b mu", positive=True)
    x = sp.Symbol("x", real=True)
    w0, w1 = (1 - q) / (1 - p), q / p
    posterior = lambda prior, d1, d0: prior * d1 / (prior * d1 + (1 - prior) * d0)  # noqa: E731
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    general = _correction(posterior(p, a, b), w0, w1) - posterior(q, a, b)
    gaussian = _correction(posterior(p, phi(x - mu), phi(x + mu)), w0, w1) - posterior(q, phi(x - mu), phi(x + mu))
    return {"general": sp.simplify(general), "gaussian": sp.simplify(gaussian)}


def lemma10_derivatives() -> dict[str, sp.Expr]:
    r"""Lemma 10 of the paper (book: ``lem-ls-lipschitz``): derivatives of :math:`g_w` and its end-point slopes.

    Returns ``first`` and ``second`` (the derivatives computed by sympy,
    factored), the residuals ``first_residual`` of :math:`g' - w_0 w_1 / \Lambda_w^2`
    and ``second_residual`` of :math:`g'' + 2 w_0 w_1 (w_1 - w_0) / \Lambda_w^3` with
    :math:`\Lambda_w = w_1 z + w_0 (1 - z)` (the closed forms used in the proof), and
    the slopes ``slope_at_0`` (:math:`w_1/w_0`) and ``slope_at_1``
    (:math:`w_0/w_1`).  Since :math:`\Lambda_w > 0`, the sign of :math:`g''` is that
    of :math:`w_0 - w_1`, so :math:`g'` is monotone and its maximum is the
    larger end-point slope.
    """
    z = sp.Symbol("z", nonnegative=True)
    w0, w1 = sp.symbols("w0 w1", positive=True)
    g = _correction(z, w0, w1)
    denom = w1 * z + w0 * (1 - z)
    first, second = sp.factor(sp.diff(g, z)), sp.factor(sp.diff(g, z, 2))
    return {
        "first": first,
        "second": second,
        "first_residual": sp.simplify(first - w0 * w1 / denom**2),
        "second_residual": sp.simplify(second + 2 * w0 * w1 * (w1 - w0) / denom**3),
        "slope_at_0": sp.simplify(first.subs(z, 0)),
        "slope_at_1": sp.simplify(first.subs(z, 1)),
    }


def theorem2_step2_residuals() -> dict[str, sp.Expr]:
    r"""The algebra of the proof of Theorem 2 (book: ``thm-ls-composite``) and of Corollary 9 (``cor-ls-ratio``).

    With true weights ``w0, w1``, estimates ``v0, v1`` and
    :math:`\Lambda_v = v_1 z + v_0 (1-z)`, :math:`\Lambda_w = w_1 z + w_0 (1-z)`:

    * ``difference``: :math:`\hat g - g^* - (v_1 w_0 - w_1 v_0)\,z(1-z)/(\Lambda_v \Lambda_w)` (0; Step 2);
    * ``denominator``: :math:`\Lambda_v \Lambda_w - (v_1 w_0 + w_1 v_0) z (1-z) - v_1 w_1 z^2 - v_0 w_0 (1-z)^2`
      (0, so :math:`\Lambda_v \Lambda_w \ge (v_1 w_0 + w_1 v_0) z(1-z)`; Step 2);
    * ``ratio``: :math:`(v_1 w_0 - w_1 v_0)/(v_1 w_0 + w_1 v_0) - (\rho_1 - \rho_0)/(\rho_1 + \rho_0)`
      with :math:`\rho_k = v_k / w_k` (0; Step 2);
    * ``chernoff_upper``: :math:`(1 + 3\xi)(1 - \xi) - (1 + \xi)` for the
      Chernoff relative deviation :math:`\xi = (\beta - 1)/3`, which factors as
      :math:`\xi(1 - 3\xi) \ge 0` for :math:`\xi \le 1/3`
      (Corollary 9: :math:`(1+\xi)/(1-\xi) \le 1 + 3\xi = \beta`);
    * ``beta_gap``: :math:`(\beta - 1) - (\beta^2 - 1)/(\beta^2 + 1)`, which factors as
      :math:`\beta(\beta-1)^2/(\beta^2+1) \ge 0`, so on the ratio event
      :math:`|\rho_0-\rho_1|/(\rho_0+\rho_1) \le (\beta^2-1)/(\beta^2+1) \le \beta - 1` (Step 4);
    * ``two_bins_gap``: :math:`2\log(8/\delta) - \log(16/\delta)`, expanded to
      :math:`\log 4 - \log\delta > 0`: with :math:`|\mathcal B| \ge 2` bins,
      :math:`|\mathcal B|\log(4|\mathcal B|/\delta) \ge \log(16/\delta)`, which turns the
      condition on :math:`n_P` of the theorem into the one Corollary 9 needs at
      failure probability :math:`\delta/2` (Step 4).
    """
    z = sp.Symbol("z", nonnegative=True)
    w0, w1, v0, v1, xi, beta = sp.symbols("w0 w1 v0 v1 xi beta", positive=True)
    delta = sp.Symbol("delta", positive=True)
    dv, dw = v1 * z + v0 * (1 - z), w1 * z + w0 * (1 - z)
    rho0, rho1 = v0 / w0, v1 / w1
    return {
        "difference": sp.simplify(_correction(z, v0, v1) - _correction(z, w0, w1) - (v1 * w0 - w1 * v0) * z * (1 - z) / (dv * dw)),
        "denominator": sp.expand(dv * dw - (v1 * w0 + w1 * v0) * z * (1 - z) - v1 * w1 * z**2 - v0 * w0 * (1 - z) ** 2),
        "ratio": sp.simplify((v1 * w0 - w1 * v0) / (v1 * w0 + w1 * v0) - (rho1 - rho0) / (rho1 + rho0)),
        "chernoff_upper": sp.factor((1 + 3 * xi) * (1 - xi) - (1 + xi)),
        "beta_gap": sp.factor((beta - 1) - (beta**2 - 1) / (beta**2 + 1)),
        "two_bins_gap": sp.expand_log(2 * sp.log(8 / delta) - sp.log(16 / delta), force=True),
    }
