"""The built page *Teaching with this book* against the chapters' exercises.

Every exercise of every chapter must have a row in the plan, linked to the exercise on its
chapter's page, and the plan must link to no exercise that does not exist.
"""
from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from exercises import chapter_notebooks, read_exercises  # noqa: E402


def book_exercises(root: Path = ROOT) -> set[tuple[str, str]]:
    """(chapter stem, exercise label) of every exercise in the notebooks."""
    return {(nb.stem, ex.label) for nb in chapter_notebooks(root) for ex in read_exercises(nb)}


def plan_exercises(page_html: str) -> set[tuple[str, str]]:
    """(chapter stem, exercise label) of every exercise a row of the plan's tables links to."""
    soup = BeautifulSoup(page_html, "html.parser")
    out = set()
    for link in soup.select("article table a[href]"):
        parts = urlsplit(link["href"])
        if parts.fragment.startswith("ex-"):
            out.add((Path(parts.path).stem, parts.fragment))
    return out


def plan_problems(page_html: str, exercises: set[tuple[str, str]]) -> list[str]:
    """Exercises missing from the plan, and exercises the plan names that do not exist."""
    named = plan_exercises(page_html)
    return ([f"exercise {label} of {chapter} is missing from the course plan" for chapter, label in sorted(exercises - named)]
            + [f"the course plan names {label} of {chapter}, which does not exist" for chapter, label in sorted(named - exercises)])
