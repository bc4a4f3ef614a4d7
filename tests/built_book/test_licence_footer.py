"""Every page of both editions states the licence in its footer (``html: extra_footer`` of ``_config.yml``)."""

import pytest
from bs4 import BeautifulSoup

from conftest import BUILD, HTML, toc_files

EDITIONS = {"full": HTML, "student": BUILD / "student" / "_build" / "html"}


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_page_has_the_licence_in_its_footer(edition):
    root = EDITIONS[edition]
    if not root.is_dir():
        pytest.fail(f"{root} does not exist: run `make strict-book` and `make book-student` first")
    bare = []
    for page in toc_files(sections=True):
        soup = BeautifulSoup((root / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
        footer = soup.select_one("footer.bd-footer-content")  # the theme's page footer
        links = {a.get("href") for a in footer.select("a")} if footer else set()
        text = " ".join(footer.get_text(" ").split()) if footer else ""
        if not ("https://creativecommons.org/licenses/by/4.0/" in links and "CC BY 4.0" in text
                and "BSD 3-Clause" in text):
            bare.append(page)
    assert not bare, f"pages of the {edition} edition without the licence in the footer: {bare}"
