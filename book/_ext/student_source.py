"""Write the student edition's sources: the book with every solution cut out of the notebooks.

Usage: ``python book/_ext/student_source.py OUT_DIR`` (run from the project root; ``make
book-student`` and ``make pdf-student`` do this, then build ``OUT_DIR``).

The student edition is built from these copies, not from the book's own sources, so no file the
build writes (a page, the notebook behind the download button in ``_sources/``, the search index
and search texts, an image drawn by a solution cell, the executed notebooks) can hold a solution.
In every chapter notebook each solution, the ``{solution}`` directive or everything from
``{solution-start}`` to ``{solution-end}`` (code cells included), is replaced by one empty
answer cell: a code cell where the solution computed something, a Markdown cell where it did
not.  The answer cell is tagged ``answer`` and ``remove-cell`` (the pages show nothing in its
place; the downloaded notebook keeps it).  The configuration is ``_config.yml`` with
``student_edition`` on (``book/_ext/student.py``) and the local extensions as absolute paths
(Jupyter Book resolves them against the configuration file's folder).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import sys
from pathlib import Path

import yaml

#: Files and folders of the project root that the build reads (the companion and its pins for the
#: wheel of ``book/_ext/reader_code.py``).
COPIED = ("_toc.yml", "references.bib", "pyproject.toml", "requirements.txt", "CITATION.cff", "LICENSE", "companion", "book")
IGNORED = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "_ext", "*.ipynb")
ANSWER_TAGS = ["answer", "remove-cell"]
_FENCE = re.compile(r"^\s*(?P<fence>`{3,}|:{3,})\s*(?P<info>.*?)\s*$")
_SOLUTION = re.compile(r"\{(solution|solution-start|solution-end)\}\s*(\S*)")


def _fence(line: str):
    match = _FENCE.match(line)
    return (match["fence"], match["info"]) if match else (None, None)


def _directive_end(lines: list[str], start: int) -> int:
    """Index of the line that closes the fenced directive opened at ``lines[start]`` (nested fences skipped)."""
    stack = [_fence(lines[start])[0]]
    for i in range(start + 1, len(lines)):
        fence, info = _fence(lines[i])
        if fence is None:
            continue
        top = stack[-1]
        if not info and fence[0] == top[0] and len(fence) >= len(top):
            stack.pop()
            if not stack:
                return i
        elif info:
            stack.append(fence)
    raise ValueError(f"unclosed directive {lines[start].strip()!r}")


def _answer_cell(label: str, kind: str) -> dict:
    cell = {"cell_type": kind, "id": f"answer-{label}"[:64], "metadata": {"tags": list(ANSWER_TAGS)}, "source": []}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def strip_solutions(notebook: dict) -> tuple[dict, list[str]]:
    """The notebook with every solution replaced by an empty answer cell; and the labels of the solutions.

    Raises ``ValueError`` on a ``solution-start`` without its ``solution-end`` (or the reverse), on
    a solution marker outside a Markdown cell, and on an unclosed directive.
    """
    cells, labels = [], []
    open_label, had_code = None, False  # inside a gated solution: its label, and whether it holds code

    for cell in notebook["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] != "markdown":
            if _SOLUTION.search(text) and cell["cell_type"] == "raw":
                raise ValueError(f"a solution marker in a raw cell: {text[:60]!r}")
            if open_label is None:
                cells.append(cell)
            else:
                had_code = had_code or cell["cell_type"] == "code"
            continue
        lines, kept, pieces = text.split("\n"), [], []
        i = 0
        while i < len(lines):
            fence, info = _fence(lines[i])
            marker = _SOLUTION.match(info or "")
            if marker is None:
                if open_label is None:
                    kept.append(lines[i])
                i += 1
                continue
            kind, label = marker.groups()
            end = _directive_end(lines, i)
            if kind == "solution-end":
                if open_label is None:
                    raise ValueError(f"solution-end without solution-start: {lines[i].strip()!r}")
                pieces.append(_answer_cell(open_label, "code" if had_code else "markdown"))
                labels.append(open_label)
                open_label = None
            elif open_label is not None:
                raise ValueError(f"{kind} {label!r} inside the open solution of {open_label!r}")
            elif kind == "solution-start":
                pieces.append("\n".join(kept))
                kept, open_label, had_code = [], label, False
            else:  # a whole {solution} directive
                pieces += ["\n".join(kept), _answer_cell(label, "markdown")]
                kept = []
                labels.append(label)
            i = end + 1
        if open_label is None:
            pieces.append("\n".join(kept))
        for k, piece in enumerate(p for p in pieces if not isinstance(p, str) or p.strip()):
            if isinstance(piece, dict):
                cells.append(piece)
            else:
                part = copy.deepcopy(cell)
                part["source"] = piece.strip("\n").splitlines(keepends=True)
                if k and "id" in part:
                    part["id"] = f"{cell['id']}-{k}"[:64]
                cells.append(part)
    if open_label is not None:
        raise ValueError(f"solution-start {open_label!r} without solution-end")
    return {**notebook, "cells": cells}, labels


def student_config(source: Path) -> dict:
    """The book's configuration read from ``source`` with the student edition switched on."""
    config = yaml.safe_load(source.read_text())
    sphinx = config["sphinx"]
    sphinx["config"]["student_edition"] = True
    root = source.resolve().parent
    sphinx["local_extensions"] = {name: str(root / folder) for name, folder in sphinx["local_extensions"].items()}
    return config


def write_student_sources(root: Path, out: Path) -> dict[str, list[str]]:
    """Write the student edition's sources from the project at ``root`` into ``out`` (emptied first).

    Returns, for every notebook, the labels of the solutions it lost.
    """
    root, out = Path(root).resolve(), Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in COPIED:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, out / name, ignore=IGNORED)
        else:
            shutil.copy2(src, out / name)
    (out / "_config.yml").write_text(yaml.safe_dump(student_config(root / "_config.yml"), sort_keys=False))
    stripped = {}
    for path in sorted((root / "book").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        notebook, labels = strip_solutions(json.loads(path.read_text(encoding="utf-8")))
        target = out / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        stripped[path.relative_to(root).as_posix()] = labels
    return stripped


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: student_source.py OUT_DIR")
    lost = write_student_sources(Path.cwd(), Path(sys.argv[1]))
    print(f"Student sources in {sys.argv[1]}: {sum(map(len, lost.values()))} solutions replaced by answer cells "
          f"in {len(lost)} notebooks")
