"""Each autograded part grades what the student was asked, and nothing else.

Every part's test cell (as ``course/make_assignments.py`` writes it into the source notebook) is run
in-process after the chapter's set-up cell, the part's ``given`` code and an answer:

- a second correct answer, written independently of the book's solution (another import style,
  another algorithm, its own example: ``second_answers.py``) gets full marks;
- planted cheats get nothing: one line ``abs = lambda x: 0`` with ``np`` rebound and a ``float``
  subclass whose comparisons are always true; every value printed in the student edition of the
  chapter or in the part's statement (for each leaf of the answer, the printed number closest to the
  right value); a constant of the right shape (0, 1/2, 1 and every number of the statement).

The answers' shapes come from the second answer. The specification's own checks (every name a
hidden test reads defined by the set-up cell, ``given``, the test or the answer; every number it
uses stated) are tested on planted specifications.
"""
from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "course"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))
sys.path.insert(0, str(Path(__file__).parent))
import make_assignments  # noqa: E402
from second_answers import SECOND  # noqa: E402
from student_source import strip_solutions  # noqa: E402

SPEC = make_assignments.load_spec()
CHAPTERS, SETUPS, _ = make_assignments.read_book()
PARTS = {ex.label: (chapter, ex) for chapter, exs in CHAPTERS.items() for ex in exs if ex.label in SPEC["autograded"]}
#: arguments on which a part whose answer is a function is called to learn its output's shape
PROBE = {"ex-tp-uninformative": (np.full(3, 0.3), np.array([0.2, 0.3, 0.5])), "ex-multiclass-lp-count": (10, 10**6),
         "ex-conf-rank": (np.array([0.05, 0.12, 0.31, 0.33, 0.48, 0.52, 0.67, 0.71, 0.90]), 0.1),
         "ex-binls-kappa-terms": (np.array([0.4, 1.6]), 0.1, 0.1)}

TRICK = '''
abs = lambda x: 0


class _Yes(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = float.__hash__

    def __abs__(self):
        return _Yes(0.0)

    __sub__ = __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = lambda s, o: _Yes(0.0)


class _AnyNumpy:
    def __getattr__(self, name):
        return lambda *args, **kwargs: _Yes(0.0)
'''


def run_part(label: str, answer: str, spec: dict = SPEC, module=make_assignments) -> tuple[bool, dict, str]:
    """(the test cell passed, the namespace, the error) for ``answer`` run after the set-up and ``given``."""
    chapter, _ = PARTS[label]
    part = spec["autograded"][label]
    ns: dict = {"__name__": "__main__"}
    exec(SETUPS[chapter], ns)
    exec(part.get("given", ""), ns)
    exec(answer, ns)
    try:
        exec(module.test_cell(label, part, SETUPS[chapter]), ns)
    except Exception as err:  # noqa: BLE001  a failing test cell scores 0, whatever it raises
        return False, ns, f"{type(err).__name__}: {err}"
    return True, ns, ""


def _source(value, leaf, probe=None) -> str:
    """Python source of a value shaped like ``value`` whose every number is ``leaf(number)``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_source(v, leaf)}" for k, v in value.items()) + "}"
    if isinstance(value, sp.Basic):
        return leaf(0.0)
    if callable(value) and not isinstance(value, np.ndarray):
        return f"lambda *args: {_source(value(*probe), leaf)}"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_source(v, leaf) for v in value) + "]"
    return leaf(float(value))


def printed_numbers(chapter: str) -> set[float]:
    """Every number of the student edition of a chapter: its text, its code and its stored outputs."""
    nb, _ = strip_solutions(json.loads((ROOT / "book" / f"{chapter}.ipynb").read_text(encoding="utf-8")))
    parts = []
    for cell in nb["cells"]:
        parts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for kind in ("text/plain", "text/html", "text/markdown", "text/latex"):
                parts.append("".join(out.get("data", {}).get(kind, "")))
    return make_assignments.numbers_in("\n".join(parts))


@functools.cache
def second(label: str) -> tuple[bool, dict, str]:
    """The second answer's run (once per part)."""
    return run_part(label, SECOND[label])


