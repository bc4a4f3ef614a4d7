"""No figure of the book sets text smaller than the browser test assumes (tests/browser_checker.py, FIGURE_TEXT_PT).

The browser test measures a figure's smallest text as ``FIGURE_TEXT_PT`` at the
PNG's dpi; that holds only if every font size of every figure is at least that:
the sizes of the book's matplotlib style (``companion.plotting.BOOK_STYLE``) and
every ``fontsize=`` / ``labelsize=`` a chapter's code sets, numbers and named
sizes ("small" is 0.833 of ``font.size``) alike.
"""

import json
import re
from pathlib import Path

from matplotlib.font_manager import font_scalings

from browser_checker import FIGURE_TEXT_PT
from companion.plotting import BOOK_STYLE

BOOK = Path(__file__).resolve().parents[1] / "book"
#: A font size set in code: ``fontsize=7.5``, ``labelsize="small"``, ``prop={"size": 8}``.
SIZE = re.compile(r"""(?:fontsize|labelsize|["']size["']\s*:)\s*=?\s*(?:([0-9.]+)|["']([a-z-]+)["'])""")


def font_sizes(code: str, base: float) -> list[float]:
    """Every font size ``code`` sets, in points (named sizes relative to ``base``)."""
    return [float(number) if number else font_scalings[name] * base for number, name in SIZE.findall(code)]


def style_sizes() -> dict[str, float]:
    base = BOOK_STYLE["font.size"]
    return {key: (value if isinstance(value, (int, float)) else font_scalings[value] * base)
            for key, value in BOOK_STYLE.items() if key.endswith(("font.size", "fontsize", "labelsize", "titlesize"))}


def test_book_style_sizes_are_not_below_the_smallest_text():
    sizes = style_sizes()
    assert sizes and min(sizes.values()) >= FIGURE_TEXT_PT, sizes


def test_no_chapter_sets_a_smaller_font():
    base, found = BOOK_STYLE["font.size"], []
    for path in sorted(BOOK.glob("ch*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] == "code":
                found += [(f"{path.stem} cell {i}", size) for size in font_sizes("".join(cell["source"]), base)]
    assert found, "no font size found in any chapter: the pattern no longer matches the book's code"
    small = [f"{where}: {size:g} pt" for where, size in found if size < FIGURE_TEXT_PT]
    assert not small, f"figure text below {FIGURE_TEXT_PT} pt (the browser test assumes no smaller):\n" + "\n".join(small)


def test_planted_small_sizes_are_found():
    code = 'ax.legend(fontsize=5)\nax.tick_params(labelsize="xx-small")\nax.legend(prop={"size": 6.5})\nn = size=2000'
    assert font_sizes(code, 10.0) == [5.0, font_scalings["xx-small"] * 10.0, 6.5]
