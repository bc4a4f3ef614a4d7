"""Sympy derivations for estimating label-shift weights (paper 001 App. A; paper 000 App. D).

Every ``*_residual`` entry must simplify to exactly 0; the chapter
``chap-label-shift-weights`` shows them with :func:`companion.display.typeset`
and ``tests/`` asserts them.  Labels: ``prop-lsw-bayes-correction``,
``prop-lsw-moment``, ``lem-lsw-perturbation``, ``prop-lsw-em``,
``rem-lsw-remark5``.
"""

from __future__ import annotations

import sympy as sp

from .._checks import check_int

__all__ = [
    "bayes_correction_residuals",
    "moment_identity_residuals",
    "bbse_perturbation_residuals",
    "em_stationarity",
    "remark5_chain",
]


def _simplex_posterior(prior, dens):
    """Bayes' rule: prior_y dens_y / sum_j prior_j dens_j."""
    total = sum(pr * d for pr, d in zip(prior, dens))
    return [pr * d / total for pr, d in zip(prior, dens)]


def bayes_correction_residuals(k: int = 3) -> list:
    r"""Eq. (16) of paper 001 for ``k`` classes: :math:`g_{q/p}(\eta^P) - \eta^Q` per class.

    Class-conditional densities ``a_y`` at a point and both priors are free
    positive symbols; the two posteriors come from Bayes' rule separately,
    so the vanishing residuals are the content of the correction
    (book ``prop-lsw-bayes-correction``).  ``k`` is an integer in [2, 8]
    (the cost of the simplification grows quickly with it).
    """
    k = check_int(k, "k", minimum=2, maximum=8)
    a = sp.symbols(f"a1:{k + 1}", positive=True)
    p = sp.symbols(f"p1:{k + 1}", positive=True)
    q = sp.symbols(f"q1:{k + 1}", positive=True)
    eta_p, eta_q = _simplex_posterior(p, a), _simplex_posterior(q, a)
    w = [qy / py for qy, py in zip(q, p)]
    corrected = _simplex_posterior(w, eta_p)
    return [sp.simplify(c - e) for c, e in zip(corrected, eta_q)]


def moment_identity_residuals(k: int = 3, m: int = 3) -> dict:
    r""":math:`\nu - C w^*` (book ``prop-lsw-moment``) with and without label shift, on ``m`` points and ``k`` classes.

    :math:`X` takes ``m`` values with source class-conditional masses
    ``c_{x,y}`` (free positive symbols) and source prior ``p``; the features
    are the soft Bayes posterior :math:`\phi_i(x) = p_ic_{x,i}/\sum_jp_jc_{x,j}`
    of the source, and :math:`C_{ij} = \sum_x\phi_i(x)\,c_{x,j}\,p_j`.  The
    target mean feature :math:`\nu_i = \sum_x\phi_i(x)\,Q[X=x]` is computed
    from the target's own class-conditional masses
    ``c_{x,y} + t d_{x,y}`` (``d`` free with :math:`\sum_x d_{x,y} = 0`, so
    each column is still a law for small ``t``) and prior ``q``.  Returns
    ``label_shift`` (the residuals :math:`\nu - C(q/p)` at ``t = 0``,
    simplified; they vanish for any features and masses, so this row repeats
    the algebra of the proof and cannot fail) and ``shifted_example`` (a
    sensitivity example: the residuals with the target's class-conditionals
    moved, at one rational instance: ``t = 1/10``, column-normalised masses,
    uniform ``p``, ``q`` proportional to ``1..k``; non-zero once the
    class-conditional laws differ).  ``k`` and ``m`` are integers in [2, 4] with
    ``k * m <= 12`` (the symbolic simplification of ``k = m = 6`` takes minutes).
    """
    k = check_int(k, "k", minimum=2, maximum=4)
    m = check_int(m, "m", minimum=2, maximum=4)
    if k * m > 12:
        raise ValueError(f"k * m must be at most 12 (the simplification grows fast), got k = {k} and m = {m}")
    p = sp.symbols(f"p1:{k + 1}", positive=True)
    q = sp.symbols(f"q1:{k + 1}", positive=True)
    t = sp.Symbol("t")
    c = sp.Matrix(m, k, lambda x, y: sp.Symbol(f"c_{x + 1}{y + 1}", positive=True))
    # perturbation of the class-conditionals whose columns sum to zero: the last row balances the others
    d = sp.Matrix(m, k, lambda x, y: sp.Symbol(f"d_{x + 1}{y + 1}") if x < m - 1
                  else -sum(sp.Symbol(f"d_{r + 1}{y + 1}") for r in range(m - 1)))
    phi = sp.Matrix(k, m, lambda i, x: _simplex_posterior(p, list(c.row(x)))[i])
    confusion = phi * c * sp.diag(*p)
    w = sp.Matrix([qy / py for qy, py in zip(q, p)])

    def residuals(cond_q):
        target_mass = cond_q * sp.Matrix(q)  # Q[X = x] = sum_y q_y Q[X = x | Y = y]
        return list(phi * target_mass - confusion * w)

    # one rational instance: column-normalised masses, uniform p, q proportional to 1..k, t = 1/10
    point = {t: sp.Rational(1, 10)}
    for y in range(k):
        column = [sp.Integer(x + y + 1) for x in range(m)]
        point.update({c[x, y]: v / sum(column) for x, v in enumerate(column)})
        point.update({sp.Symbol(f"d_{x + 1}{y + 1}"): sp.Rational((-1) ** (x + y), 20) for x in range(m - 1)})
        point.update({p[y]: sp.Rational(1, k), q[y]: sp.Rational(2 * (y + 1), k * (k + 1))})
    return {"label_shift": [sp.cancel(sp.together(e)) for e in residuals(c)],
            "shifted_example": [sp.nsimplify(e.subs(point)) for e in residuals(c + t * d)]}


