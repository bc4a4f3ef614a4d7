"""The page variants of ``benchmarks/bench_page_parts.py`` remove what they name and nothing else (planted page)."""

import sys
import unicodedata
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_page_parts as parts  # noqa: E402

FORMULA = ('<mjx-container class="MathJax"><mjx-math class=" MJX-TEX" aria-hidden="true"><mjx-mi class="mjx-i">'
           '<mjx-c class="mjx-c1D465 TEX-I"></mjx-c></mjx-mi><mjx-script style="vertical-align: 0.4em;"><mjx-mn class="mjx-n">'
           '<mjx-c class="mjx-c32"></mjx-c></mjx-mn></mjx-script></mjx-math><mjx-assistive-mml><math><msup><mi>x</mi><mn>2'
           '</mn></msup></math></mjx-assistive-mml></mjx-container>')
PAGE = (f'<html><head><title>t</title></head><body><article class="bd-article"><section id="c"><h1>Chapter</h1>'
        f'<p class="lead">Lead {FORMULA}.</p>'
        f'<section id="s1"><h2>One</h2><p>a</p></section>'
        f'<section id="s2"><h2>Two</h2><div class="theorem">{FORMULA}</div><div class="proof">p</div><p>after</p>'
        f'</section></section></article><p class="outside" style="color: red">{FORMULA}</p></body></html>')


def test_each_variant_removes_what_it_names():
    soup = BeautifulSoup(parts.no_formulas(PAGE), "html.parser")
    assert not soup.find_all("mjx-container") and "Lead x." in soup.get_text()

    soup = BeautifulSoup(parts.no_assistive_mathml(PAGE), "html.parser")
    assert not soup.find_all("mjx-assistive-mml") and len(soup.find_all("mjx-math")) == 3

    soup = BeautifulSoup(parts.no_attributes_in_formulas(PAGE), "html.parser")
    assert all(not e.attrs for f in soup.find_all("mjx-container") for e in f.find_all(True) if e.name.startswith("mjx-"))
    assert soup.find("p", class_="outside")["style"] == "color: red" and soup.find_all("mjx-container", class_="MathJax")

    soup = BeautifulSoup(parts.glyphs_as_text(PAGE), "html.parser")
    glyphs = [g.get_text() for g in soup.find_all("mjx-c")]
    assert [unicodedata.name(g) for g in glyphs[:2]] == ["MATHEMATICAL ITALIC SMALL X", "DIGIT TWO"]
    assert "content: none" in soup.head.style.get_text()


def test_the_one_theorem_page_keeps_the_title_and_the_first_blocks_of_one_section():
    soup = BeautifulSoup(parts.one_theorem(PAGE, section=2, blocks=2), "html.parser")
    article = soup.select_one("article")
    assert [e.name for e in article.section.find_all(recursive=False)] == ["h1", "section"]
    assert [e.get("class", [e.name])[0] for e in article.section.section.find_all(recursive=False)] == ["h2", "theorem", "proof"]
    assert soup.find("p", class_="outside")  # outside the article: untouched
    with pytest.raises(ValueError, match="section must be in 1..2"):
        parts.one_theorem(PAGE, section=3, blocks=2)


def test_the_font_faces_and_only_they_are_dropped():
    css = '@font-face /* 0 */ {\n  font-family: MJXZERO;\n  src: url("a.woff");\n}\n\nmjx-c::before { display: block; }\n@font-face {\n src: url("b.woff");\n}\n'
    assert parts._FONT_FACE.sub("", css).split() == ["mjx-c::before", "{", "display:", "block;", "}"]
