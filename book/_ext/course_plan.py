"""The course plan of the page *Teaching with this book*, generated from the notebooks at build time.

The directive ``{course-plan}`` writes the two tracks (weeks and chapters) and, for each chapter,
the earlier chapters it needs (those whose labels it cites with ``{ref}``, ``{numref}``,
``{prf:ref}`` or ``{eq}``, or whose companion package it imports), its reading length (words of its
text as the student edition renders it), its assignment's points, the compute time of a full run (measured once, ``course/plan.yml``), its lecture
plan and its exercises in book order by level, kind, points and working time (``course/spec.yml``).
Nothing is typed by hand that the notebooks already say, so the plan cannot drift from the book.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "course"))
from exercises import Exercise, chapter_notebooks, read_exercises  # noqa: E402
from make_assignments import EXPLORATION_POINTS, WRITTEN_POINTS  # noqa: E402
from student_source import strip_solutions  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[2]
#: working time of an exercise by its level (an estimate for planning, in minutes)
MINUTES = {"Basic": 20, "Intermediate": 40, "Advanced": 75}
_MARKUP = re.compile(r"^[ \t]*(?::{3,}|`{3,}).*$|^:\w+:.*$|^\([\w-]+\)=[ \t]*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ROLE_TEXT = re.compile(r"\{[\w:-]+\}`(?:([^`<]*?)\s*<[^`>]*>|[^`]*)`")
_DEFINED = re.compile(r"^\(([\w-]+)\)=|^:(?:label|name):[ \t]*([\w-]+)|\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M)
_CITED = re.compile(r"\{(?:ref|numref|prf:ref|eq)\}`(?:[^`<]*<)?([\w-]+)>?`")
_IMPORTED = re.compile(r"^\s*(?:from|import)\s+companion\.(\w+)", re.M)
_PROOF_VERBS = re.compile(r"\b(?:[Pp]rove|[Ss]how|[Dd]erive|[Dd]educe|[Ss]tate and prove)\b")


@dataclass
class Chapter:
    """What the plan says about one chapter, read from its notebook."""

    stem: str
    title: str  # the chapter's heading
    label: str  # the chapter's own target, e.g. chap-uniform-mass-binning
    slug: str  # its companion package
    defined: set
    cited: set
    imported: set
    words: int
    exercises: list


def rendered_words(notebook: dict) -> int:
    """Words of a chapter's text as a student reads it: solutions cut out, directive fences, options,
    targets and comments dropped, a cross-reference counted as the word it shows."""
    student, _ = strip_solutions(notebook)
    text = "\n".join("".join(c["source"]) for c in student["cells"] if c["cell_type"] == "markdown")
    text = _ROLE_TEXT.sub(lambda m: m.group(1) or "ref", _MARKUP.sub("", _COMMENT.sub("", text)))
    return len(text.split())


def read_chapter(path: Path) -> Chapter:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    defined = {next(g for g in m.groups() if g) for m in _DEFINED.finditer(text)}
    label = _DEFINED.search(text).group(1)
    title = re.search(r"^# (.+)$", text, flags=re.M).group(1).strip()
    return Chapter(path.stem, title, label, path.stem.split("_", 1)[1], defined, set(_CITED.findall(text)),
                   set(_IMPORTED.findall(code)), rendered_words(notebook), read_exercises(path))


def prerequisites(chapters: list[Chapter]) -> dict[str, list[Chapter]]:
    """Per chapter, the earlier chapters it cites or imports, in book order."""
    out = {}
    for i, ch in enumerate(chapters):
        out[ch.stem] = [e for e in chapters[:i] if (ch.cited & e.defined) or e.slug in ch.imported]
    return out


def kinds(ex: Exercise, autograded: dict) -> list[str]:
    """Proof (a written argument asked for), derivation (a written answer that is no proof: a formula or
    an example worked by hand), computation (autograded code), exploration (code graded by hand)."""
    out = []
    if ex.prose:
        out.append("proof" if _PROOF_VERBS.search(ex.statement) else "derivation")
    if ex.label in autograded:
        out.append("computation")
    elif ex.code:
        out.append("exploration")
    return out


def points(ex: Exercise, autograded: dict, explorations: dict) -> tuple[int, int]:
    """(autograded points, points graded by hand) of an exercise in its assignment (course/make_assignments.py)."""
    auto = autograded[ex.label]["points"] if ex.label in autograded else 0
    by_hand = (WRITTEN_POINTS[ex.level] if ex.prose else 0) + (EXPLORATION_POINTS if ex.label in explorations else 0)
    return auto, by_hand


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def render(root: Path) -> str:
    """The plan as MyST text."""
    plan = yaml.safe_load((root / "course" / "plan.yml").read_text(encoding="utf-8"))
    spec = yaml.safe_load((root / "course" / "spec.yml").read_text(encoding="utf-8"))
    autograded, explorations = spec["autograded"], spec["exploration"]
    chapters = [read_chapter(p) for p in chapter_notebooks(root)]
    by_stem = {ch.stem: ch for ch in chapters}
    needs = prerequisites(chapters)
    times = plan["run_times"]
    lines = ["## Two tracks", ""]
    for track in plan["tracks"]:
        lines += [f"**{track['title']}** ({track['audience']}).", "", "| Week | Chapters |", "| --- | --- |"]
        for week, stems in enumerate(track["weeks"], 1):
            unknown = [s for s in stems if s not in by_stem]
            if unknown:
                raise ValueError(f"course/plan.yml: track {track['title']!r} names unknown chapters {unknown}")
            cell = ", ".join(f"{{ref}}`{by_stem[s].label}`" for s in stems) or "projects"
            lines.append(f"| {week} | {cell} |")
        lines += ["", track["note"], ""]
    total = sum(len(ch.exercises) for ch in chapters)
    n_auto = sum(ex.label in autograded for ch in chapters for ex in ch.exercises)
    lines += ["## The chapters", "",
              f"The book has {total} exercises, {n_auto} of them with an autograded part. Each table lists a "
              "chapter's exercises in book order with their points in the chapter's assignment (autograded, and "
              "graded by hand: the written answer and any exploration) and a working time estimated from the "
              f"level ({', '.join(f'{k.lower()} {v} min' for k, v in MINUTES.items())}). Reading length counts "
              "the words of a chapter's text as the student edition shows it (prose and formulas; code, solutions "
              "and markup excluded); a full run is the CPU time of running its notebook top to bottom in a fresh "
              f"kernel, measured once ({times['machine']}).",
              ""]
    for ch in chapters:
        info = plan["chapters"][ch.stem]
        pre = ", ".join(f"{{ref}}`{p.label}`" for p in needs[ch.stem]) or "none"
        scored = [points(ex, autograded, explorations) for ex in ch.exercises]
        auto, by_hand = sum(a for a, _ in scored), sum(h for _, h in scored)
        minutes = sum(MINUTES[ex.level] for ex in ch.exercises)
        lines += [f"### {ch.title}", "",
                  f"The chapter {{ref}}`{ch.label}`. *Earlier chapters it uses:* {pre}. *Background:* {info['background']} "
                  f"*Reading:* {ch.words:,} words. *Full run:* {_minutes(times['seconds'][ch.stem])} of CPU time. "
                  f"*Assignment:* {auto + by_hand} points, {auto} autograded and {by_hand} graded by hand; "
                  f"about {minutes / 60:.1f} hours of work for all its exercises.", "",
                  info["lectures"], "",
                  "| Exercise | Level | Kind | Points (autograded + by hand) | Time |", "| --- | --- | --- | --- | --- |"]
        for ex, (a, h) in zip(ch.exercises, scored):
            lines.append(f"| {{ref}}`{ex.label}`: {ex.title} | {ex.level} | {', '.join(kinds(ex, autograded))} | "
                         f"{a} + {h} | {MINUTES[ex.level]} min |")
        lines.append("")
    return "\n".join(lines)


class CoursePlan(SphinxDirective):
    """``{course-plan}``: the generated tracks and per-chapter plan."""

    def run(self):
        # the project's own files, in both editions: the student edition's sources lack the solutions
        # (which decide an exercise's kind) and course/ (whose hidden tests must not ship to students)
        root = PROJECT_ROOT
        for path in chapter_notebooks(root) + [root / "course" / "plan.yml", root / "course" / "spec.yml"]:
            self.env.note_dependency(str(path))
        container = __import__("docutils.nodes", fromlist=["Element"]).Element()
        nested_parse_with_titles(self.state, StringList(render(root).splitlines(), source="course-plan"), container)
        return container.children


def setup(app):
    app.add_directive("course-plan", CoursePlan)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
