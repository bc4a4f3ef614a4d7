"""Shared paths of the built book for the tests that read it.

``BOOK_BUILD`` names the build directory (the one that holds ``html/``) to
read; by default ``<repo>/_build``, where ``make book`` writes.
"""

import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BOOK_BUILD", ROOT / "_build")).resolve()
HTML = BUILD / "html"


def toc_files(*, sections: bool = False) -> list[str]:
    """Every page named in ``_toc.yml`` (root and chapters; with ``sections``, their sections too), as paths without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def add(entries):
        for entry in entries:
            files.append(entry["file"])
            if sections:
                add(entry.get("sections", []))

    for part in toc.get("parts", []):
        add(part["chapters"])
    return files


@pytest.fixture(scope="session")
def html_root() -> Path:
    if not HTML.is_dir():
        pytest.fail(f"{HTML} does not exist: run `make strict-book` first (or set BOOK_BUILD to a build directory)")
    return HTML
