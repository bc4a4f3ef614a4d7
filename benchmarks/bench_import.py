"""How long importing the companion takes, and what the import drags in (issue 38: the practitioner's face).

Run: ``.venv/bin/python benchmarks/bench_import.py [--rounds 5] [--python PATH]``.  Each statement runs in a
fresh interpreter (so nothing is cached in ``sys.modules``; the files are in the OS cache after the first
round), which times the statement alone with ``time.perf_counter`` around it, then lists which heavy modules
the statement left in ``sys.modules``: SymPy, matplotlib, ``scipy.stats`` and the book-only modules of the
chapters' packages (``*.derivations``, ``*.experiments``, ``*.guarantee_checks``).  The statements are
visited alternately, each keeping its best of ``--rounds`` (at least five).  A statement whose module does not
exist or fails to import (``companion.estimators`` before it was written) gets a row saying so.

Not part of ``make benchmark`` (``run_all.py`` times computations against peers, not imports).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

STATEMENTS = [
    "import companion",
    "import companion.calibration_sharpness.binning",
    "import companion.conformal_label_shift",
    "import companion.label_shift_recalibration",
    "import companion.estimators",
]
BOOK_ONLY = (".derivations", ".experiments", ".guarantee_checks")

PROBE = """
import sys, time, json
start = time.perf_counter()
try:
    exec({statement!r})
except Exception as error:  # not written yet, or half-written
    print(json.dumps({{"missing": f"{{type(error).__name__}}: {{error}}"}}))
    raise SystemExit(0)
seconds = time.perf_counter() - start
heavy = sorted(m for m in sys.modules
               if m in ("sympy", "matplotlib", "scipy.stats", "sklearn")
               or (m.startswith("companion.") and m.endswith({book_only!r})))
print(json.dumps({{"seconds": seconds, "heavy": heavy, "modules": len(sys.modules)}}))
"""


def probe(python: str, statement: str) -> dict:
    """One fresh interpreter: the statement's time, and the heavy modules it loaded."""
    run = subprocess.run([python, "-c", PROBE.format(statement=statement, book_only=BOOK_ONLY)],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure(python: str, statements: list[str], rounds: int) -> dict[str, dict]:
    """Best of ``rounds`` per statement, the statements visited alternately."""
    if rounds < 5:
        raise ValueError(f"rounds must be at least 5 (best of five), got {rounds}")
    best: dict[str, dict] = {}
    for _ in range(rounds):
        for statement in statements:
            result = probe(python, statement)
            if statement not in best or result.get("seconds", 0.0) < best[statement].get("seconds", float("inf")):
                best[statement] = result
    return best


def markdown(best: dict[str, dict]) -> str:
    """The table: statement, best time in ms, modules loaded, heavy modules loaded."""
    lines = ["| statement | best of 5 (ms) | modules loaded | heavy modules loaded |", "| --- | ---: | ---: | --- |"]
    for statement, result in best.items():
        if "missing" in result:
            lines.append(f"| `{statement}` | n/a | n/a | {result['missing']} |")
            continue
        heavy = result["heavy"]
        book = [m for m in heavy if m.startswith("companion.")]
        named = [m for m in heavy if not m.startswith("companion.")]
        shown = ", ".join(named + ([f"{len(book)} derivations/experiments modules"] if book else [])) or "none"
        lines.append(f"| `{statement}` | {1000 * result['seconds']:.0f} | {result['modules']} | {shown} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose companion is timed")
    args = parser.parse_args()
    print(markdown(measure(args.python, STATEMENTS, args.rounds)))


if __name__ == "__main__":
    main()
