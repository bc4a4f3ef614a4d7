"""The student copies of the notebooks (book/_ext/student_source.py): each solution becomes one empty answer cell."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from student_source import strip_solutions  # noqa: E402


def md(text, id_="m"):
    return {"cell_type": "markdown", "id": id_, "metadata": {}, "source": text.splitlines(keepends=True)}


def code(text, id_="c", printed="42\n"):
    return {"cell_type": "code", "id": id_, "metadata": {}, "source": text, "execution_count": 3,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": printed}]}


EXERCISE_A = ":::{exercise} A\n:label: ex-a\n\n*Basic.* Do A.\n:::\n"
EXERCISE_B = ":::{exercise} B\n:label: ex-b\n\n*Basic.* Do B.\n:::\n"
GATED = "::::{solution-start} ex-a\n:class: dropdown\n::::\n\nSECRET-PROSE of A.\n"
END = "::::{solution-end}\n::::\n\n"
PLAIN = ":::{solution} ex-b\n:class: dropdown\n\nSECRET-PROOF of B, with a nested box:\n\n```{note}\nSECRET-NOTE\n```\n:::\n"


def notebook(*cells):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_gated_and_plain_solutions_become_one_empty_answer_cell_each():
    full = notebook(code("setup()", "s"), md("## Exercises\n\n" + EXERCISE_A + "\n" + GATED, "m1"),
                    code("print(secret())", "c1", "SECRET-OUTPUT\n"), md(END + EXERCISE_B + "\n" + PLAIN + "\nClosing words.\n", "m2"))
    student, labels = strip_solutions(full)
    assert labels == ["ex-a", "ex-b"]
    kinds = [(c["cell_type"], c["id"]) for c in student["cells"]]
    assert kinds == [("code", "s"), ("markdown", "m1"), ("code", "answer-ex-a"), ("markdown", "m2-1"),
                     ("markdown", "answer-ex-b"), ("markdown", "m2-3")]
    text = repr(student)
    assert "SECRET" not in text and "solution" not in text
    assert "".join(student["cells"][1]["source"]).endswith("*Basic.* Do A.\n:::")
    assert "".join(student["cells"][5]["source"]) == "Closing words."
    for answer in (student["cells"][2], student["cells"][4]):
        assert answer["source"] == [] and answer["metadata"]["tags"] == ["answer", "remove-cell"]
    assert student["cells"][2]["outputs"] == [] and student["cells"][2]["execution_count"] is None
    assert len(full["cells"]) == 4 and "SECRET" in repr(full)  # the input is left as it was


@pytest.mark.parametrize(("cells", "message"), [
    ([md(EXERCISE_A + GATED)], "without solution-end"),
    ([md(END)], "solution-end without solution-start"),
    ([md(GATED), md(PLAIN)], "inside the open solution"),
    ([md(PLAIN.replace("\n:::\n", "\n"))], "unclosed directive"),
])
def test_unbalanced_solutions_are_refused(cells, message):
    with pytest.raises(ValueError, match=message):
        strip_solutions(notebook(*cells))