def bbse_perturbation_residuals(k: int = 2) -> list:
    r"""``lem-lsw-perturbation``: :math:`\hat w - w = \hat C^{-1}\bigl((\hat\nu - \nu) - (\hat C - C)w\bigr)` when :math:`\nu = Cw`.

    ``k x k`` matrices of free symbols, ``k`` an integer in [2, 4] (the
    symbolic inverse grows factorially); returns the residual entries.
    """
    k = check_int(k, "k", minimum=2, maximum=4)
    C = sp.Matrix(k, k, lambda i, j: sp.Symbol(f"C_{i + 1}{j + 1}"))
    Ch = sp.Matrix(k, k, lambda i, j: sp.Symbol(f"Chat_{i + 1}{j + 1}"))
    w = sp.Matrix(sp.symbols(f"w1:{k + 1}"))
    nuh = sp.Matrix(sp.symbols(f"nuhat1:{k + 1}"))
    nu = C * w
    w_hat = Ch.inv() * nuh
    residual = w_hat - w - Ch.inv() * ((nuh - nu) - (Ch - C) * w)
    return [sp.simplify(e) for e in residual]


def em_stationarity(k: int = 3, n: int = 2) -> dict:
    r"""The EM fixed point of MLLS is a stationary point of the likelihood on the simplex (book ``prop-lsw-em``).

    With ``n`` target points, posteriors :math:`\eta_{iy}` and source prior
    :math:`p` (free positive symbols), :math:`\ell(q) = \sum_i\log D_i`,
    :math:`D_i = \sum_y (q_y/p_y)\eta_{iy}`, and the EM map
    :math:`T(q)_y = \frac1n\sum_i (q_y/p_y)\eta_{iy}/D_i`:

    * ``euler_residual``: :math:`\sum_y q_y\,\partial_y\ell - n` (0: :math:`\ell`
      is a sum of logs of functions homogeneous of degree 1);
    * ``fixed_point_residuals``: :math:`q_y(\partial_y\ell - n) + n\,(q_y - T(q)_y)` (0 for
      every :math:`q`; so at a fixed point :math:`T(q) = q` with :math:`q_y>0`,
      :math:`\partial_y\ell = n` for all :math:`y`: the Lagrange condition
      :math:`\nabla\ell = \lambda\mathbf 1` on the simplex, with :math:`\lambda = n`);
    * ``hessian_residuals``: :math:`\partial_y\partial_z\ell + \sum_i a_{iy}a_{iz}/D_i^2`
      with :math:`a_{iy} = \eta_{iy}/p_y` (0: the Hessian is minus a sum of
      rank-one positive semi-definite matrices, so :math:`\ell` is concave and
      a stationary point is a global maximum).

    ``k`` is an integer in [2, 4] and ``n`` in [1, 4] (the simplification
    of the Hessian takes seconds already at ``k = n = 3``).
    """
    k = check_int(k, "k", minimum=2, maximum=4)
    n = check_int(n, "n", minimum=1, maximum=4)
    q = sp.symbols(f"q1:{k + 1}", positive=True)
    p = sp.symbols(f"p1:{k + 1}", positive=True)
    eta = sp.Matrix(n, k, lambda i, y: sp.Symbol(f"eta_{i + 1}{y + 1}", positive=True))
    a = [[eta[i, y] / p[y] for y in range(k)] for i in range(n)]
    D = [sum(q[y] * a[i][y] for y in range(k)) for i in range(n)]
    ell = sum(sp.log(d) for d in D)
    grad = [sp.diff(ell, qy) for qy in q]
    T = [sum(q[y] * a[i][y] / D[i] for i in range(n)) / n for y in range(k)]
    euler = sp.simplify(sum(qy * g for qy, g in zip(q, grad)) - n)
    fixed = [sp.simplify(q[y] * (grad[y] - n) + n * (q[y] - T[y])) for y in range(k)]
    hess = [sp.simplify(sp.diff(ell, q[y], q[z]) + sum(a[i][y] * a[i][z] / D[i] ** 2 for i in range(n)))
            for y in range(k) for z in range(k)]
    return {"euler_residual": euler, "fixed_point_residuals": fixed, "hessian_residuals": hess}


