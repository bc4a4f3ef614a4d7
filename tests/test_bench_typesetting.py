"""The page cut of ``benchmarks/bench_typesetting.py --sections``: each section of a chapter page on a page of its own.

The expected pages are put together here from the planted page's pieces, not by the cut.
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_typesetting import cut_at_sections  # noqa: E402

HEAD = '<html><head><title>3. Chapter</title></head><body><nav>sidebar</nav><article class="bd-article" role="main">\n'
TOP = '<section id="chapter">'
H1 = '<h1>3. Chapter<a class="headerlink" href="#chapter">#</a></h1>'
LEAD = '<span id="chap-label"></span><p>Opening text with <span class="math">\\(x\\)</span>.</p>'
SECTIONS = [
    '<section id="one"><h2>3.1. One</h2><p>First.</p><section id="one-a"><h3>3.1.1. Sub</h3><p>a</p></section></section>',
    '<section id="two"><h2>3.2. Two</h2><div class="cell"><pre>&lt;section&gt; in code</pre></div></section>',
    '<section id="three"><h2>3.3. Three</h2><section id="three-a"><h3>Sub</h3></section>'
    '<section id="three-b"><h3>Sub</h3></section></section>',
]
TAIL = "</article><footer>prev / next</footer></body></html>"


def test_each_section_gets_a_page_with_the_chapter_title_and_the_first_keeps_the_opening_text():
    page = HEAD + TOP + H1 + LEAD + "\n".join(SECTIONS) + "\n</section>\n" + TAIL
    pages = cut_at_sections(page)
    assert pages == [
        HEAD + TOP + H1 + LEAD + SECTIONS[0] + "</section>\n" + TAIL,
        HEAD + TOP + H1 + SECTIONS[1] + "</section>\n" + TAIL,
        HEAD + TOP + H1 + SECTIONS[2] + "</section>\n" + TAIL,
    ]


def test_a_page_of_one_section_stays_whole_and_a_page_without_an_article_is_refused():
    page = HEAD + TOP + H1 + LEAD + SECTIONS[0] + "</section>" + TAIL
    assert cut_at_sections(page) == [page]
    with pytest.raises(ValueError, match="article"):
        cut_at_sections("<html><body><section><h1>x</h1></section></body></html>")
    with pytest.raises(ValueError, match="not closed"):
        cut_at_sections(HEAD + TOP + H1 + SECTIONS[0] + SECTIONS[1] + TAIL)
