"""The assignments as an instructor and a student use them: generate, release, submit, autograde.

``course/make_assignments.py`` writes the nbgrader course tree into a temporary folder; nbgrader
releases every chapter, then autogrades three submissions per chapter: the source notebook with
its solutions (full marks on every autograded part), the release as generated (0 points, no
crash) and the release with the first autograded part answered by its solution and the second
answered wrongly (exactly the first part's points).
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "course"))
import make_assignments  # noqa: E402

STUDENTS = ("solutions", "blank", "mixed")
WRONG = """
def _nudge(v):  # a wrong answer: 1 % and 0.01 off
    if isinstance(v, dict):
        return {k: _nudge(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_nudge(x) for x in v)
    return v * 1.01 + 0.01
"""


def _answer_cells(nb):
    return [c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade_id"].endswith("-answer")]


def _mixed(release: dict, source: dict, spec: dict) -> dict:
    """The release with the first autograded answer correct and the second wrong."""
    nb = copy.deepcopy(release)
    src = {c["metadata"]["nbgrader"]["grade_id"]: c for c in _answer_cells(source)}
    first, second = _answer_cells(nb)[:2]
    first["source"] = src[first["metadata"]["nbgrader"]["grade_id"]]["source"]
    label = "ex-" + second["metadata"]["nbgrader"]["grade_id"].removesuffix("-answer")
    name = spec["autograded"][label]["answer"]
    second["source"] = "".join(src[second["metadata"]["nbgrader"]["grade_id"]]["source"]) + WRONG + f"{name} = _nudge({name})\n"
    return nb


def _nbgrader(course: Path, *args: str) -> None:
    # nbgrader runs the alembic migration tool from PATH: the environment's own bin first
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                         capture_output=True, text=True, timeout=3600)
    assert run.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Scores of every autograded part: {chapter: {student: {grade_id: (score, max_score)}}}."""
    course = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "course" / "nbgrader_config.py", course)
    make_assignments.main(course / "source")
    spec = make_assignments.load_spec()
    chapters = sorted(p.name for p in (course / "source").iterdir())
    for chapter in chapters:
        _nbgrader(course, "generate_assignment", chapter, "--force")
        source = json.loads((course / "source" / chapter / f"{chapter}.ipynb").read_text())
        release = json.loads((course / "release" / chapter / f"{chapter}.ipynb").read_text())
        for student, nb in zip(STUDENTS, (source, release, _mixed(release, source, spec))):
            target = course / "submitted" / student / chapter / f"{chapter}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(nb))
        _nbgrader(course, "autograde", chapter, "--create", "--force")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for chapter in chapters:
            scores[chapter] = {}
            for student in STUDENTS:
                sub = gb.find_submission_notebook(chapter, chapter, student)
                scores[chapter][student] = {g.name: (g.score, g.max_score) for g in sub.grades
                                            if g.name.endswith("-test")}
    return scores


def test_every_chapter_has_two_autograded_parts_and_the_book_25(graded):
    counts = {chapter: len(students["solutions"]) for chapter, students in graded.items()}
    print("autograded parts per chapter:", counts)
    assert len(counts) == 8 and min(counts.values()) >= 2 and sum(counts.values()) >= 25


def test_solutions_get_full_marks(graded):
    for chapter, students in graded.items():
        lost = {gid: s for gid, s in students["solutions"].items() if s[0] != s[1]}
        assert not lost, f"{chapter}: the book's solution loses points on {lost}"


def test_release_as_generated_gets_zero(graded):
    for chapter, students in graded.items():
        given = {gid: s for gid, s in students["blank"].items() if s[0] != 0}
        assert not given, f"{chapter}: the empty release scores on {given}"


def test_one_right_one_wrong_gets_exactly_the_right_part(graded):
    for chapter, students in graded.items():
        first = next(iter(students["solutions"]))  # parts in notebook order
        expected = students["solutions"][first][1]
        total = sum(score for score, _ in students["mixed"].values())
        assert students["mixed"][first][0] == expected and total == expected, (chapter, students["mixed"])


def test_the_spec_cannot_name_a_missing_exercise(tmp_path):
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
