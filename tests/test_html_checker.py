"""The checker of the built HTML (tests/html_checker.py) catches what the strict build lets through.

Each case builds a two-page MyST site with the same Sphinx extensions as the
book, so the HTML is what the real parser makes of the broken source.
"""

import textwrap
from pathlib import Path

import pytest
from sphinx.cmd.build import build_main

from html_checker import page_problems, site_problems

BOOK_EXT = Path(__file__).resolve().parents[1] / "book" / "_ext"

CONF = f"""
import sys
sys.path.insert(0, {str(BOOK_EXT)!r})
extensions = ["myst_parser", "sphinx_proof", "sphinx_exercise", "student"]
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath"]
numfig = True
html_theme = "basic"
"""

THEOREM = """
# Results

```{prf:theorem} A bound
:label: thm-bound

Every $x$ is at most $1$.
```

$$ a = b $$ (eq-ab)

```{figure} picture.png
:name: fig-picture

A picture.
```
"""


def build(tmp_path, second_page: str, student: bool = False) -> list[str]:
    """Build ``index.md`` (a theorem, an equation, a figure) and ``page.md``; return the checker's findings.

    ``student`` builds the student edition (book/_ext/student.py) and checks it as one.
    """
    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(CONF + f"student_edition = {student}\n")
    (src / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (src / "index.md").write_text(THEOREM + "\n```{toctree}\npage\n```\n")
    (src / "page.md").write_text(textwrap.dedent(second_page))
    out = tmp_path / "html"
    assert build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    return site_problems(out, solutions=not student)


CLEAN = """
# Page

{prf:ref}`thm-bound` holds, see {eq}`eq-ab` and {numref}`fig-picture`.

:::{prf:proof}
The proof of {prf:ref}`thm-bound` is short.
:::

## After the proof

Text.
"""


def test_clean_site_has_no_problems(tmp_path):
    assert build(tmp_path, CLEAN) == []


def test_backtick_fence_with_a_role_is_caught(tmp_path):
    broken = CLEAN.replace(":::{prf:proof}\nThe proof", "```{prf:proof} of {prf:ref}`thm-bound`\nThe proof").replace(
        "short.\n:::", "short.\n```"
    )
    problems = build(tmp_path, broken)
    assert any("unparsed MyST '```'" in p for p in problems)
    assert any("a fence swallowed prose" in p for p in problems)


def test_doubled_reference_word_is_caught(tmp_path):
    problems = build(tmp_path, CLEAN.replace("{prf:ref}`thm-bound` holds", "Theorem {prf:ref}`thm-bound` holds"))
    assert [p for p in problems if "doubled reference word 'Theorem Theorem'" in p]


def test_unparsed_role_is_caught(tmp_path):
    problems = build(tmp_path, CLEAN.replace("{eq}`eq-ab`", "{eq} `eq-ab`"))
    assert any("unparsed role or directive '{eq}'" in p for p in problems)


def test_unreferenced_figure_is_caught(tmp_path):
    problems = build(tmp_path, CLEAN.replace(" and {numref}`fig-picture`", ""))
    assert any("figure 'fig-picture' is never referenced" in p for p in problems)


@pytest.mark.parametrize(
    ("href", "message"),
    [("#missing", "missing label"), ("other.html#x", "missing page"), ("index.html#nowhere", "missing label")],
)
def test_dangling_internal_links_are_caught(href, message):
    html = f'<html><body><article class="bd-article"><p>see <a href="{href}">it</a></p></article></body></html>'
    anchors = {"index.html": {"thm-bound"}, "page.html": set()}
    problems = page_problems(html, "page.html", anchors)
    assert len(problems) == 1 and message in problems[0]


def test_empty_site_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="root holds no HTML pages"):
        site_problems(tmp_path)


EXERCISES = """
# Page

See {numref}`fig-picture`.

## Exercises

:::{exercise} (basic) A square
:label: ex-square

*Basic.* Show that $x^2 \\ge 0$.
:::

:::{solution} ex-square
:class: dropdown

SOLUTION-TEXT: a square of a real number is a product of two numbers of the same sign.
:::
"""


def test_exercise_with_collapsed_solution_passes_and_the_student_edition_refuses_it(tmp_path, capsys):
    """The student edition is built from sources without solutions (book/_ext/student_source.py);
    book/_ext/student.py stops its build on a solution left in them."""
    assert build(tmp_path / "full", EXERCISES) == []
    assert "SOLUTION-TEXT" in (tmp_path / "full" / "html" / "page.html").read_text()
    without = EXERCISES[: EXERCISES.index(":::{solution}")]
    assert build(tmp_path / "student", without, student=True) == []
    assert "A square" in (tmp_path / "student" / "html" / "page.html").read_text()
    with pytest.raises(AssertionError):
        build(tmp_path / "leaky", EXERCISES, student=True)
    assert "page still has a solution" in capsys.readouterr().err


def test_full_edition_checked_as_student_edition_is_caught():
    html = (
        '<html><body><article class="bd-article"><section id="exercises">'
        '<div class="exercise admonition" id="ex-a"><p>Basic. Q</p></div>'
        '<div class="solution dropdown admonition" id="s"><p class="admonition-title"><a href="#ex-a">S</a></p></div>'
        "</section></article></body></html>"
    )
    assert page_problems(html, "page.html") == []
    assert any("student edition shows a solution" in p for p in page_problems(html, "page.html", solutions=False))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda page: page.replace(":class: dropdown\n", ""), "is not collapsed"),
        (lambda page: page[: page.index(":::{solution}")], "has no solution"),
        (lambda page: page.replace("*Basic.* ", ""), "does not start with its level"),
        (lambda page: page[: page.index(":::{exercise}")] + "1. Show that squares are non-negative.\n", "lists exercises outside"),
    ],
    ids=["solution-open", "no-solution", "no-level", "bare-list"],
)
def test_exercise_problems_are_caught(tmp_path, change, message):
    problems = build(tmp_path, change(EXERCISES))
    assert any(message in p for p in problems), problems


def test_reference_to_a_title_with_math_is_caught(tmp_path):
    page = CLEAN + "\n(sec-rule)=\n## The $n^{1/3}$ rule\n\nSee {ref}`sec-rule`.\n"
    problems = build(tmp_path, page)
    assert any("TeX outside math" in p and "n^{1/3}" in p for p in problems), problems


def test_a_table_broken_by_a_comment_line_is_caught(tmp_path):
    table = "\n| a | b |\n|---|---|\n| 1 | 2 |\n<!-- more rows -->\n| 3 | 4 |\n"
    assert build(tmp_path, CLEAN + table.replace("<!-- more rows -->\n", "")) == []
    problems = build(tmp_path / "broken", CLEAN + table)
    assert any("a Markdown table left as text" in p and "| 3 | 4 |" in p for p in problems), problems
