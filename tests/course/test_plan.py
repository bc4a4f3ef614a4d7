"""The generated course plan (book/_ext/course_plan.py) as the page shows it, before any build."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import course_plan  # noqa: E402

PLAN = course_plan.render(ROOT)
CHAPTERS = [course_plan.read_chapter(p) for p in course_plan.chapter_notebooks(ROOT)]


def test_headings_are_chapter_titles_not_labels():
    headings = re.findall(r"^### (.+)$", PLAN, flags=re.M)
    assert headings == [ch.title for ch in CHAPTERS]
    assert not any("{ref}" in h or "chap-" in h for h in headings)


def test_exercise_tables_follow_book_order_with_points_and_time():
    for ch in CHAPTERS:
        section = PLAN.split(f"### {ch.title}\n", 1)[1].split("\n### ", 1)[0]
        rows = re.findall(r"^\| \{ref\}`([\w-]+)`.*\| (\d+) \+ (\d+) \| (\d+) min \|$", section, flags=re.M)
        assert [r[0] for r in rows] == [ex.label for ex in ch.exercises]
        total = sum(int(a) + int(h) for _, a, h, _ in rows)
        assert f"*Assignment:* {total} points" in section


def test_points_match_the_assignment():
    spec = yaml.safe_load((ROOT / "course" / "spec.yml").read_text())
    for ch in CHAPTERS:
        for ex in ch.exercises:
            auto, _ = course_plan.points(ex, spec["autograded"], spec["exploration"])
            assert auto == spec["autograded"].get(ex.label, {}).get("points", 0)


def test_written_answers_without_a_proof_are_derivations():
    spec = yaml.safe_load((ROOT / "course" / "spec.yml").read_text())
    exercises = {ex.label: ex for ch in CHAPTERS for ex in ch.exercises}
    for label in ("ex-lsw-adjusted-count", "ex-ls-sign"):
        assert course_plan.kinds(exercises[label], spec["autograded"]) == ["derivation"], label


def test_reading_length_counts_the_student_text():
    for ch, path in zip(CHAPTERS, course_plan.chapter_notebooks(ROOT)):
        cells = json.loads(path.read_text())["cells"]
        raw = len("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").split())
        assert 0.5 * raw < ch.words < raw, (ch.stem, ch.words, raw)
