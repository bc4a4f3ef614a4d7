"""Typeset results of the sympy checks in a chapter.

A chapter cell ends with :func:`typeset`; Jupyter renders its LaTeX form as
displayed mathematics (the book shows it through MathJax) and keeps a plain
text form beside it, so nbval compares both.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["Typeset", "typeset"]


def _latex(item) -> str:
    """LaTeX of a sympy object or number; a ``str`` is taken to be LaTeX already."""
    if isinstance(item, str):
        return item
    return sp.latex(sp.sympify(item))


def _formula(item, name: str):
    """``item`` if it is a LaTeX string or converts to a sympy object; else a ValueError naming ``name``.

    Checked when the rows are built, so a bad formula is reported by :func:`typeset`
    and not later, from inside Jupyter's display machinery.
    """
    if isinstance(item, str):
        return item
    if isinstance(item, bytes):
        raise ValueError(f"{name} must hold LaTeX strings or sympy expressions, got bytes {item!r}")
    try:
        sp.sympify(item)
    except (sp.SympifyError, TypeError, ValueError, AttributeError, SyntaxError):
        raise ValueError(f"{name} must hold LaTeX strings or sympy expressions, got {type(item).__name__} {item!r}") from None
    return item


def _plain(item) -> str:
    return item if isinstance(item, str) else sp.sstr(sp.sympify(item))


class Typeset:
    """Rows of displayed mathematics, each a caption and one or more formulas joined by ``=``.

    Build it with :func:`typeset`; the LaTeX form is an ``aligned`` block
    with the captions as text, the plain form one row per line.
    """

    def __init__(self, rows: list[tuple[str, tuple]]):
        if isinstance(rows, (str, bytes)) or not isinstance(rows, (list, tuple)) or not rows:
            raise ValueError(f"rows must be a non-empty list of (caption, formulas) pairs, got {rows!r}")
        clean = []
        for i, row in enumerate(rows):
            if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str) and isinstance(row[1], tuple)
                    and row[1]):
                raise ValueError(f"rows[{i}] must be a pair (caption: str, formulas: non-empty tuple), got {row!r}")
            clean.append((row[0], tuple(_formula(part, f"rows[{i}]") for part in row[1])))
        self.rows = clean

    def _repr_latex_(self) -> str:
        body = r" \\ ".join(
            rf"\text{{{caption}}}\quad & " + " = ".join(_latex(part) for part in parts) for caption, parts in self.rows
        )
        return rf"$\displaystyle \begin{{aligned}} {body} \end{{aligned}}$"

    def __repr__(self) -> str:
        return "\n".join(f"{caption}: " + " = ".join(_plain(part) for part in parts) for caption, parts in self.rows)


def typeset(*rows) -> Typeset:
    """Display rows ``(caption, formula, formula, ...)`` as aligned mathematics.

    Each formula is a sympy expression (or number), or a string of LaTeX;
    the formulas of a row are joined by ``=``.  Example: the residual of an
    identity and what it simplifies to,
    ``typeset(("Proposition 1, all 15 maps", r"R - R^{cal} - R^{sha}", 0))``.
    """
    if not rows:
        raise ValueError("rows must hold at least one (caption, formula, ...) tuple")
    clean = []
    for i, row in enumerate(rows):
        if not isinstance(row, tuple) or len(row) < 2 or not isinstance(row[0], str):
            raise ValueError(f"rows[{i}] must be a tuple (caption: str, formula, ...), got {row!r}")
        clean.append((row[0], row[1:]))
    return Typeset(clean)
