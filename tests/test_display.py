"""The typeset display of sympy results and the power-of-ten labels of the figures."""

import pytest
import sympy as sp

from companion.display import table, typeset
from companion.plotting import power_of_ten


def test_typeset_markdown_and_plain_forms_agree_with_sympy():
    x = sp.Symbol("x")
    shown = typeset(("root of h*(z)", sp.sqrt(x) / 2, 0), ("given as $\\LaTeX$", r"\alpha", x**2))
    markdown = shown._repr_markdown_()
    assert f"- root of h\\*(z): ${sp.latex(sp.sqrt(x) / 2)} = 0$" in markdown  # '*' escaped, math inline
    assert "- given as $\\LaTeX$: $\\alpha = x^{2}$" in markdown
    assert repr(shown).splitlines() == ["root of h*(z): sqrt(x)/2 = 0", "given as $\\LaTeX$: \\alpha = x**2"]


def test_typeset_long_rows_become_displayed_math_one_equals_per_line():
    x = sp.Symbol("x")
    expanded = sp.expand((x + 1) ** 8)
    markdown = typeset(("the binomial theorem at power eight", expanded, (x + 1) ** 8, 0))._repr_markdown_()
    display = markdown.split("$$")[1]
    assert display.count("&=") == 2 and display.count(r"\\") == 1
    assert sp.latex(expanded) in display and sp.latex((x + 1) ** 8) in display


def test_typeset_rejects_unmatched_dollar_in_caption():
    with pytest.raises(ValueError, match="unmatched"):
        typeset(("costs $5", "x", 0))


def test_table_markdown_is_a_numbered_table_and_plain_text_aligns():
    shown = table(["$n$", "method", "risk"], [[1000, "uniform mass", 0.012345], [10**7, "a | b", float("nan")]],
                  formats=["d", None, ".3g"], caption="Risks at two sizes", label="tab-risks")
    lines = shown._repr_markdown_().splitlines()
    assert lines[:2] == [":::{table} Risks at two sizes", ":name: tab-risks"] and lines[-1] == ":::"
    assert lines[3:6] == ["| $n$ | method | risk |", "|---:|:---|---:|", "| 1000 | uniform mass | 0.0123 |"]
    assert lines[6] == "| 10000000 | a \\| b | n/a |"
    assert repr(shown).splitlines() == [
        "Risks at two sizes",
        "       n   method" + " " * 11 + "risk",
        "    1000   uniform mass   0.0123",
        "10000000   a | b" + " " * 13 + "n/a",
    ]


def test_table_without_caption_is_a_bare_pipe_table():
    assert table(["a"], [[1]])._repr_markdown_() == "| a |\n|---:|\n| 1 |\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(columns=[], rows=[[1]]), "columns"),
        (dict(columns=["a", "b"], rows=[[1]]), r"rows\[0\] has 1 values"),
        (dict(columns=["a"], rows=[]), "rows must hold"),
        (dict(columns=["a"], rows=[[1]], formats=[".2f", ".2f"]), "formats"),
        (dict(columns=["a"], rows=[["x"], [1.5]], formats="d"), r"rows\[1\]\[0\]"),
        (dict(columns=["a"], rows=[[1]], label="has space"), "label"),
        (dict(columns=["a"], rows=[[1]], caption=""), "caption"),
    ],
)
def test_table_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        table(**kwargs)


@pytest.mark.parametrize("rows", [(), (("caption only",),), ((1, 2),), (["a", 1],)])
def test_typeset_rejects_malformed_rows(rows):
    with pytest.raises(ValueError, match="rows"):
        typeset(*rows)


@pytest.mark.parametrize(
    ("x", "label"),
    [(100, "$10^{2}$"), (1e7, "$10^{7}$"), (3e4, r"$3\cdot 10^{4}$"), (31622.8, r"$3.2\cdot 10^{4}$"),
     (9.99e3, "$10^{4}$"), (0.01, "$10^{-2}$"), (6, "$6$")],
)
def test_power_of_ten_labels(x, label):
    assert power_of_ten(x) == label


@pytest.mark.parametrize("x", [0, -1.0, float("nan"), float("inf")])
def test_power_of_ten_rejects_non_positive(x):
    with pytest.raises(ValueError, match="x must be a finite positive number"):
        power_of_ten(x)
