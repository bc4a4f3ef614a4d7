"""Generate the nbgrader course tree from the chapters' exercises (``make assignments``).

For every chapter ``book/chNN_<slug>.ipynb`` this writes ``course/source/chNN_<slug>/chNN_<slug>.ipynb``:
a read-only header, the chapter's set-up cell (read-only), and for each exercise its statement
(read-only), a manually graded answer cell holding the written solution as the grader's rubric, and
for its code either an autograded answer cell (the solution between nbgrader's solution markers)
followed by a test cell whose hidden tests check the answer against an independent computation
(``course/spec.yml``), or, for an exploration listed there, a manually graded code cell.

The specification is validated against the notebooks, so nothing can drift: an unknown label, an
exercise with code that is neither autograded nor an exploration, an answer name the solution
does not define, a name defined twice, a solution needing a name that neither the set-up nor
the part's ``given`` code defines, a hidden test reading a name the student was not asked to define
or using a number the released statement does not give stops the generation with a ValueError.
Each hidden test runs in a namespace of its own on plain copies of the answer (``hidden_program``).

Usage: python course/make_assignments.py [OUTPUT_DIR] [--force]   (default course/source; an edited notebook
is kept unless --force)
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from exercises import Exercise, chapter_notebooks, read_exercises  # noqa: E402
from reader_code import licence_text  # noqa: E402

SPEC = ROOT / "course" / "spec.yml"
#: points of a written (manually graded) part by the exercise's level
WRITTEN_POINTS = {"Basic": 2, "Intermediate": 3, "Advanced": 4}
EXPLORATION_POINTS = 2
_ROLE = re.compile(r"\{(?:ref|numref|prf:ref|eq|doc|cite:t|cite:p|cite)\}`(?:[^`<]*<)?([^`>]+)>?`")


def load_spec(path: Path = SPEC) -> dict:
    """The answer specification: ``autograded`` parts and ``exploration`` parts keyed by label."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key in ("autograded", "exploration"):
        if not isinstance(spec.get(key), dict):
            raise ValueError(f"{path}: {key!r} must map exercise labels to their parts")
    return spec


def _names(code: str) -> tuple[set[str], set[str]]:
    """(names a code cell binds, names it reads) at any depth."""
    tree = ast.parse(code)
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, read


def plain(text: str) -> str:
    """MyST text as Jupyter shows it: a cross-reference role becomes the label it points to."""
    return _ROLE.sub(lambda m: f"*{m.group(1)}*", text)


def plain_statement(exercise: Exercise, number: int) -> str:
    """The statement cell: title, level, the label in the book and the statement."""
    text = plain(exercise.statement)
    return f"## Exercise {number}: {exercise.title}\n\n*{exercise.level}* (`{exercise.label}` in the book)\n\n{text}"


