"""Sympy derivations for the MSE decomposition (paper 000, sections 2-3).

Eq. (2) (book ``eq-mse-decomposition``) and Proposition 1 (book
``prop-risk-decomposition``) on a finite joint law of the forecast and the
label; the posterior log-odds of the Gaussian mixture (book
``eq-gaussian-h-star``); and the mirror symmetry that makes the mixture's MSE
free of the prior (book ``prop-mse-prior-free``).
"""

from __future__ import annotations

import fractions
import functools
import numbers
from typing import NamedTuple, Sequence

import numpy as np
import sympy as sp

from .._checks import check_int, check_real

__all__ = [
    "FiniteJointDistribution",
    "finite_joint_distribution",
    "set_partitions",
    "proposition1_residual",
    "mse_decomposition_residual",
    "gaussian_posterior_log_odds",
    "mirror_symmetry_mse",
]


class FiniteJointDistribution(NamedTuple):
    """A symbolic law of (Z, Y) on ``m`` forecast values (``m`` is a count)."""

    #: ``masses[i]`` = P[Z = z_i]: positive symbols ``w_i``, the last one ``1 - sum(others)`` so they sum to one.
    masses: tuple
    #: ``cond[i]`` = P[Y = 1 | Z = z_i]: symbols ``q_i`` (the book's :math:`h^*(z_i)`).
    cond: tuple
    #: ``values[i]`` = z_i, the forecast values.
    values: tuple


# Largest number of forecast values the symbolic builders accept (their expressions grow as m^2),
# and of items for set_partitions (the number of partitions grows as the Bell numbers).
_MAX_VALUES = 40


_MAX_ITEMS = 10

#: Largest ``m`` of :func:`mse_decomposition_residual`: its simplification grows fast (m = 10 in
#: seconds, m = 40 in minutes).
_MAX_RESIDUAL_VALUES = 10


def finite_joint_distribution(m: int) -> FiniteJointDistribution:
    """Symbols for a joint law of (Z, Y) with Z taking ``m`` distinct values (an integer from 1 to 40)."""
    m = check_int(m, "m", minimum=1, maximum=_MAX_VALUES)
    w = sp.symbols(f"w1:{m + 1}", positive=True)
    masses = tuple(w[:-1]) + (1 - sum(w[:-1]),)
    cond = sp.symbols(f"q1:{m + 1}", nonnegative=True)
    values = sp.symbols(f"z1:{m + 1}", nonnegative=True)
    return FiniteJointDistribution(masses, tuple(cond), tuple(values))


def set_partitions(items: Sequence) -> list[list[list]]:
    """Every partition of ``items`` into non-empty blocks (Bell-number many).

    A map ``h`` on ``m`` forecast values is, up to the values it assigns, the
    partition of those values into the groups it merges, so running
    :func:`proposition1_residual` over ``set_partitions(range(m))`` covers
    every ``h``.  ``items`` is a list, tuple, range or 1-D array of at most
    10 entries (Bell(10) = 115975 partitions); an empty one has
    the single empty partition.
    """
    if isinstance(items, np.ndarray):
        if items.ndim != 1:
            raise ValueError(f"items must be a 1-D sequence, got an array of shape {items.shape}")
        items = items.tolist()
    if not isinstance(items, (list, tuple, range)):
        raise ValueError(f"items must be a list, tuple, range or 1-D array, got {type(items).__name__}")
    if len(items) > _MAX_ITEMS:
        raise ValueError(f"items must hold at most {_MAX_ITEMS} entries (the number of partitions grows as the Bell numbers), got {len(items)}")
    return _set_partitions(list(items))


def _set_partitions(items: list) -> list[list[list]]:
    """:func:`set_partitions` without validation (recursive)."""
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for part in _set_partitions(rest):
        out.extend(part[:i] + [[first] + part[i]] + part[i + 1:] for i in range(len(part)))
        out.append([[first]] + part)
    return out


def _check_groups(groups) -> list[list[int]]:
    """``groups`` as a list of lists of ints: a list or tuple of blocks (lists, tuples or ranges of integers)."""
    rule = "groups must be a list of blocks (lists of integers) partitioning range(m)"
    if not isinstance(groups, (list, tuple)) or not groups:
        raise ValueError(f"{rule}, got {groups!r}")
    out = []
    for block in groups:
        if not isinstance(block, (list, tuple, range)) or not all(
            isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in block
        ):
            raise ValueError(f"{rule}, got the block {block!r}")
        out.append([int(i) for i in block])
    if sum(len(g) for g in out) > _MAX_VALUES:
        raise ValueError(f"groups must partition at most {_MAX_VALUES} values, got {sum(len(g) for g in out)}")
    return out


def _check_partition(groups: Sequence[Sequence[int]], m: int) -> None:
    flat = sorted(i for g in groups for i in g)
    if flat != list(range(m)) or any(len(g) == 0 for g in groups):
        raise ValueError(f"groups must partition range({m}) into non-empty blocks, got {groups!r}")


