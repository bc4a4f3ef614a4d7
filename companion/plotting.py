"""One figure style for the whole book, and the plotting helpers chapters share.

Chapters call :func:`use_book_style` once in their set-up cell; every helper
takes an optional ``ax`` and returns it, so figures compose.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from ._checks import as_probabilities, as_real_array, check_bool, check_int, check_positive

__all__ = ["BOOK_STYLE", "COLORS", "LINESTYLES", "use_book_style", "power_of_ten", "reliability_diagram", "band_plot"]


#: A colour-blind-safe cycle (Okabe-Ito) used by every figure of the book.
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


#: Line styles to pair with :data:`COLORS` when a figure has more curves than are easy to tell apart by colour.
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 2, 2))]


#: The matplotlib settings of every figure of the book (applied by :func:`use_book_style`).
BOOK_STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.6,
    "axes.prop_cycle": mpl.cycler(color=COLORS),
    "svg.hashsalt": "book",
}


def use_book_style() -> None:
    """Apply the book's matplotlib style globally.

    Inside a Jupyter kernel this also selects the inline backend, so figures
    are stored in the notebook even when ``MPLBACKEND`` names a non-GUI
    backend such as Agg (which would make ``plt.show()`` a no-op).
    """
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: keep the current backend
        get_ipython = lambda: None  # noqa: E731
    shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        shell.run_line_magic("matplotlib", "inline")
    mpl.rcParams.update(BOOK_STYLE)


def power_of_ten(x) -> str:
    r"""Format a positive number for a legend or tick label in math: ``1000`` -> ``$10^{3}$``, ``3e4`` -> ``$3\cdot 10^{4}$``.

    The mantissa is rounded to two significant digits; a mantissa of 1 and a power :math:`10^0` are left out.
    """
    x = check_positive(x, "x")  # rejects strings ("1e3"), bool, complex and integers too large for a float
    digits, power = f"{x:.1e}".split("e")  # two significant digits, the carry done by the formatting (9.99e3 -> 1.0e+04)
    mantissa, exponent = float(digits), int(power)  # no division by 10**exponent: it is 0 for a subnormal x
    if exponent == 0:
        return f"${mantissa:g}$"
    if mantissa == 1:
        return rf"$10^{{{exponent}}}$"
    return rf"${mantissa:g}\cdot 10^{{{exponent}}}$"


def _check_ax(ax) -> Axes:
    """``ax`` if it is a matplotlib ``Axes``; a new figure's axes if it is None."""
    if ax is None:
        _, ax = plt.subplots()
        return ax
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _check_curve(curve):
    """The arrays of a :class:`companion.calibration_sharpness.ReliabilityCurve`, checked; a ValueError naming ``curve`` otherwise."""

    fields = ("edges", "mean_forecast", "frequency", "counts")
    if not all(hasattr(curve, field) for field in fields):
        raise ValueError(f"curve must be a ReliabilityCurve (from companion.calibration_sharpness.reliability_curve) "
                         f"or hold its fields {', '.join(fields)}; got {type(curve).__name__}")
    edges = as_probabilities(curve.edges, "curve.edges")
    counts = as_real_array(curve.counts, "curve.counts")
    n_bins = edges.size - 1
    if n_bins < 1 or np.any(np.diff(edges) < 0):
        raise ValueError("curve.edges must be at least two non-decreasing entries")
    if counts.size != n_bins or np.any(counts < 0):
        raise ValueError(f"curve.counts must hold {n_bins} non-negative counts, one per bin")
    if not np.any(counts > 0):
        raise ValueError("curve must have at least one non-empty bin")
    mean_forecast = np.asarray(curve.mean_forecast, dtype=float)
    frequency = np.asarray(curve.frequency, dtype=float)
    filled = counts > 0
    for name, arr in (("mean_forecast", mean_forecast), ("frequency", frequency)):
        if arr.shape != (n_bins,):
            raise ValueError(f"curve.{name} must hold {n_bins} entries, one per bin")
        # empty bins hold NaN by design (no forecasts to average); filled bins must be probabilities
        as_probabilities(arr[filled], f"curve.{name} (non-empty bins)")
    return edges, mean_forecast, frequency, counts


def reliability_diagram(curve, *, ax=None, label=None, color=None, show_counts=True, reference=True):
    """Draw a reliability diagram from a :func:`companion.calibration_sharpness.reliability_curve` result.

    Observed frequency is plotted against the mean forecast of each non-empty
    bin; the diagonal is perfect calibration.  With ``show_counts`` a small
    histogram of the bin counts is drawn along the bottom.
    """
    edges, mean_forecast, frequency, counts = _check_curve(curve)
    show_counts = check_bool(show_counts, "show_counts")
    reference = check_bool(reference, "reference")
    ax = _check_ax(ax)
    filled = counts > 0
    if reference:
        ax.plot([0, 1], [0, 1], color="0.5", lw=1, ls=":", label="perfect calibration")
    (line,) = ax.plot(mean_forecast[filled], frequency[filled], "o-", ms=3.5, label=label, color=color)
    if show_counts:
        share = counts / counts.sum()
        widths = np.diff(edges)
        ax.bar(edges[:-1], 0.25 * share / share.max(), width=widths, align="edge",
               color=line.get_color(), alpha=0.18, lw=0)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("forecast $z$")
    ax.set_ylabel("observed frequency of $Y=1$")
    return ax


def band_plot(x, values, *, ax=None, label=None, color=None, axis=-1, quantiles=(0.0, 1.0), **kw):
    """Plot the mean of ``values`` along ``axis`` with a band between two quantiles.

    ``values`` holds repetitions along ``axis``; the band runs from the lower
    to the upper quantile (by default the min and the max over repetitions).
    """
    x = as_real_array(x, "x")
    values = as_real_array(values, "values", ndim=2)
    axis = check_int(axis, "axis", minimum=-2, maximum=1)
    quantiles = as_probabilities(quantiles, "quantiles")
    if quantiles.size != 2 or quantiles[0] > quantiles[1]:
        raise ValueError(f"quantiles must be two levels (lower, upper) in [0, 1] with lower <= upper, got {quantiles.tolist()}")
    if values.shape[axis] == 0 or values.shape[1 - axis % 2] != x.size:
        raise ValueError(f"values must have shape (len(x), n_reps) with repetitions along axis={axis}, "
                         f"got values of shape {values.shape} for x of length {x.size}")
    ax = _check_ax(ax)
    mean = values.mean(axis=axis)
    lo, hi = np.quantile(values, quantiles, axis=axis)
    try:
        (line,) = ax.plot(x, mean, label=label, color=color, **kw)
    except (AttributeError, TypeError) as exc:  # matplotlib's own words on a keyword it does not know
        raise ValueError(f"kw must hold keywords of matplotlib's Axes.plot; {exc}") from None
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    return ax