def remark5_chain() -> dict:
    r"""The algebra of the argument of paper 000, App. D (book ``rem-lsw-remark5``).

    With :math:`\rho_k = \hat w_k/w^*_k \in [1-r, 1+r]`:

    * ``norm_residual``: :math:`\|\hat w - w^*\|_2^2 - \sum_k(\rho_k-1)^2(w^*_k)^2` (0; eq. (38));
    * ``ratio_da``, ``ratio_db``: the partial derivatives of
      :math:`(a-b)/(a+b)`, :math:`2b/(a+b)^2 > 0` and :math:`-2a/(a+b)^2 < 0`,
      so on the box the ratio is largest at :math:`a = 1+r`, :math:`b = 1-r`;
    * ``corner_value``: the ratio there, which is :math:`r` (so :math:`T_1 \le r^2`);
    * ``paper_step_gap``: :math:`2r/(2-2r) - r = r^2/(1-r) \ge 0` (the paper's
      separate bounds on numerator and denominator are looser than the corner);
    * ``square_gap``: :math:`4r^2 - (r/(1-r))^2`, factored, which is
      :math:`\ge 0` for :math:`r \le 1/2`: with the square the chain (39)
      gives :math:`T_1 \le 4r^2`;
    * ``unsquared_gap``: :math:`2r - r/(1-r) = r(1-2r)/(1-r) \ge 0` for
      :math:`r\le 1/2`: the printed, unsquared chain is also true but ends at
      :math:`2r`, which is of the order of :math:`\|\hat w - w^*\|_2`, not of
      its square.
    * ``paper_step_holds_on``, ``square_gap_holds_on``, ``unsquared_gap_holds_on``:
      the sets of :math:`r\in(0,1)` on which the three gaps are :math:`\ge 0`,
      solved by :func:`sympy.solveset` (not evaluated at sample points):
      :math:`(0,1)`, :math:`(0,1/2]` and :math:`(0,1/2]`.  So the condition
      :math:`r\le 1/2` of App. D is exactly what both chains need.
    """
    r = sp.Symbol("r", positive=True)
    a, b = sp.symbols("a b", positive=True)
    w0, w1, rho0, rho1 = sp.symbols("w0 w1 rho0 rho1", positive=True)
    ratio = (a - b) / (a + b)
    norm = (rho0 * w0 - w0) ** 2 + (rho1 * w1 - w1) ** 2
    unit = sp.Interval.open(0, 1)
    paper_step = sp.factor(sp.simplify(2 * r / (2 - 2 * r) - r))
    square_gap = sp.factor(4 * r**2 - (r / (1 - r)) ** 2)
    unsquared_gap = sp.factor(2 * r - r / (1 - r))
    return {
        "norm_residual": sp.expand(norm - ((rho0 - 1) ** 2 * w0**2 + (rho1 - 1) ** 2 * w1**2)),
        "ratio_da": sp.factor(sp.diff(ratio, a)),
        "ratio_db": sp.factor(sp.diff(ratio, b)),
        "corner_value": sp.simplify(ratio.subs({a: 1 + r, b: 1 - r})),
        "paper_step_gap": paper_step,
        "square_gap": square_gap,
        "unsquared_gap": unsquared_gap,
        "paper_step_holds_on": sp.solveset(paper_step >= 0, r, unit),
        "square_gap_holds_on": sp.solveset(square_gap >= 0, r, unit),
        "unsquared_gap_holds_on": sp.solveset(unsquared_gap >= 0, r, unit),
    }