def proposition1_residual(groups: Sequence[Sequence[int]]) -> tuple[sp.Expr, dict[str, sp.Expr]]:
    r"""Residual ``R(h) - R^cal(h) - R^sha(h)`` for a grouping map ``h`` (paper 000 Proposition 1).

    ``groups`` partitions the forecast values ``0..m-1``; ``h`` sends every
    value of block ``g`` to its own symbol ``v_g`` (distinct blocks get
    distinct values, so :math:`\mathbb E[Y \mid h(Z)]` is the block's mean
    :math:`\theta_g = \sum_{i\in g} w_i q_i / \sum_{i \in g} w_i`).  The
    three risks are built from their definitions (paper 000 Definitions 3-5,
    book ``def-calibration-risk``, ``def-sharpness-risk``,
    ``def-recalibration-risk``) with :math:`h^*(z_i) = q_i`.  Returns the
    residual (which book ``prop-risk-decomposition`` says is identically
    zero) and the three risks as expressions.
    """
    groups = _check_groups(groups)
    m = sum(len(g) for g in groups)
    _check_partition(groups, m)
    law = finite_joint_distribution(m)
    w, q = law.masses, law.cond
    v = sp.symbols(f"v1:{len(groups) + 1}")
    risk = cal = sha = sp.Integer(0)
    for vg, block in zip(v, groups):
        mass = sum(w[i] for i in block)
        theta = sum(w[i] * q[i] for i in block) / mass  # E[Y | h(Z) = v_g]
        risk += sum(w[i] * (vg - q[i]) ** 2 for i in block)  # Definition 5: (h(Z) - h*(Z))^2
        cal += mass * (vg - theta) ** 2  # Definition 3
        sha += sum(w[i] * (theta - q[i]) ** 2 for i in block)  # Definition 4
    residual = sp.simplify(sp.together(risk - cal - sha))
    return residual, {"risk": risk, "calibration": cal, "sharpness": sha}


def mse_decomposition_residual(m: int) -> tuple[sp.Expr, dict[str, sp.Expr]]:
    r"""Residual of paper 000 eq. (2) (book ``eq-mse-decomposition``) for ``m`` forecast values.

    The residual is ``MSE - (Var Y - sharpness + calibration)``.

    With :math:`\bar q = \sum_i w_i q_i = \mathbb E[Y]`:
    MSE :math:`= \sum_i w_i\,[q_i (1-z_i)^2 + (1-q_i) z_i^2]`,
    Var Y :math:`= \bar q (1 - \bar q)`, sharpness
    :math:`= \sum_i w_i (q_i - \bar q)^2`, calibration
    :math:`= \sum_i w_i (z_i - q_i)^2`.  ``m`` is an integer from 1 to 10.
    """
    law = finite_joint_distribution(check_int(m, "m", minimum=1, maximum=_MAX_RESIDUAL_VALUES))
    w, q, z = law
    qbar = sum(wi * qi for wi, qi in zip(w, q))
    terms = {
        "mse": sum(wi * (qi * (1 - zi) ** 2 + (1 - qi) * zi**2) for wi, qi, zi in zip(w, q, z)),
        "variance": qbar * (1 - qbar),
        "sharpness": sum(wi * (qi - qbar) ** 2 for wi, qi in zip(w, q)),
        "calibration": sum(wi * (zi - qi) ** 2 for wi, qi, zi in zip(w, q, z)),
    }
    residual = sp.expand(terms["mse"] - (terms["variance"] - terms["sharpness"] + terms["calibration"]))
    return residual, terms


def gaussian_posterior_log_odds() -> tuple[sp.Expr, sp.Expr]:
    r"""Log posterior odds of the Gaussian mixture, by Bayes' rule, and its residual.

    With :math:`X\mid Y=1 \sim N(\mu,1)`, :math:`X\mid Y=0\sim N(-\mu,1)` and
    prior :math:`\pi`, returns ``(log_odds, residual)`` where ``log_odds`` is
    :math:`\log\frac{\pi\varphi(x-\mu)}{(1-\pi)\varphi(x+\mu)}` simplified and
    ``residual`` is its difference from :math:`2\mu x + \log\frac{\pi}{1-\pi}`
    (zero), which gives :math:`h^*(z) = \sigma(2\mu\,\mathrm{logit}\,z + \log\frac{\pi}{1-\pi})`.
    """
    x = sp.Symbol("x", real=True)
    mu, pi = sp.symbols("mu pi", positive=True)
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    log_odds = sp.expand_log(sp.log(pi * phi(x - mu) / ((1 - pi) * phi(x + mu))), force=True)
    log_odds = sp.simplify(log_odds)
    residual = sp.simplify(sp.expand_log(log_odds - (2 * mu * x + sp.log(pi) - sp.log(1 - pi)), force=True))
    return log_odds, residual