def _cell(kind: str, source: str, grade_id: str, *, solution=False, grade=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    cell = {"cell_type": kind, "id": grade_id, "metadata": {"nbgrader": meta}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def validate(chapters: dict[str, list[Exercise]], setups: dict[str, str], spec: dict) -> None:
    """Every label known, every exercise with code covered, every answer defined once, no missing name."""
    known = {ex.label: ex for exs in chapters.values() for ex in exs}
    for key in ("autograded", "exploration"):
        for label in spec[key]:
            if label not in known:
                raise ValueError(f"course/spec.yml: {key} names {label!r}, which no chapter defines")
    for label, ex in known.items():
        if ex.code and label not in spec["autograded"] and label not in spec["exploration"]:
            raise ValueError(f"course/spec.yml: exercise {label!r} has solution code but is neither "
                             "autograded nor an exploration")
        if label in spec["autograded"] and not ex.code:
            raise ValueError(f"course/spec.yml: {label!r} is autograded but its solution has no code")
    seen = {}
    for chapter, exs in chapters.items():
        setup_bound, _ = _names(setups[chapter])
        for ex in exs:
            part = spec["autograded"].get(ex.label)
            if part is None:
                continue
            for field in ("answer", "describe", "points", "tolerance", "check"):
                if field not in part:
                    raise ValueError(f"course/spec.yml: {ex.label}: missing {field!r}")
            code = "\n".join(ex.code + [part.get("bind", "")])
            bound, read = _names(code)
            given_bound, _ = _names(part.get("given", ""))
            missing = read - bound - setup_bound - given_bound - set(dir(builtins))
            if missing:
                raise ValueError(f"{ex.label}: the solution reads {sorted(missing)}, which neither the set-up "
                                 "nor the part's given code defines")
            if part["answer"] not in bound:
                raise ValueError(f"{ex.label}: the solution (with its bind line) does not define {part['answer']!r}")
            if part["answer"] in setup_bound or (chapter, part["answer"]) in seen:
                raise ValueError(f"{ex.label}: answer name {part['answer']!r} is defined elsewhere in {chapter}")
            seen[(chapter, part["answer"])] = ex.label
            _validate_check(ex, part, setup_bound, given_bound, bound)


def _validate_check(ex: Exercise, part: dict, setup_bound: set, given_bound: set, solution_bound: set) -> None:
    """The hidden test reads only what the student was given or asked for, and uses only stated inputs.

    Every name the check reads is defined by the set-up cell, the part's ``given`` code, the check
    itself, or is one the student defines: the answer and the names listed in ``reads`` (each named
    in ``describe`` and defined by the book's solution). Every number the check writes is in the
    released statement, ``describe`` or ``given``, or is one of the check's own constants listed in
    ``internal`` (a quadrature tolerance, the seed of hidden test points), or 0, 1, 2.
    """
    reads = list(part.get("reads", []))
    for name in reads:
        if f"`{name}`" not in part["describe"]:
            raise ValueError(f"{ex.label}: `reads` names {name!r}, which `describe` does not ask for")
        if name not in solution_bound:
            raise ValueError(f"{ex.label}: `reads` names {name!r}, which the book's solution does not define")
    check_bound, check_read = _names(part["check"])
    allowed = setup_bound | given_bound | check_bound | {part["answer"], "TOL", *reads} | set(dir(builtins))
    unknown = check_read - allowed
    if unknown:
        raise ValueError(f"{ex.label}: the hidden test reads {sorted(unknown)}, which neither the set-up, the "
                         "part's given code, the test itself nor the answer defines")
    released = numbers_in(" ".join([plain(ex.statement), part["describe"], part.get("given", "")]))
    stated = released | {0.0, 1.0, 2.0} | {float(v) for v in part.get("internal", [])}
    unstated = sorted({v for v in literals(part["check"]) if not any(_close(v, w) for w in stated)})
    if unstated:
        raise ValueError(f"{ex.label}: the hidden test uses {unstated}, which the released statement does not "
                         "state (list the test's own constants under `internal`)")


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[_,]\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?)(?:\s*\^\s*\{?\s*(-?\d+)\s*\}?)?")
_FRACTION = re.compile(r"(?<![\w.])(\d+)\s*/\s*(\d+)(?![\w.])|\\frac\{?(\d+)\}?\{?(\d+)\}?")


_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def numbers_in(text: str) -> set[float]:
    """Every number a text states: 0.25, 10_000, 10^4, 10^{-3}, 1/2, \\frac12, 99.9 % (also as 0.999), three."""
    found = set()
    for m in _NUMBER.finditer(text):
        value = float(m[1].replace("_", "").replace(",", ""))
        found.add(value ** int(m[2]) if m[2] else value)
        if m[2]:
            found.add(value)
        found.add(value / 100)
    for m in _FRACTION.finditer(text):
        num, den = (m[1], m[2]) if m[1] else (m[3], m[4])
        if int(den):
            found.add(int(num) / int(den))
    found.update(float(_WORDS.index(w)) for w in re.findall(r"\b(" + "|".join(_WORDS[1:]) + r")\b", text.lower()))
    return found


def literals(code: str) -> set[float]:
    """The numeric literals of a code cell (a minus sign kept), strings and booleans left out."""
    values = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            values.add(abs(float(node.value)))
    return values


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300)


