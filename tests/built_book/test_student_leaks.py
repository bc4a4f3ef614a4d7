"""No file of the student edition holds any part of a solution; its notebooks keep every exercise and run.

The solutions and their distinctive fragments are read from the full notebooks by
``tests/solution_leaks.py`` (independently of ``book/_ext/student_source.py``, which writes the
student edition); every file of the student build (``BOOK_BUILD``/student: the pages, ``_sources``
behind the download button, the search index and texts, scripts, images, the executed notebooks,
the doctrees, the wheel in ``code/``) is searched for each of them.  That the search finds a
planted solution is proven in ``tests/test_solution_leaks.py``.
"""

import json
import re
import time

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient

from conftest import BUILD, toc_files
from solution_leaks import chapter_notebooks, collect_solutions, leaks

STUDENT_BUILD = BUILD / "student"
SOURCES = STUDENT_BUILD / "_build" / "html" / "_sources" / "book"
CHAPTERS = chapter_notebooks()


@pytest.fixture(scope="module")
def solutions():
    return collect_solutions(CHAPTERS)


@pytest.fixture(scope="module")
def student_build():
    if not SOURCES.is_dir():
        pytest.fail(f"{SOURCES} does not exist: run `make book-student` first")
    return STUDENT_BUILD


def test_every_solution_of_the_full_book_is_searched(html_root, solutions):
    """As many solutions read from the notebooks as solution boxes in the full book, each with fragments."""
    boxes = sum(len(BeautifulSoup((html_root / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
                    .select("div.solution")) for page in toc_files())
    assert solutions.count == boxes > 0
    searched = {name for name in solutions.fragments.values()}
    assert len(searched) == solutions.count, "solutions without a distinctive fragment"
    print(f"{len(solutions.fragments)} fragments of {solutions.count} solutions, {len(solutions.images)} images")


def test_no_file_of_the_student_edition_holds_a_solution(student_build, solutions):
    start = time.perf_counter()
    hits = leaks(student_build, solutions)
    print(f"searched {student_build} in {time.perf_counter() - start:.0f} s: {len(hits)} hits")
    assert not hits, f"{len(hits)} solution fragments in the student edition:\n" + "\n".join(hits[:50])


def _exercise_labels(text: str) -> list[str]:
    return re.findall(r"^[`:]{3,}\{exercise\}[^\n]*\n:label: (\S+)", text, re.M)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_downloaded_notebook_keeps_each_exercise_followed_by_an_empty_answer_cell(student_build, chapter):
    full = "\n".join("".join(c["source"]) for c in json.loads(chapter.read_text())["cells"])
    with_solution = set(re.findall(r"\{solution(?:-start)?\}\s+(\S+)", full))
    cells = json.loads((SOURCES / chapter.name).read_text())["cells"]
    student = "\n".join("".join(c["source"]) for c in cells)
    assert _exercise_labels(student) == _exercise_labels(full)
    assert "{solution" not in student
    for label in _exercise_labels(full):
        at = next(i for i, c in enumerate(cells) if f":label: {label}\n" in "".join(c["source"]))
        answer = cells[at + 1] if at + 1 < len(cells) else None
        if label in with_solution:
            assert answer is not None and "answer" in answer["metadata"].get("tags", []), label
            assert not "".join(answer["source"]) and not answer.get("outputs"), label


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_downloaded_notebook_runs_top_to_bottom(student_build, chapter, tmp_path):
    """The notebook the download button serves runs in a fresh kernel, in a folder of its own."""
    notebook = nbformat.read(SOURCES / chapter.name, as_version=4)
    NotebookClient(notebook, timeout=1200, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