def _real_offset(offset) -> sp.Expr:
    """``offset`` as an exact sympy number (a float by its decimal repr: 2.5 -> 5/2, 1e300 -> 10**300) or a real sympy expression."""
    if isinstance(offset, sp.Basic):
        if offset.is_real is not True or offset.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise ValueError(f"offset must be a finite real number or a real sympy expression, got {offset!r}")
        return offset
    value = check_real(offset, "offset")  # strings, complex, bool, NaN and infinities are refused here
    if isinstance(offset, numbers.Integral):
        return sp.Integer(int(offset))
    if isinstance(offset, fractions.Fraction):
        return sp.Rational(offset.numerator, offset.denominator)
    return sp.Rational(repr(value))  # exact, so sympy never evaluates exp(1e300) in floats


def _sigmoid(t: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-t))


def _class_losses(x: sp.Symbol, mu: sp.Symbol, offset: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """Integrands of E_1 and E_0 for the forecaster sigma(x + offset): (1 - f)^2 under N(mu, 1), f^2 under N(-mu, 1)."""
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    forecast = _sigmoid(x + offset)
    return phi(x - mu) * (1 - forecast) ** 2, phi(x + mu) * forecast**2


@functools.lru_cache(maxsize=1)
def _shifted_integrand(x: sp.Symbol, mu: sp.Symbol) -> tuple[sp.Symbol, sp.Expr]:
    """The reflected integrand l_1(-x) - l_0(x) for the forecaster sigma(x + c), simplified once with c a real symbol."""
    c = sp.Symbol("c", real=True)
    loss1, loss0 = _class_losses(x, mu, c)
    return c, sp.simplify(loss1.subs(x, -x) - loss0)


def mirror_symmetry_mse(offset=0) -> tuple[sp.Expr, dict[str, sp.Expr]]:
    r"""Why the Gaussian mixture's MSE does not depend on the prior (book ``prop-mse-prior-free``).

    For the forecaster :math:`f(x) = \sigma(x + c)` with ``c = offset``,
    conditioning on the label gives
    :math:`\operatorname{MSE}(\pi) = \pi E_1 + (1 - \pi) E_0` with
    :math:`E_1 = \int \varphi(x - \mu)(1 - f(x))^2\,dx` and
    :math:`E_0 = \int \varphi(x + \mu) f(x)^2\,dx`, so
    :math:`\partial \operatorname{MSE} / \partial \pi = E_1 - E_0`.
    Reflecting :math:`x \mapsto -x` in :math:`E_1` (which keeps the limits
    :math:`\pm\infty`) writes this derivative as one integral,
    :math:`\int [\ell_1(-x) - \ell_0(x)]\,dx` with the integrands
    :math:`\ell_1(x) = \varphi(x - \mu)(1 - f(x))^2` and
    :math:`\ell_0(x) = \varphi(x + \mu) f(x)^2` of :math:`E_1` and :math:`E_0`.  For ``c = 0`` the mirror symmetry
    :math:`\sigma(-x) = 1 - \sigma(x)`, :math:`\varphi(-x-\mu) = \varphi(x+\mu)`
    makes the integrand vanish identically; for ``c != 0`` it does not.

    Returns
    -------
    (derivative, parts)
        ``derivative`` is :math:`\partial\operatorname{MSE}/\partial\pi`
        after the reflection and simplification of the integrand (``0`` for
        ``offset=0``); ``parts`` holds ``sigmoid`` (the residual
        :math:`\sigma(-x) - (1 - \sigma(x))`), ``integrand``
        (:math:`\ell_1(-x) - \ell_0(x)`, simplified), ``mse``
        (:math:`\pi E_1 + (1-\pi) E_0` with unevaluated integrals) and
        ``dmse_dprior`` (its derivative :math:`E_1 - E_0` before the reflection).
    """
    offset = _real_offset(offset)
    x = sp.Symbol("x", real=True)
    mu, pi = sp.symbols("mu pi", positive=True)
    loss1, loss0 = _class_losses(x, mu, offset)
    line = (x, -sp.oo, sp.oo)
    mse = pi * sp.Integral(loss1, line) + (1 - pi) * sp.Integral(loss0, line)
    if offset == 0:
        integrand = sp.simplify(loss1.subs(x, -x) - loss0)
    else:  # simplified once with a symbolic offset, then evaluated: simplify is slow on 10**300 in the exponents
        c, shifted = _shifted_integrand(x, mu)
        integrand = shifted.subs(c, offset)
    # an integral of the zero function is zero; otherwise leave the integral unevaluated
    derivative = sp.Integer(0) if integrand == 0 else sp.Integral(integrand, line)
    parts = {
        "sigmoid": sp.simplify(_sigmoid(-x) - (1 - _sigmoid(x))),
        "integrand": integrand,
        "mse": mse,
        "dmse_dprior": sp.diff(mse, pi),
    }
    return derivative, parts