#: Converts a student's value to plain Python and NumPy objects before a hidden test reads it, so that
#: no method of the answer's own type (a float subclass whose ``__eq__`` is always true) runs in the test.
PLAIN = '''
def _plain(value):
    import numbers
    import numpy
    import sympy
    if isinstance(value, sympy.Basic):
        return sympy.parse_expr(str(value))
    if isinstance(value, (bool, numpy.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in dict.items(value)}
    if callable(value) and not isinstance(value, numpy.ndarray):
        return lambda *args: _plain(value(*args))
    try:
        array = numpy.array(value, dtype=float)
    except (TypeError, ValueError):
        return [_plain(v) for v in value]
    return float(array) if array.ndim == 0 else array
'''


def hidden_program(part: dict, setup: str) -> str:
    """The hidden test as it runs: in a namespace of its own, on plain copies of what the student defined.

    The namespace holds the set-up cell (run again), the part's ``given`` code when the test reads it,
    and the answer and the ``reads`` names converted by ``_plain``; the student's notebook can rebind
    ``abs``, ``np`` or a set-up name without changing what the test computes.
    """
    given_bound, _ = _names(part.get("given", ""))
    _, check_read = _names(part["check"])
    given = part["given"].rstrip() + "\n" if part.get("given") and given_bound & check_read else ""
    names = [part["answer"], *part.get("reads", [])]
    take = "".join(f"{name} = _plain(_student[{name!r}])\n" for name in names)
    return f"{setup.rstrip()}\n{given}{PLAIN}{take}TOL = {part['tolerance']!r}\n{part['check'].rstrip()}\n"


def test_cell(label: str, part: dict, setup: str) -> str:
    """The test cell: the visible checks, then the hidden test run by ``exec`` in a namespace of its own.

    Every failure shows as ``CheckFailed: <message>`` and nothing else: IPython draws the exception
    by its ``_render_traceback_``, so no traceback lists the cell's lines (the hidden tests' code
    among them) in the autograded notebook or the feedback.
    """
    program = "".join(f"    {line!r},\n" for line in hidden_program(part, setup).splitlines())
    visible = "".join(f"    {line}\n" for line in part.get("visible", "").rstrip().splitlines())
    return "\n".join([
        f"# Tolerance {part['tolerance']:g}; {part['points']} point{'s' if part['points'] != 1 else ''}. The visible "
        "checks below run as you work; the",
        f"# hidden test ({label} in course/spec.yml) checks the value against an independent computation.",
        "import builtins as _builtins_chk",
        "",
        "",
        "class CheckFailed(_builtins_chk.AssertionError):",
        "    def _render_traceback_(self):",
        "        return [\"CheckFailed: \" + _builtins_chk.str(self)]",
        "",
        "",
        "try:",
        f"    assert \"{part['answer']}\" in _builtins_chk.globals(), \"define {part['answer']}\"",
        visible.rstrip("\n"),
        "except _builtins_chk.Exception as _error_chk:",
        "    raise CheckFailed(_builtins_chk.str(_error_chk)) from None",
        "### BEGIN HIDDEN TESTS",
        f"_hidden_chk = \"\\n\".join([\n{program}])",
        "try:",
        "    _builtins_chk.exec(_hidden_chk, {\"__builtins__\": _builtins_chk, \"_student\": _builtins_chk.globals()})",
        "except _builtins_chk.Exception as _error_chk:",
        "    raise CheckFailed(\"hidden test: \" + _builtins_chk.type(_error_chk).__name__ + \": \"",
        "                      + _builtins_chk.str(_error_chk)) from None",
        "### END HIDDEN TESTS"]).replace("\n\nexcept", "\nexcept")


