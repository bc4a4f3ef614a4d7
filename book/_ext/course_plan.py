"""The course plan of the page *Teaching with this book*, generated from the notebooks at build time.

The directive ``{course-plan}`` writes the two tracks (weeks and chapters) and, for each chapter,
the earlier chapters it needs (those whose labels it cites with ``{ref}``, ``{numref}``,
``{prf:ref}`` or ``{eq}``, or whose companion package it imports), its reading length (words of its
markdown cells), the compute time of a full run (measured once, ``course/plan.yml``), its lecture
plan and its exercises by level and kind, with the autograded parts of ``course/spec.yml`` marked.
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
from exercises import LEVELS, Exercise, chapter_notebooks, read_exercises  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[2]
_DEFINED = re.compile(r"^\(([\w-]+)\)=|^:(?:label|name):[ \t]*([\w-]+)|\$\$[ \t]*\(([\w-]+)\)[ \t]*$", re.M)
_CITED = re.compile(r"\{(?:ref|numref|prf:ref|eq)\}`(?:[^`<]*<)?([\w-]+)>?`")
_IMPORTED = re.compile(r"^\s*(?:from|import)\s+companion\.(\w+)", re.M)
_PROOF_VERBS = re.compile(r"\b(?:[Pp]rove|[Ss]how|[Dd]erive|[Dd]educe|[Ss]tate and prove)\b")


@dataclass
class Chapter:
    """What the plan says about one chapter, read from its notebook."""

    stem: str
    label: str  # the chapter's own target, e.g. chap-uniform-mass-binning
    slug: str  # its companion package
    defined: set
    cited: set
    imported: set
    words: int
    exercises: list


def read_chapter(path: Path) -> Chapter:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    defined = {next(g for g in m.groups() if g) for m in _DEFINED.finditer(text)}
    label = _DEFINED.search(text).group(1)
    return Chapter(path.stem, label, path.stem.split("_", 1)[1], defined, set(_CITED.findall(text)),
                   set(_IMPORTED.findall(code)), len(text.split()), read_exercises(path))


def prerequisites(chapters: list[Chapter]) -> dict[str, list[Chapter]]:
    """Per chapter, the earlier chapters it cites or imports, in book order."""
    out = {}
    for i, ch in enumerate(chapters):
        out[ch.stem] = [e for e in chapters[:i] if (ch.cited & e.defined) or e.slug in ch.imported]
    return out


def kinds(ex: Exercise, autograded: dict) -> list[str]:
    """Proof (a written argument asked for), computation (autograded code), exploration (code graded by hand, or a written discussion)."""
    out = []
    if ex.prose and _PROOF_VERBS.search(ex.statement):
        out.append("proof")
    if ex.label in autograded:
        out.append("computation")
    elif ex.code or (ex.prose and not out):
        out.append("exploration")
    return out


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def render(root: Path) -> str:
    """The plan as MyST text."""
    plan = yaml.safe_load((root / "course" / "plan.yml").read_text(encoding="utf-8"))
    autograded = yaml.safe_load((root / "course" / "spec.yml").read_text(encoding="utf-8"))["autograded"]
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
              f"The book has {total} exercises, {n_auto} of them with an autograded part (marked *autograded*, "
              "with its points). Reading length counts the words of a chapter's text (prose and formulas, "
              f"code excluded); a full run is the CPU time of running its notebook top to bottom in a fresh kernel, "
              f"measured once ({times['machine']}).",
              ""]
    for ch in chapters:
        info = plan["chapters"][ch.stem]
        pre = ", ".join(f"{{ref}}`{p.label}`" for p in needs[ch.stem]) or "none"
        lines += [f"### {{ref}}`{ch.label}`", "",
                  f"*Earlier chapters it uses:* {pre}. *Background:* {info['background']} "
                  f"*Reading:* {ch.words:,} words. *Full run:* {_minutes(times['seconds'][ch.stem])} of CPU time.", "",
                  info["lectures"], "",
                  "| Exercise | Level | Kind | Autograded part |", "| --- | --- | --- | --- |"]
        for level in LEVELS:
            for ex in (e for e in ch.exercises if e.level == level):
                part = autograded.get(ex.label)
                mark = (f"autograded, {part['points']} point{'s' if part['points'] != 1 else ''}" if part else "graded by hand")
                lines.append(f"| {{ref}}`{ex.label}`: {ex.title} | {level} | {', '.join(kinds(ex, autograded))} | {mark} |")
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
