"""The assignments as an instructor and a student use them, by the documented commands.

From the project root, in a shell that has activated nothing (no virtual environment's bin/ on
PATH, no VIRTUAL_ENV, no PYTHONPATH), the instructor runs the README's sequence into a temporary
course folder: ``make assignments``, ``make course-release A=<chapter>`` for every chapter, the
students' notebooks into ``submitted/``, ``make course-autograde A=<chapter>``, ``make course-feedback``
and ``make course-export``. Three submissions per chapter: the source notebook with its solutions
(full marks on every autograded part), the release as generated (0 points, no crash) and the release
with the first autograded part answered by its solution and the second answered wrongly (exactly the
first part's points). The feedback shows no hidden test's code; ``make assignments`` keeps an edited
notebook; regenerating a release asks for FORCE=1; ``nbgrader validate`` passes on a source notebook
and fails on its empty release.
"""
from __future__ import annotations

import copy
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "course"))
import make_assignments  # noqa: E402

STUDENTS = ("solutions", "blank", "mixed")
#: the chapter whose feedback and validation are checked (its solutions run in seconds)
CHECKED = "ch08_target_prior"
WRONG = """
def _nudge(v):  # a wrong answer: 1 % and 0.01 off
    if isinstance(v, dict):
        return {k: _nudge(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_nudge(x) for x in v)
    if callable(v):
        return lambda *args: _nudge(v(*args))
    return v * 1.01 + 0.01
"""


def _grade_ids(nb, suffix):
    return [c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
            if c["metadata"]["nbgrader"]["grade_id"].endswith(suffix)]


def _mixed(release: dict, source: dict, spec: dict) -> dict:
    """The release with the first autograded answer correct and the second wrong."""
    nb = copy.deepcopy(release)
    src = {c["metadata"]["nbgrader"]["grade_id"]: c for c in source["cells"]}
    first, second = _grade_ids(nb, "-answer")[:2]
    cells = {c["metadata"]["nbgrader"]["grade_id"]: c for c in nb["cells"]}
    cells[first]["source"] = src[first]["source"]
    name = spec["autograded"]["ex-" + second.removesuffix("-answer")]["answer"]
    cells[second]["source"] = "".join(src[second]["source"]) + WRONG + f"{name} = _nudge({name})\n"
    return nb


def _bare_env() -> dict:
    """The environment of a shell that has activated nothing."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    venv = str(ROOT / ".venv")
    env["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                                  if not p.startswith(venv) and not p.startswith(str(Path(sys.executable).parent)))
    return env


def make(course: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    # -o: the environment counts as installed (this test runs inside it); every other step is the README's
    run = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", f"COURSE={course}", *args],
                         cwd=ROOT, env=_bare_env(), capture_output=True, text=True, timeout=3600)
    if check:
        assert run.returncode == 0, f"make {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return run


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course folder after the documented sequence, and the scores of every autograded part."""
    course = tmp_path_factory.mktemp("course")
    make(course, "assignments")
    spec = make_assignments.load_spec()
    chapters = sorted(p.name for p in (course / "source").iterdir() if p.is_dir())
    for chapter in chapters:
        make(course, "course-release", f"A={chapter}")
        source = json.loads((course / "source" / chapter / f"{chapter}.ipynb").read_text())
        release = json.loads((course / "release" / chapter / f"{chapter}.ipynb").read_text())
        for student, nb in zip(STUDENTS, (source, release, _mixed(release, source, spec))):
            target = course / "submitted" / student / chapter / f"{chapter}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(nb))
        make(course, "course-autograde", f"A={chapter}")
    make(course, "course-feedback", f"A={CHECKED}")
    make(course, "course-export")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for chapter in chapters:
            order = _grade_ids(json.loads((course / "source" / chapter / f"{chapter}.ipynb").read_text()), "-test")
            scores[chapter] = {}
            for student in STUDENTS:
                grades = {g.name: (g.score, g.max_score) for g in gb.find_submission_notebook(chapter, chapter, student).grades}
                scores[chapter][student] = {gid: grades[gid] for gid in order}
    return course, scores


def test_every_chapter_has_two_autograded_parts_and_the_book_25(course):
    counts = {chapter: len(students["solutions"]) for chapter, students in course[1].items()}
    print("autograded parts per chapter:", counts)
    assert len(counts) == 8 and min(counts.values()) >= 2 and sum(counts.values()) >= 25


def test_solutions_get_full_marks(course):
    for chapter, students in course[1].items():
        lost = {gid: s for gid, s in students["solutions"].items() if s[0] != s[1]}
        assert not lost, f"{chapter}: the book's solution loses points on {lost}"


