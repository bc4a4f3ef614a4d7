"""What a chapter cell shows: results of the sympy checks as prose with mathematics, and tables.

Both objects carry two forms.  The Markdown form is what the book renders
(MyST-NB parses ``text/markdown`` outputs as MyST, so inline ``$...$`` and
display ``$$...$$`` math and the ``{table}`` directive work, in the HTML and
in the PDF); the plain-text form is deterministic, so nbval compares it.

- :func:`typeset` -- rows ``(caption, formula, formula, ...)``, shown as a
  list: a short row as one line of prose with inline math, a long one with
  its formulas as displayed math, one ``= formula`` per line, so nothing is
  set wider than the text column.
- :func:`table` -- a table of numbers with a header row, an optional caption
  and label (``{numref}`` finds it), each column formatted by one format
  specification.
- :func:`agreement` -- the line a from-scratch cell prints when it compares
  its result with the companion's: ``identical``, ``agree to within`` the
  stated tolerance, or ``DIFFER`` (``tests/test_from_scratch.py`` reads it).
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Sequence

import numpy as np
import sympy as sp

__all__ = ["Table", "Typeset", "agreement", "table", "typeset"]


#: Rows of :func:`typeset` whose caption and formulas are longer than this many
#: visible characters get their formulas as displayed math, one ``=`` per line.
INLINE_LIMIT = 60


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>#|{}])")


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
    if isinstance(item, bytes) or item is None:
        raise ValueError(f"{name} must hold LaTeX strings or sympy expressions, got {item!r}")
    try:
        sp.sympify(item)
    except (sp.SympifyError, TypeError, ValueError, AttributeError, SyntaxError):
        raise ValueError(f"{name} must hold LaTeX strings or sympy expressions, got {type(item).__name__} {item!r}") from None
    return item


def _plain(item) -> str:
    return item if isinstance(item, str) else sp.sstr(sp.sympify(item))


def _prose(text: str) -> str:
    """Markdown of a caption: ``$...$`` segments stay math, the rest is escaped to read literally."""
    parts = text.split("$")
    if len(parts) % 2 == 0:
        raise ValueError(f"caption {text!r} has an unmatched '$'")
    return "$".join(part if i % 2 else _MARKDOWN_SPECIALS.sub(r"\\\1", part) for i, part in enumerate(parts))


def _visible_length(latex: str) -> int:
    """Rough count of the characters a LaTeX string sets: each command one, braces and spaces none."""
    return len(re.sub(r"[{}\s^_]", "", re.sub(r"\\[A-Za-z]+", "x", latex)))


class Typeset:
    """Rows of mathematics, each a caption and one or more formulas joined by ``=``.

    Build it with :func:`typeset`.  The Markdown form is a list with one item
    per row; the plain form has one row per line, ``caption: formula = formula``.
    """

    def __init__(self, rows: list[tuple[str, tuple]]):
        if isinstance(rows, (str, bytes)) or not isinstance(rows, (list, tuple)) or not rows:
            raise ValueError(f"rows must be a non-empty list of (caption, formulas) pairs, got {rows!r}")
        clean = []
        for i, row in enumerate(rows):
            if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str) and isinstance(row[1], tuple)
                    and row[1]):
                raise ValueError(f"rows[{i}] must be a pair (caption: str, formulas: non-empty tuple), got {row!r}")
            _prose(row[0])
            clean.append((row[0], tuple(_formula(part, f"rows[{i}]") for part in row[1])))
        self.rows = clean

    def _repr_markdown_(self) -> str:
        items = []
        for caption, parts in self.rows:
            latex = [_latex(part) for part in parts]
            if _visible_length(caption) + sum(_visible_length(s) + 1 for s in latex) <= INLINE_LIMIT:
                items.append(f"- {_prose(caption)}: ${' = '.join(latex)}$")
                continue
            lines = [rf"{latex[0]} &= {latex[1]}"] + [rf"&= {s}" for s in latex[2:]] if len(latex) > 1 else [latex[0]]
            body = r" \\ ".join(lines)
            items.append(f"- {_prose(caption)}:\n\n  $$\n  \\begin{{aligned}} {body} \\end{{aligned}}\n  $$")
        return "\n".join(items) + "\n"

    def __repr__(self) -> str:
        return "\n".join(f"{caption}: " + " = ".join(_plain(part) for part in parts) for caption, parts in self.rows)


def typeset(*rows) -> Typeset:
    """Show rows ``(caption, formula, formula, ...)`` as prose with mathematics.

    Each formula is a sympy expression (or number), or a string of LaTeX; the
    formulas of a row are joined by ``=``.  A caption is plain text in which
    ``$...$`` marks inline math.  Example: the residual of an identity and what
    it simplifies to,
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