def cheats(label: str) -> dict[str, str]:
    """The planted cheats of a part, by name: answer cells that do no work."""
    chapter, ex = PARTS[label]
    part = SPEC["autograded"][label]
    passed, ns, error = second(label)
    assert passed, f"{label}: the second answer fails: {error}"
    value, probe = ns[part["answer"]], PROBE.get(label)
    examples = "".join(f"{name} = {_source(ns[name], repr)}\n" for name in part.get("reads", []))
    name = part["answer"]
    trick = f"{TRICK}{examples}{name} = {_source(value, lambda v: '_Yes(0.0)', probe)}\n"
    planted = {"abs and an always-equal float": trick, "the same and np rebound": trick + "np = _AnyNumpy()\n"}
    stated = make_assignments.numbers_in(" ".join([make_assignments.plain(ex.statement), part["describe"]]))
    for c in sorted({0.0, 0.5, 1.0} | {v for v in stated if abs(v) < 1e6}):
        planted[f"constant {c:g}"] = f"{examples}{name} = {_source(value, lambda v, c=c: repr(c), probe)}\n"
    if not part.get("reads"):  # where the student picks the example, a right value is the student's own work
        shown = np.array(sorted(printed_numbers(chapter) | stated))
        nearest = lambda v: repr(float(shown[np.argmin(np.abs(shown - abs(v)))]) * (1 if v >= 0 else -1))  # noqa: E731
        planted["the printed values nearest the answer"] = f"{name} = {_source(value, nearest, probe)}\n"
    return planted


@pytest.mark.parametrize("label", sorted(PARTS))
def test_a_second_correct_answer_gets_full_marks(label):
    passed, _, error = second(label)
    assert passed, f"{label}: an independently written correct answer fails: {error}"


@pytest.mark.parametrize("label", sorted(PARTS))
def test_planted_cheats_score_zero(label):
    scored = [name for name, code in cheats(label).items() if run_part(label, code)[0]]
    assert not scored, f"{label}: these cheats get full marks: {scored}"


def test_every_part_has_a_second_answer():
    assert set(SECOND) == set(SPEC["autograded"])


def _broken(label: str, **fields) -> dict:
    spec = copy.deepcopy(SPEC)
    spec["autograded"][label].update(fields)
    return spec


def test_a_test_reading_a_name_nobody_defines_is_refused():
    # the kind of ex-cs-symbolic-sharpness: the test called a function the set-up cell does not import
    check = "law_chk = finite_joint_distribution(3)\n" + SPEC["autograded"]["ex-cs-symbolic-sharpness"]["check"]
    with pytest.raises(ValueError, match="reads \\['finite_joint_distribution'\\]"):
        make_assignments.validate(CHAPTERS, SETUPS, _broken("ex-cs-symbolic-sharpness", check=check))
    # a solution variable that is not the answer (ex-ls-loose-bound read the solution's `r`)
    check = "assert abs(ls_sup_first - r) <= TOL\n"
    with pytest.raises(ValueError, match="reads \\['r'\\]"):
        make_assignments.validate(CHAPTERS, SETUPS, _broken("ex-ls-loose-bound", check=check))


def test_a_test_using_inputs_the_statement_does_not_give_is_refused():
    # the kind of ex-conf-zero-weight: the test hard-coded the book's example, which the student never sees
    check = ("s_chk = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]\n"
             + SPEC["autograded"]["ex-conf-zero-weight"]["check"])
    with pytest.raises(ValueError, match="does not state"):
        make_assignments.validate(CHAPTERS, SETUPS, _broken("ex-conf-zero-weight", check=check))


def test_reads_must_be_asked_for():
    with pytest.raises(ValueError, match="does not ask for"):
        make_assignments.validate(CHAPTERS, SETUPS, _broken("ex-conf-zero-weight", describe="the thresholds"))
