"""The chapters' exercises read from the notebooks: one parser for the course plan and the assignments.

An exercise is a sphinx-exercise ``:::{exercise} Title`` box with a ``:label:`` whose statement
begins with its level (``*Basic.*``, ``*Intermediate.*``, ``*Advanced.*``). Its solution is either a
``:::{solution} label`` box (prose only) or a gated ``::::{solution-start} label`` ...
``::::{solution-end}`` block whose prose and code cells lie between the two markers.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

LEVELS = ("Basic", "Intermediate", "Advanced")

_EXERCISE = re.compile(r":::\{exercise\}[ \t]*(?P<title>[^\n]*)\n:label:[ \t]*(?P<label>\S+)\n(?P<body>.*?)\n:::[ \t]*(?:\n|$)", re.S)
_PROSE_SOLUTION = re.compile(r":::\{solution\}[ \t]*(?P<label>\S+)\n(?P<body>.*?)\n:::[ \t]*(?:\n|$)", re.S)
_GATE_START = re.compile(r"::::\{solution-start\}[ \t]*(?P<label>\S+)\n(?::class:[^\n]*\n)?::::[ \t]*(?:\n|$)")
_GATE_END = re.compile(r"::::\{solution-end\}\n::::[ \t]*(?:\n|$)")
_LEVEL = re.compile(r"^\s*\*(?P<level>" + "|".join(LEVELS) + r")\.\*\s*")
_OPTION = re.compile(r"^:\w+:[^\n]*\n", re.M)


@dataclass
class Exercise:
    """One exercise of a chapter: its statement, level and solution (prose and code cells)."""

    chapter: str  # notebook stem, e.g. ch02_uniform_mass_binning
    label: str
    title: str
    level: str
    statement: str  # without the level prefix
    prose: str = ""  # the written solution (empty when the solution is code only)
    code: list[str] = field(default_factory=list)  # the solution's code cells, in order


def _source(cell) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _strip_options(text: str) -> str:
    return _OPTION.sub("", text).strip()


def read_exercises(notebook: Path) -> list[Exercise]:
    """Every exercise of a chapter notebook, in order, with its solution.

    Raises ValueError on a statement without its level, a solution of an unknown exercise, or a
    gated solution left open.
    """
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    chapter = Path(notebook).stem
    exercises: dict[str, Exercise] = {}
    open_gate: Exercise | None = None

    def solution_of(label: str) -> Exercise:
        if label not in exercises:
            raise ValueError(f"{chapter}: solution of unknown exercise {label!r}")
        return exercises[label]

    for cell in cells:
        text = _source(cell)
        if cell["cell_type"] == "code":
            if open_gate is not None:
                open_gate.code.append(text)
            continue
        if cell["cell_type"] != "markdown":
            continue
        # walk the markdown cell: text inside an open gate is solution prose
        pos = 0
        while pos <= len(text):
            if open_gate is not None:
                end = _GATE_END.search(text, pos)
                stop = end.start() if end else len(text)
                piece = text[pos:stop].strip()
                if piece:
                    open_gate.prose = (open_gate.prose + "\n\n" + piece).strip()
                if end is None:
                    break
                open_gate, pos = None, end.end()
                continue
            matches = [m for m in (_EXERCISE.search(text, pos), _PROSE_SOLUTION.search(text, pos),
                                   _GATE_START.search(text, pos)) if m]
            if not matches:
                break
            m = min(matches, key=lambda x: x.start())
            if m.re is _EXERCISE:
                body = _strip_options(m["body"])
                level = _LEVEL.match(body)
                if level is None:
                    raise ValueError(f"{chapter}: exercise {m['label']!r} does not begin with its level {LEVELS}")
                exercises[m["label"]] = Exercise(chapter, m["label"], m["title"].strip(), level["level"],
                                                 body[level.end():].strip())
            elif m.re is _PROSE_SOLUTION:
                solution_of(m["label"]).prose = _strip_options(m["body"])
            else:
                open_gate = solution_of(m["label"])
            pos = m.end()
    if open_gate is not None:
        raise ValueError(f"{chapter}: the solution of {open_gate.label!r} has no solution-end")
    return list(exercises.values())


def chapter_notebooks(root: Path) -> list[Path]:
    """The chapter notebooks in book order (``_toc.yml``)."""
    toc = (Path(root) / "_toc.yml").read_text(encoding="utf-8")
    return [Path(root) / f"{name}.ipynb" for name in re.findall(r"file:\s*(book/ch\d+_\w+)\s*$", toc, flags=re.M)]
