"""The leak search of the student edition (``tests/solution_leaks.py``) finds a planted solution.

Fixture builds hold the student copy of a chapter as ``book/_ext/student_source.py`` writes it
(clean), and the same with one solution kept in ``_sources``, in a page (HTML-escaped) and in a
search-texts script (JSON-escaped, non-ASCII as ``\\u`` escapes); the search must name the file
and fragments of exactly that solution, and nothing in the clean build.
"""

import base64
import hashlib
import html
import json
import sys
import zipfile
from pathlib import Path

import pytest

from solution_leaks import ROOT, Solutions, chapter_notebooks, collect_solutions, forms, leaks, split_solutions

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from student_source import strip_solutions  # noqa: E402

CHAPTER = ROOT / "book" / "ch01_calibration_sharpness.ipynb"


@pytest.fixture(scope="module")
def solutions():
    return collect_solutions(chapter_notebooks())


@pytest.fixture(scope="module")
def planted():
    """(name, text) of the chapter's second solution, a ``{solution}`` directive of prose."""
    return split_solutions(CHAPTER)[0][1]


def student_copy(tmp_path: Path) -> tuple[Path, dict]:
    build = tmp_path / "student"
    sources = build / "_build" / "html" / "_sources" / "book"
    sources.mkdir(parents=True)
    notebook, labels = strip_solutions(json.loads(CHAPTER.read_text()))
    assert len(labels) == 7
    (sources / CHAPTER.name).write_text(json.dumps(notebook, indent=1))
    return build, notebook


def test_the_fragments_are_distinctive_and_every_solution_has_some(solutions):
    assert solutions.count == 52
    assert len(solutions.fragments) > 500
    assert len(set(solutions.fragments.values())) == solutions.count


def test_the_clean_student_copy_has_no_hit(tmp_path, solutions):
    build, _ = student_copy(tmp_path)
    assert leaks(build, solutions) == []


def test_a_solution_kept_in_sources_is_found_and_named(tmp_path, solutions, planted):
    name, text = planted
    build, notebook = student_copy(tmp_path)
    notebook["cells"].append({"cell_type": "markdown", "id": "planted", "metadata": {},
                              "source": text.splitlines(keepends=True)})
    leaked = build / "_build" / "html" / "_sources" / "book" / CHAPTER.name
    leaked.write_text(json.dumps(notebook, indent=1))
    hits = leaks(build, solutions)
    assert len(hits) >= 5, hits
    assert all(hit.startswith(f"{leaked}: ") and hit.endswith(f"(from {name})") for hit in hits), hits


@pytest.mark.parametrize("where", ["html page", "search texts", "zip member"])
def test_a_solution_in_any_form_of_any_file_is_found(tmp_path, solutions, planted, where):
    name, _ = planted
    own = [f for f, s in solutions.fragments.items() if s == name]
    fragment = max(own, key=lambda f: (any(ord(c) > 127 for c in f), len(f)))  # non-ASCII if there is one
    target = student_copy(tmp_path)[0] / "_build" / "html" / "plant"
    if where == "html page":
        target = target.with_suffix(".html")
        target.write_text(f"<p>{html.escape(fragment)}</p>")
    elif where == "search texts":
        target = target.with_suffix(".js")
        target.write_text("window.TEXTS = " + json.dumps({"page": f"<p>{html.escape(fragment)}</p>"}) + ";")
    else:
        target = target.with_suffix(".whl")
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("companion/hint.py", f"# {fragment}\n")
    hits = leaks(tmp_path / "student", solutions)
    assert hits and all(str(target) in hit and hit.endswith(f"(from {name})") for hit in hits), hits


def test_an_image_drawn_by_a_solution_is_found_by_its_bytes_and_base64(tmp_path):
    """No solution of the book draws a figure today; a chapter's first figure stands in for one."""
    cells = json.loads(CHAPTER.read_text())["cells"]
    png = next("".join(o["data"]["image/png"]) for c in cells if c["cell_type"] == "code"
               for o in c["outputs"] if "image/png" in o.get("data", {})).replace("\n", "")
    data = base64.b64decode(png)
    figure = Solutions(1, {}, {hashlib.sha256(data).hexdigest(): ("a solution", png[200:260])})
    build = tmp_path / "student"
    build.mkdir()
    (build / "page.html").write_text("<p>no figure</p>")
    assert leaks(build, figure) == []
    (build / "figure.png").write_bytes(data)
    (build / "page.ipynb").write_text(json.dumps({"data": {"image/png": png}}))
    assert sorted(leaks(build, figure)) == [f"{build / 'figure.png'}: an image of a solution",
                                            f"{build / 'page.ipynb'}: base64 of an image of a solution"]


def test_forms_cover_the_escapes_a_build_writes():
    fragment = 'a "quoted" <tag> & the set \\mathbb{R} – done'
    assert json.dumps(fragment)[1:-1] in forms(fragment)
    assert html.escape(fragment) in forms(fragment)
    assert json.dumps(fragment, ensure_ascii=False)[1:-1] in forms(fragment)