def assignment(chapter: str, title: str, setup: str, exercises: list[Exercise], spec: dict) -> dict:
    """The nbgrader source notebook of one chapter."""
    cells = [_cell("markdown", f"# {title}: exercises\n\nRun the set-up cell first. Write each answer in the cell "
                   "below its statement; a code answer must define the variable named in its cell. Run the "
                   "test cell after it for the visible checks; hidden tests check the answer against an "
                   f"independent computation when it is graded.\n\n{licence_text(ROOT)}", "header", locked=True),
             _cell("code", setup, "setup", locked=True)]
    for number, ex in enumerate(exercises, 1):
        slug = ex.label.removeprefix("ex-")
        cells.append(_cell("markdown", plain_statement(ex, number), f"{slug}-statement", locked=True))
        if ex.prose:
            cells.append(_cell("markdown", plain(ex.prose), f"{slug}-written", solution=True, grade=True,
                               points=WRITTEN_POINTS[ex.level]))
        part = spec["autograded"].get(ex.label)
        if part is not None:
            if part.get("given"):
                cells.append(_cell("code", part["given"].rstrip(), f"{slug}-given", locked=True))
            body = "\n".join(ex.code + ([part["bind"].rstrip()] if part.get("bind") else []))
            cells.append(_cell("code", f"# Define `{part['answer']}`: {part['describe'].strip()}\n"
                               f"### BEGIN SOLUTION\n{body.rstrip()}\n### END SOLUTION", f"{slug}-answer",
                               solution=True))
            cells.append(_cell("code", test_cell(ex.label, part, setup), f"{slug}-test", grade=True, locked=True,
                               points=part["points"]))
        elif ex.code:
            cells.append(_cell("code", "### BEGIN SOLUTION\n" + "\n\n".join(c.rstrip() for c in ex.code)
                               + "\n### END SOLUTION", f"{slug}-exploration", solution=True, grade=True,
                               points=EXPLORATION_POINTS))
    for cell in cells:
        cell["source"] = cell["source"].splitlines(keepends=True)
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                        "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def read_book(root: Path = ROOT) -> tuple[dict, dict, dict]:
    """Per chapter: its exercises, its set-up cell and its title."""
    chapters, setups, titles = {}, {}, {}
    for nb_path in chapter_notebooks(root):
        cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        chapters[nb_path.stem] = read_exercises(nb_path)
        setups[nb_path.stem] = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
        first = "".join(next(c for c in cells if c["cell_type"] == "markdown")["source"])
        titles[nb_path.stem] = re.search(r"^# (.+)$", first, flags=re.M).group(1).strip()
    return chapters, setups, titles


MANIFEST = ".generated.json"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def main(out_dir: Path, force: bool = False) -> int:
    """Write every chapter's source notebook; keep one an instructor has edited unless ``force``.

    ``OUT_DIR/.generated.json`` records what was written last time: a notebook that no longer matches
    it was edited after generation and is left as it is (exit status 1, with the command that
    overwrites it); a notebook that matches is regenerated.
    """
    spec = load_spec()
    chapters, setups, titles = read_book()
    validate(chapters, setups, spec)
    manifest_path = out_dir / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    kept = []
    for chapter, exercises in chapters.items():
        target = out_dir / chapter / f"{chapter}.ipynb"
        key = f"{chapter}/{chapter}.ipynb"
        text = json.dumps(assignment(chapter, titles[chapter], setups[chapter], exercises, spec), indent=1,
                          ensure_ascii=False) + "\n"
        if target.exists() and not force and _digest(target.read_text(encoding="utf-8")) != manifest.get(key):
            kept.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        manifest[key] = _digest(text)
        auto = sum(ex.label in spec["autograded"] for ex in exercises)
        print(f"{target}: {len(exercises)} exercises, {auto} autograded parts")
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    for target in kept:
        print(f"{target}: edited since it was generated, left as it is; `make assignments FORCE=1` "
              "(python course/make_assignments.py --force) overwrites it and loses the edits", file=sys.stderr)
    return 1 if kept else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--force"]
    sys.exit(main(Path(args[0]) if args else ROOT / "course" / "source", force="--force" in sys.argv[1:]))