def test_release_as_generated_gets_zero(course):
    for chapter, students in course[1].items():
        given = {gid: s for gid, s in students["blank"].items() if s[0] != 0}
        assert not given, f"{chapter}: the empty release scores on {given}"


def test_one_right_one_wrong_gets_exactly_the_right_part(course):
    for chapter, students in course[1].items():
        first = next(iter(students["solutions"]))  # parts in notebook order
        expected = students["solutions"][first][1]
        total = sum(score for score, _ in students["mixed"].values())
        assert students["mixed"][first][0] == expected and total == expected, (chapter, students["mixed"])


def test_the_export_lists_every_submission(course):
    with open(course[0] / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["assignment"], r["student_id"]) for r in rows} == {(c, s) for c in course[1] for s in STUDENTS}


def test_feedback_shows_outcomes_not_the_hidden_tests(course):
    spec = make_assignments.load_spec()
    pages = {s: (course[0] / "feedback" / s / CHECKED / f"{CHECKED}.html").read_text() for s in STUDENTS}
    assert "CheckFailed: hidden test: AssertionError" in pages["mixed"] and "CheckFailed: define" in pages["blank"]
    for student, page in pages.items():
        for label, part in spec["autograded"].items():
            if label.startswith("ex-tp-"):
                for line in part["check"].splitlines():
                    assert len(line.strip()) < 25 or line.strip() not in page, (student, label, line)
        assert "BEGIN HIDDEN TESTS" not in page and "_hidden_chk" not in page and "_plain(" not in page, student
        graded = json.loads((course[0] / "autograded" / student / CHECKED / f"{CHECKED}.ipynb").read_text())
        for cell in graded["cells"]:  # a test cell's failure is its message alone, no lines of the cell
            if cell["metadata"].get("nbgrader", {}).get("grade_id", "").endswith("-test"):
                for out in cell.get("outputs", []):
                    assert out["output_type"] != "error" or out["traceback"] == [f"CheckFailed: {out['evalue']}"], out


def test_regenerating_a_release_asks_for_force(course):
    run = make(course[0], "course-release", f"A={CHECKED}", check=False)
    assert run.returncode != 0 and f"A={CHECKED} FORCE=1" in run.stdout + run.stderr


def test_make_assignments_keeps_an_instructors_edit(tmp_path):
    make(tmp_path, "assignments")
    target = tmp_path / "source" / CHECKED / f"{CHECKED}.ipynb"
    untouched = tmp_path / "source" / "ch01_calibration_sharpness" / "ch01_calibration_sharpness.ipynb"
    edited = target.read_text().replace("Run the set-up cell first.", "Run the set-up cell first (edited).")
    target.write_text(edited)
    untouched.write_text(untouched.read_text())  # rewritten unchanged: regenerated
    run = make(tmp_path, "assignments", check=False)
    assert run.returncode != 0 and "FORCE=1" in run.stderr and str(target) in run.stderr
    assert target.read_text() == edited
    make(tmp_path, "assignments", "FORCE=1")
    assert "(edited)" not in target.read_text()


def test_validate_passes_on_the_source_and_fails_on_the_release(course):
    env = dict(_bare_env(), PATH=os.pathsep.join([str(ROOT / ".venv" / "bin"), _bare_env()["PATH"]]), MPLBACKEND="Agg")

    def validate(folder):
        nb = course[0] / folder / CHECKED / f"{CHECKED}.ipynb"
        return subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "nbgrader", "validate", str(nb)],
                              cwd=course[0], env=env, capture_output=True, text=True, timeout=1800)

    source, release = validate("source"), validate("release")
    assert "Success! Your notebook passes all the tests." in source.stdout, source.stdout[-3000:]
    assert "VALIDATION FAILED" in release.stdout, release.stdout[-3000:]


def test_the_spec_cannot_name_a_missing_exercise():
    spec = make_assignments.load_spec()
    chapters, setups, _ = make_assignments.read_book()
    broken = copy.deepcopy(spec)
    broken["autograded"]["ex-does-not-exist"] = broken["autograded"]["ex-cs-calibrated-mse"]
    with pytest.raises(ValueError, match="ex-does-not-exist"):
        make_assignments.validate(chapters, setups, broken)
    dropped = copy.deepcopy(spec)
    del dropped["autograded"]["ex-cs-calibrated-mse"]
    with pytest.raises(ValueError, match="neither autograded nor an exploration"):
        make_assignments.validate(chapters, setups, dropped)
    renamed = copy.deepcopy(spec)
    renamed["autograded"]["ex-umb-ties"]["bind"] = "umb_other = 1"
    with pytest.raises(ValueError, match="does not define 'umb_ties_gap'"):
        make_assignments.validate(chapters, setups, renamed)
