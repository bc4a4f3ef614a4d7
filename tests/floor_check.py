"""The wheel at the floor of its dependency ranges (``make floor-check``; issue 38).

Builds a fresh virtual environment with the lower bounds pyproject.toml declares (numpy 1.25, scipy 1.11,
scikit-learn 1.6), installs the companion's wheel into it (built as ``book/_ext/reader_code.py`` builds the
reader's), then runs there the doctests of every module but the book-only ones and the estimators'
scikit-learn check suites (``tests/test_estimator_checks_*.py``).  Exits non-zero on any failure.  Not part
of ``make test``: it downloads three old releases and takes several minutes.

Run: ``.venv/bin/python tests/floor_check.py [DIR]`` (DIR: where the environment goes, default a temporary one).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
FLOORS = {"numpy": "1.25.2", "scipy": "1.11.4", "scikit-learn": "1.6.1"}
BOOK_ONLY = ("derivations", "experiments", "guarantee_checks", "exact_sampling", "plotting", "display")


def run(*args, cwd: Path) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"floor-check: {' '.join(map(str, args[:4]))} ... failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done.stdout


def main(work: Path) -> None:
    from reader_code import build_wheel

    wheel = build_wheel(ROOT, work)
    run(sys.executable, "-m", "venv", work / "env", cwd=work)
    python = work / "env" / "bin" / "python"
    pins = [f"{name}=={version}" for name, version in FLOORS.items()]
    run(python, "-m", "pip", "install", "--quiet", *pins, "pytest", "pandas==2.2.3", cwd=work)
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", wheel, cwd=work)
    code = "import json, numpy, scipy, sklearn; print(json.dumps([numpy.__version__, scipy.__version__, sklearn.__version__]))"
    versions = json.loads(run(python, "-c", code, cwd=work))
    if versions != list(FLOORS.values()):
        sys.exit(f"floor-check: the environment has {versions}, not the floors {list(FLOORS.values())}")
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=work).strip()
    modules = sorted(str(p) for p in Path(purelib, "companion").rglob("*.py") if p.stem not in BOOK_ONLY)
    print(run(python, "-m", "pytest", "-p", "no:cacheprovider", "--doctest-modules", "-q", *modules, cwd=work)
          .strip().splitlines()[-1])
    suites = sorted((ROOT / "tests").glob("test_estimator_checks_*.py"))
    for suite in [*suites, ROOT / "tests" / "sklearn_checks.py"]:  # copied out of the repository: its conftest
        (work / suite.name).write_text(suite.read_text(encoding="utf-8"), encoding="utf-8")  # and sources stay out of reach
    print(run(python, "-m", "pytest", "-p", "no:cacheprovider", "-q", *[s.name for s in suites], cwd=work)
          .strip().splitlines()[-1])
    print(f"floor-check: passed at numpy {versions[0]}, scipy {versions[1]}, scikit-learn {versions[2]}")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
        main(Path(sys.argv[1]))
    else:
        with tempfile.TemporaryDirectory(prefix="floor-check-") as tmp:
            main(Path(tmp))