def _cell(value, spec: str | None, name: str) -> str:
    """One formatted cell; ``None`` is an empty cell, text stays text, numbers follow ``spec``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if spec is None:
        return str(value)
    try:
        try:
            text = format(value, spec)
        except OverflowError:  # an integer beyond the float range under a float spec: format it exactly
            text = format(decimal.Decimal(value), spec)
    except (TypeError, ValueError, decimal.InvalidOperation):
        raise ValueError(f"{name}: format {spec!r} does not apply to {type(value).__name__} {value!r}") from None
    return "n/a" if isinstance(value, (float, np.floating)) and math.isnan(value) else text


def _check_caption_and_label(caption, label) -> None:
    for name, value in (("caption", caption), ("label", label)):
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise ValueError(f"{name} must be a non-empty string or None, got {value!r}")
    if label is not None and not re.fullmatch(r"[A-Za-z][\w-]*", label):
        raise ValueError(f"label must be letters, digits, '-' and '_' starting with a letter, got {label!r}")


def _plain_text(markdown: str) -> str:
    """A cell or header as plain text: math delimiters and escapes removed."""
    return markdown.replace("$", "").replace("\\|", "|")


class Table:
    """A table of numbers: header row, formatted body, optional caption and label.

    Build it with :func:`table`.  ``columns``, ``cells`` (strings, row by row),
    ``caption`` and ``label`` hold what was given, formatted.
    """

    def __init__(self, columns: list[str], cells: list[list[str]], numeric: list[bool],
                 caption: str | None, label: str | None):
        if not (isinstance(columns, list) and columns and all(isinstance(c, str) for c in columns)):
            raise ValueError(f"columns must be a non-empty list of header strings, got {columns!r}")
        if not (isinstance(cells, list) and cells and all(isinstance(r, list) and len(r) == len(columns)
                                                          and all(isinstance(c, str) for c in r) for r in cells)):
            raise ValueError(f"cells must be a non-empty list of rows of {len(columns)} strings, got {cells!r}")
        if not (isinstance(numeric, list) and len(numeric) == len(columns) and all(isinstance(v, bool) for v in numeric)):
            raise ValueError(f"numeric must be a list of {len(columns)} booleans (one per column), got {numeric!r}")
        _check_caption_and_label(caption, label)
        self.columns, self.cells, self.numeric, self.caption, self.label = columns, cells, numeric, caption, label

    def _repr_markdown_(self) -> str:
        def line(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        rule = "|" + "|".join("---:" if num else ":---" for num in self.numeric) + "|"
        body = "\n".join([line(self.columns), rule, *(line(row) for row in self.cells)])
        if self.caption is None and self.label is None:
            return body + "\n"
        options = f":name: {self.label}\n" if self.label else ""
        return f":::{{table}} {self.caption or ''}\n{options}\n{body}\n:::\n"

    def __repr__(self) -> str:
        rows = [[_plain_text(c) for c in self.columns], *([_plain_text(c) for c in row] for row in self.cells)]
        widths = [max(len(row[j]) for row in rows) for j in range(len(self.columns))]
        lines = ["   ".join(c.rjust(w) if num else c.ljust(w) for c, w, num in zip(row, widths, self.numeric)).rstrip()
                 for row in rows]
        if self.caption:
            lines.insert(0, _plain_text(self.caption))
        return "\n".join(lines)


def table(columns: Sequence[str], rows, *, formats: Sequence[str | None] | str | None = None,
          caption: str | None = None, label: str | None = None) -> Table:
    """A table of numbers that the book renders as a table, with a plain-text twin for nbval.

    Parameters
    ----------
    columns : sequence of str
        Header cells (Markdown; ``$...$`` for math).
    rows : iterable of sequences
        The body, one sequence of values per row, as long as ``columns``.  A
        value is a number (formatted by its column's spec), a string (shown as
        is), a bool (``yes``/``no``) or ``None`` (an empty cell); NaN shows as ``n/a``.
    formats : sequence of format specs, one spec for all columns, or None
        Format specification per column (``".3g"``, ``">6d"``, ``".2e"``, ...);
        ``None`` for a column means ``str``.
    caption, label : str, optional
        The caption (Markdown) and the label that ``{numref}`` refers to; with
        either, the Markdown form is a numbered MyST ``{table}``.
    """
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence) or not columns:
        raise ValueError(f"columns must be a non-empty sequence of header strings, got {columns!r}")
    if not all(isinstance(c, str) for c in columns):
        raise ValueError(f"columns must hold strings, got {columns!r}")
    n_cols = len(columns)
    if formats is None or isinstance(formats, str):
        formats = [formats] * n_cols
    if isinstance(formats, bytes) or not isinstance(formats, Sequence) or len(formats) != n_cols:
        raise ValueError(f"formats must be one format spec or a sequence of {n_cols} (one per column), got {formats!r}")
    if not all(f is None or isinstance(f, str) for f in formats):
        raise ValueError(f"formats must hold format spec strings or None, got {formats!r}")
    _check_caption_and_label(caption, label)
    if isinstance(rows, (str, bytes)):
        raise ValueError(f"rows must be an iterable of rows, got {rows!r}")
    try:
        rows = [list(row) for row in rows]
    except TypeError:
        raise ValueError(f"rows must be an iterable of sequences, got {rows!r}") from None
    if not rows:
        raise ValueError("rows must hold at least one row")
    for i, row in enumerate(rows):
        if len(row) != n_cols:
            raise ValueError(f"rows[{i}] has {len(row)} values, columns has {n_cols}")
    cells = [[_cell(v, spec, f"rows[{i}][{j}]") for j, (v, spec) in enumerate(zip(row, formats))]
             for i, row in enumerate(rows)]
    numeric = [all(v is None or (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool))
                   for v in (row[j] for row in rows)) for j in range(n_cols)]
    return Table(list(columns), cells, numeric, caption, label)


def agreement(method: str, scratch, companion, tol: float = 0.0) -> str:
    """The comparison line of a from-scratch cell: its result against the companion's.

    Parameters
    ----------
    method : str
        The method's name as the page gives it (``"BBSE (hard)"``).
    scratch, companion : array_like of numbers
        The two results, of one shape (a number, an array, or a tuple of
        numbers).  Infinities must sit at the same places; NaN is refused.
    tol : float, default 0.0
        The largest absolute difference the page states for this method.

    Returns
    -------
    str
        ``"<method>: from scratch and companion identical"`` when every entry is
        equal, ``"... agree to within <tol>"`` when the largest difference is at
        most ``tol``, else ``"... DIFFER by <d> (tolerance <tol>)"``.  The
        difference itself is printed only when it exceeds ``tol``, so the line
        does not depend on the last bits of a floating-point sum.

    Examples
    --------
    >>> agreement("mean", [0.1 + 0.2], [0.3], tol=1e-15)
    'mean: from scratch and companion agree to within 1e-15'
    >>> agreement("count", 3, 3)
    'count: from scratch and companion identical'
    """
    if not isinstance(method, str) or not method:
        raise ValueError(f"method must be a non-empty string, got {method!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or not 0 <= tol <= 1e300:
        raise ValueError(f"tol must be a number in [0, 1e300], got {tol!r}")
    arrays = {}
    for name, value in (("scratch", scratch), ("companion", companion)):
        try:
            arrays[name] = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numbers or an array of numbers, got {type(value).__name__}") from None
        if np.isnan(arrays[name]).any():
            raise ValueError(f"{name} holds NaN; a comparison needs numbers")
    a, b = arrays["scratch"], arrays["companion"]
    if a.shape != b.shape:
        raise ValueError(f"scratch has shape {a.shape} and companion {b.shape}; they must agree")
    if not np.array_equal(np.isinf(a) & (a > 0), np.isinf(b) & (b > 0)) or not np.array_equal(np.isinf(a) & (a < 0), np.isinf(b) & (b < 0)):
        return f"{method}: from scratch and companion DIFFER (infinities at different places)"
    if np.array_equal(a, b):
        return f"{method}: from scratch and companion identical"
    finite = np.isfinite(a)
    largest = float(np.max(np.abs(a[finite] - b[finite])))
    if largest <= tol:
        return f"{method}: from scratch and companion agree to within {tol:g}"
    return f"{method}: from scratch and companion DIFFER by {largest:.3g} (tolerance {tol:g})"
