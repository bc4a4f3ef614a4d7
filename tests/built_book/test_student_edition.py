"""The two editions of the exercises: the book with collapsed solutions, the student edition without.

That no file of the student edition holds a solution is checked in ``test_student_leaks.py``.
"""

import re

import pytest
from bs4 import BeautifulSoup

from conftest import BUILD, toc_files
from html_checker import site_problems

STUDENT = BUILD / "student" / "_build" / "html"


def exercise_labels(html_root, page: str) -> list[str]:
    soup = BeautifulSoup((html_root / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    return [box.get("id") for box in soup.select("div.exercise")]


@pytest.fixture(scope="module")
def student_root():
    if not STUDENT.is_dir():
        pytest.fail(f"{STUDENT} does not exist: run `make book-student` first")
    return STUDENT


def test_every_chapter_has_exercises(html_root):
    chapters = [f for f in toc_files() if re.search(r"/ch\d\d_", f)]
    bare = [f for f in chapters if not exercise_labels(html_root, f)]
    assert chapters and not bare, f"chapters without exercise boxes: {bare}"


def test_student_edition_keeps_every_exercise_and_drops_every_solution(html_root, student_root):
    for page in toc_files():
        assert exercise_labels(student_root, page) == exercise_labels(html_root, page), page
    problems = site_problems(student_root, solutions=False)
    assert not problems, "\n".join(problems)


def _page_text(html_root, page: str) -> str:
    soup = BeautifulSoup((html_root / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    return " ".join(soup.select_one("article").get_text(" ").split())


def test_each_edition_says_where_its_solutions_are(html_root, student_root):
    """The full intro promises collapsed solutions; the student edition says it has none and promises none."""
    full, student = _page_text(html_root, "book/intro"), _page_text(student_root, "book/intro")
    assert "collapsed box" in full and "This is the student edition" not in full
    assert "This is the student edition" in student and "empty answer cell" in student
    promises = [page for page in toc_files() if re.search(r"collapsed (box|solution|dropdown)",
                                                          _page_text(student_root, page), re.I)]
    assert not promises, f"student pages that promise collapsed solutions: {promises}"
    assert "empty answer cell" in _page_text(student_root, "book/run_the_code")


#: What, in a page's opening, speaks to an instructor or about the book's machinery rather than to a student.
_INSTRUCTOR_WORDS = re.compile(r"\binstructors?\b|\badopts?\b|\bin class\b|course/|book/_ext|plan\.yml", re.I)


def opening_text(html: str) -> str:
    """The text between a page's title and its first section: what the page says first."""
    title = BeautifulSoup(html, "html.parser").select_one("article h1")
    parts = []
    for node in title.find_next_siblings():
        if node.name == "section":
            break
        parts.append(node.get_text(" "))
    return " ".join(" ".join(parts).split())


def test_the_student_teaching_page_opens_for_a_student(html_root, student_root):
    """*Teaching with this book* opens for an instructor in the full edition and for a student in the student edition."""
    page = "book/teaching"
    full = opening_text((html_root / f"{page}.html").read_text(encoding="utf-8"))
    student = opening_text((student_root / f"{page}.html").read_text(encoding="utf-8"))
    assert _INSTRUCTOR_WORDS.search(full), f"the full edition's opening no longer addresses the instructor: {full[:200]}"
    found = sorted({m.group(0) for m in _INSTRUCTOR_WORDS.finditer(student)})
    assert student and not found, f"the student edition's opening addresses the instructor ({found}): {student[:300]}"
    assert re.search(r"\byou(r)?\b", student, re.I), f"the student edition's opening does not speak to the student: {student[:300]}"
