"""How long importing the companion takes, and what the import drags in (issue 38: the practitioner's face).

Run: ``.venv/bin/python benchmarks/bench_import.py [--rounds 5] [--python PATH] [--before DIR]``.  Each statement runs in a
fresh interpreter (so nothing is cached in ``sys.modules``; the files are in the OS cache after the first
round), which times the statement alone with ``time.perf_counter`` around it, then lists which heavy modules
the statement left in ``sys.modules``: SymPy, matplotlib, ``scipy.stats`` and the book-only modules of the
chapters' packages (``*.derivations``, ``*.experiments``, ``*.guarantee_checks``).  The statements are
visited alternately, each keeping its best of ``--rounds`` (at least five); with ``--before DIR`` the
companion of an older checkout is timed in the same rounds, side by side (issue 38: before and after the
lazy loading of the book-only modules).  A statement whose module does not
exist or fails to import (``companion.estimators`` before it was written) gets a row saying so.

Not part of ``make benchmark`` (``run_all.py`` times computations against peers, not imports).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

STATEMENTS = [
    "import sklearn.base",  # the floor of the estimators: scikit-learn's own import (it loads scipy.stats)
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


def probe(python: str, statement: str, source: str | None = None) -> dict:
    """One fresh interpreter: the statement's time, and the heavy modules it loaded.

    ``source``: a folder holding another ``companion/`` (a checkout of an older commit), put first on
    ``sys.path`` so that its companion is the one imported.
    """
    env = dict(os.environ, PYTHONPATH=source) if source else None
    run = subprocess.run([python, "-c", PROBE.format(statement=statement, book_only=BOOK_ONLY)],
                         capture_output=True, text=True, check=True, env=env, cwd=source or os.getcwd())
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure(python: str, statements: list[str], rounds: int, sides: dict[str, str | None]) -> dict:
    """Best of ``rounds`` per (side, statement), the sides and statements visited alternately."""
    if rounds < 5:
        raise ValueError(f"rounds must be at least 5 (best of five), got {rounds}")
    best: dict = {}
    for _ in range(rounds):
        for statement in statements:
            for side, source in sides.items():
                result = probe(python, statement, source)
                key = (statement, side)
                if key not in best or result.get("seconds", 0.0) < best[key].get("seconds", float("inf")):
                    best[key] = result
    return best


def _cell(result: dict) -> tuple[str, str]:
    if "missing" in result:
        return "n/a", result["missing"]
    heavy = result["heavy"]
    book = [m for m in heavy if m.startswith("companion.")]
    named = [m for m in heavy if not m.startswith("companion.")]
    shown = ", ".join(named + ([f"{len(book)} derivations/experiments modules"] if book else [])) or "none"
    return f"{1000 * result['seconds']:.0f}", f"{shown} ({result['modules']} modules)"


def markdown(best: dict, sides: list[str]) -> str:
    """The table: per statement and side, the best time in ms and the heavy modules loaded."""
    head = "| statement | " + " | ".join(f"{side}: best of 5 (ms) | {side}: heavy modules loaded" for side in sides) + " |"
    lines = [head, "| --- |" + " ---: | --- |" * len(sides)]
    for statement in dict.fromkeys(s for s, _ in best):
        cells = [c for side in sides for c in _cell(best[(statement, side)])]
        lines.append(f"| `{statement}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose companion is timed")
    parser.add_argument("--before", metavar="DIR",
                        help="a folder with an older companion/ (e.g. `git archive <commit> companion | tar -x -C DIR`), "
                             "timed in the same rounds as a 'before' column")
    args = parser.parse_args()
    sides = {"before": os.path.abspath(args.before), "after": None} if args.before else {"now": None}
    print(markdown(measure(args.python, STATEMENTS, args.rounds, sides), list(sides)))


if __name__ == "__main__":
    main()
