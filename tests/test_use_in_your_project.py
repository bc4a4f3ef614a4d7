"""The page "Use it in your project" (book/use_in_your_project.ipynb) and its stored benchmark file.

The page computes the companion's numbers live and reads the peers' (QuaPy, MAPIE, crepes: optional,
never installed by ``make test``) and every time from ``benchmarks/practitioner.json``, written by
``benchmarks/bench_practitioner.py``.  These tests keep the file from going stale: its companion numbers
equal what the companion computes now on the same data (to 1e-6, absolute), it was written with the peers
at the pinned versions, and the page's tables name every library.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "use_in_your_project.ipynb"
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_practitioner as bench  # noqa: E402

STORED = json.loads(bench.RESULT.read_text(encoding="utf-8"))
TOL = 1e-6  # absolute, on every measure (L1 error, Brier score, ECE, coverage, mean set size)
MEASURES = ("prior_l1", "brier", "ece", "coverage", "set_size")


def _outputs(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def notebook():
    return json.loads(PAGE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("key, binary", [("digits", False), ("binary", True)])
def test_stored_companion_numbers_equal_what_the_companion_computes_now(key, binary):
    stored = [r for r in STORED["tasks"][key]["rows"] if r["library"] == "companion"]
    now = bench.companion_rows(binary)
    assert [r["estimator"] for r in stored] == [r["estimator"] for r in now]
    for old, new in zip(stored, now):
        assert {m for m in MEASURES if m in old} == {m for m in MEASURES if m in new}, old["estimator"]
        for m in MEASURES:
            if m in new:
                assert abs(old[m] - new[m]) <= TOL, (key, old["estimator"], m, old[m], new[m])


def test_the_file_was_written_with_every_peer_at_its_pinned_version():
    pins = dict(re.findall(r"^([A-Za-z][\w.-]*)==(\S+)", (ROOT / "benchmarks" / "requirements.txt").read_text(), re.M))
    for library in ("QuaPy", "MAPIE", "crepes"):
        assert STORED["versions"][library] == pins[library], library
    for task in STORED["tasks"].values():
        for row in task["rows"]:
            assert row["estimator"] != "not installed", row
            if row["library"] != "reference":
                assert row["time"] > 0, row


def test_every_library_has_rows_in_the_file():
    libraries = {r["library"] for r in STORED["tasks"]["digits"]["rows"]}
    assert set(bench.LIBRARIES) <= libraries


def test_the_page_tables_name_every_library(notebook):
    cells = notebook["cells"]
    digits = "\n".join(_outputs(c) for c in cells if c["cell_type"] == "code" and 'side_by_side("digits"' in "".join(c["source"]))
    binary = "\n".join(_outputs(c) for c in cells if c["cell_type"] == "code" and 'side_by_side("binary"' in "".join(c["source"]))
    for library in bench.LIBRARIES:  # the ten digits' tables (probabilities; sets) name every library
        assert re.search(rf"^{re.escape(library)}\s", digits, re.M), f"{library} missing from the ten digits' tables"
    for library in ("companion", "scikit-learn", "QuaPy"):  # the two-class task has no sets
        assert re.search(rf"^{re.escape(library)}\s", binary, re.M), f"{library} missing from the two-class table"
    features = [c for c in cells if c["cell_type"] == "markdown" and "## What each library offers" in "".join(c["source"])]
    assert features, "the section 'What each library offers that the others lack'"
    header = next(line for line in "".join(features[0]["source"]).splitlines() if line.startswith("| what it offers |"))
    assert [h.strip() for h in header.strip("|").split("|")][1:] == list(bench.LIBRARIES)


def test_the_page_found_its_numbers_in_the_file(notebook):
    text = "\n".join(_outputs(c) for c in notebook["cells"] if c["cell_type"] == "code")
    for key in ("digits", "binary"):
        assert f"{key}: the file's companion numbers equal this page's to 1e-6: True" in text


def test_the_page_runs_no_peer_and_measures_no_time(notebook):
    """nbval re-executes the page without the peers, and a live time would change its outputs."""
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    for module in ("quapy", "mapie", "crepes", "time", "timeit"):
        assert not re.search(rf"^\s*(import|from) {module}\b", code, re.M), module
    assert not re.search(r"perf_counter|%%?timeit", code)


def _markdown(notebook) -> str:
    return "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")


def _book_labels() -> set[str]:
    labels = set()
    for path in (ROOT / "book").rglob("*"):
        if path.suffix == ".ipynb":
            text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
        elif path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
        else:
            continue
        labels |= set(re.findall(r"^:label:\s*(\S+)", text, re.M))
        labels |= set(re.findall(r"^\(([^)\s]+)\)=", text, re.M))
    return labels


def test_every_reference_and_citation_on_the_page_has_a_target(notebook):
    """A {ref}/{prf:ref}/{numref}/{eq} label must be defined in the book, a {cite} key in references.bib."""
    text = _markdown(notebook)
    labels = _book_labels()
    keys = set(re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "references.bib").read_text(encoding="utf-8"), re.M))
    missing = []
    for role, target in re.findall(r"\{(ref|prf:ref|numref|eq|cite:p|cite:t|cite)\}`([^`]*)`", text):
        target = re.sub(r"^.*<(.*)>$", r"\1", target)  # {ref}`text <label>`
        names = [t.strip() for t in target.split(",")] if role.startswith("cite") else [target.strip()]
        pool = keys if role.startswith("cite") else labels
        missing += [f"{role}:{name}" for name in names if name not in pool]
    for target in re.findall(r"\{doc\}`([^`<]*)`", text):
        assert any((ROOT / "book" / f"{target}{ext}").exists() for ext in (".md", ".ipynb")), target
    assert not missing, missing


def test_the_numbers_in_the_discussion_are_the_stored_ones(notebook):
    """Every three-decimal number in 'What the tables say' is a measure of the stored file, as the tables print it."""
    cell = next("".join(c["source"]) for c in notebook["cells"]
                if c["cell_type"] == "markdown" and "What the tables say" in "".join(c["source"]))
    printed = {f"{row[m]:.3f}" for task in STORED["tasks"].values() for row in task["rows"] for m in MEASURES if m in row}
    quoted = re.findall(r"(?<![\d.])0\.\d{3}(?!\d)", cell)
    assert quoted, "the discussion quotes the tables' numbers"
    assert set(quoted) <= printed, sorted(set(quoted) - printed)
