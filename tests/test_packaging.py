"""The companion as a practitioner installs it (issue 38): name, version, dependency ranges, licence, import cost.

Each import is checked in a fresh interpreter (``sys.modules`` of this one already holds everything),
with the working directory outside the repository so that the installed ``companion`` is the one
imported.  The wheel is built as ``book/_ext/reader_code.py`` builds the reader's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
NAME = "shiftcal-companion"

CHAPTERS = ["calibration_sharpness", "uniform_mass_binning", "multiclass_lp", "label_shift_weights",
            "label_shift_recalibration", "binning_label_shift", "conformal_label_shift", "target_prior"]
#: What importing the practitioner's side must leave out of sys.modules (scipy.stats too, unless
#: scikit-learn is loaded: scikit-learn imports it itself).
HEAVY = ("sympy", "matplotlib", "scipy.stats")
BOOK_ONLY = (".derivations", ".experiments", ".guarantee_checks", ".exact_sampling", ".rating_scale")


def fresh(code: str, cwd: Path) -> dict:
    """Run ``code`` in a fresh interpreter of this environment; it prints one JSON line, returned parsed."""
    run = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def loaded_after(statement: str, cwd: Path) -> list[str]:
    """The heavy and book-only modules in sys.modules after ``statement`` in a fresh interpreter."""
    code = (f"import sys, json\n{statement}\n"
            f"found = [m for m in sys.modules if m in {HEAVY!r} or m.split('.')[0] in {HEAVY!r}"
            f" or (m.startswith('companion.') and m.endswith({BOOK_ONLY!r}))]\n"
            "print(json.dumps(sorted(m for m in found if not (m == 'scipy.stats' and 'sklearn' in sys.modules))))")
    return fresh(code, cwd)


@pytest.mark.parametrize("statement", [
    "import companion",
    "import companion.estimators",
    "from companion import LabelShiftCalibratedClassifier, WeightedConformalClassifier, TargetPriorEstimator",
    *[f"import companion.{chapter}" for chapter in CHAPTERS],
    "import companion.scenarios",
    "from companion.calibration_sharpness.binning import UniformMassBinning",
])
def test_the_practitioner_s_imports_load_no_sympy_matplotlib_derivations_or_experiments(statement, tmp_path):
    assert loaded_after(statement, tmp_path) == []


def test_the_check_sees_heavy_modules_when_they_are_loaded(tmp_path):
    # the same probe must report what a book-only name pulls in (else the test above proves nothing)
    found = loaded_after("import companion.conformal_label_shift as m; m.uniform_weight_masses", tmp_path)
    assert "sympy" in found and "companion.conformal_label_shift.derivations" in found, found
    found = loaded_after("from companion.uniform_mass_binning import *", tmp_path)
    assert {"companion.uniform_mass_binning.experiments", "companion.uniform_mass_binning.exact_sampling"} <= set(found)


def test_every_name_of_a_chapter_package_is_reachable_in_the_three_ways(tmp_path):
    """``package.name``, ``from package import name`` and ``from package import *`` give the module's own object."""
    code = f"""
import importlib, json
bad = []
for chapter in {CHAPTERS + ["scenarios"]!r}:
    package = importlib.import_module("companion." + chapter)
    star = {{}}
    exec(f"from companion.{{chapter}} import *", star)
    for name in package.__all__:
        owners = [m for m in dir(package) if not m.startswith("_") and type(getattr(package, m)).__name__ == "module"
                  and name in getattr(getattr(package, m), "__all__", ())]
        if len(owners) != 1:
            bad.append((chapter, name, "owners", owners))
            continue
        own = getattr(getattr(package, owners[0]), name)
        fromed = {{}}
        exec(f"from companion.{{chapter}} import {{name}}", fromed)
        if not (getattr(package, name) is own and fromed[name] is own and star.get(name) is own):
            bad.append((chapter, name))
        if name not in dir(package):
            bad.append((chapter, name, "dir"))
    try:
        getattr(package, "no_such_name")
        bad.append((chapter, "no AttributeError"))
    except AttributeError:
        pass
print(json.dumps(bad))
"""
    assert fresh(code, tmp_path) == []


def test_a_lazy_name_is_found_before_its_module_is_imported(tmp_path):
    code = """
import json, sys
import companion.label_shift_weights as m
before = "companion.label_shift_weights.experiments" in sys.modules
names = dir(m)
after_dir = "companion.label_shift_weights.experiments" in sys.modules
try:
    m.not_a_name
except AttributeError as error:
    message = str(error)
print(json.dumps([before, after_dir, "derivations" in names, message,
                  "companion.label_shift_weights.experiments" in sys.modules]))
"""
    before, after_dir, listed, message, after_miss = fresh(code, tmp_path)
    assert not before and not after_dir and listed and not after_miss
    assert message == "module 'companion.label_shift_weights' has no attribute 'not_a_name'"


def test_the_version_is_the_installed_distribution_s_and_pyproject_s(tmp_path):
    assert PROJECT["name"] == NAME
    got = fresh("import json, companion; print(json.dumps([companion.__version__, 'importlib.metadata' in __import__('sys').modules]))", tmp_path)
    assert got[0] == installed_version(NAME) == PROJECT["version"], (got, PROJECT["version"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", PROJECT["version"])
    # read on first use: `import companion` alone does not pay for importlib.metadata
    assert fresh("import json, sys, companion; print(json.dumps('importlib.metadata' in sys.modules))", tmp_path) is False


def test_the_changelog_has_an_entry_for_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)$", text, re.M)
    assert headings and headings[0][0] == PROJECT["version"], headings
    entry = text.split(f"## {PROJECT['version']} ", 1)[1].split("\n## ", 1)[0]
    for name in ("LabelShiftCalibratedClassifier", "WeightedConformalClassifier", "TargetPriorEstimator", NAME):
        assert name in entry


def test_pyproject_declares_ranges_and_the_book_extra():
    def parse(deps):
        return {re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0].lower(): d for d in deps}

    core = parse(PROJECT["dependencies"])
    assert set(core) == {"numpy", "scipy", "scikit-learn"}, core
    extra = parse(PROJECT["optional-dependencies"]["book"])
    assert set(extra) == {"sympy", "matplotlib"}, extra
    for spec in [*core.values(), *extra.values()]:
        assert ">=" in spec and "==" not in spec, spec


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    from reader_code import build_wheel

    return build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


def test_the_wheel_has_the_name_version_licence_ranges_and_book_extra(wheel):
    assert wheel.name == f"shiftcal_companion-{PROJECT['version']}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        info = f"shiftcal_companion-{PROJECT['version']}.dist-info"
        meta = Parser().parsestr(zf.read(f"{info}/METADATA").decode())
        names = zf.namelist()
    assert meta["Name"] == NAME and meta["Version"] == PROJECT["version"]
    assert meta["License"] == "BSD-3-Clause" and "License :: OSI Approved :: BSD License" in meta.get_all("Classifier")
    assert f"{info}/LICENSE" in names
    requires = meta.get_all("Requires-Dist")
    assert {r for r in requires if "extra" not in r} == {"numpy>=1.25", "scipy>=1.11", "scikit-learn>=1.6"}, requires
    assert {r.replace(" ", "") for r in requires if "extra" in r} == {
        'sympy>=1.14;extra=="book"', 'matplotlib>=3.6;extra=="book"'}, requires
    assert meta.get_all("Provides-Extra") == ["book"]
    assert "companion/__init__.py" in names and "companion/_lazy.py" in names


def test_the_reader_requirements_stay_pinned_and_cover_the_book_extra():
    from reader_code import reader_requirements

    lines = [line for line in reader_requirements(ROOT).splitlines() if not line.startswith("#")]
    named = {line.split("==")[0].lower() for line in lines}
    assert all("==" in line for line in lines), lines
    assert {"numpy", "scipy", "scikit-learn", "sympy", "matplotlib", "ipykernel", "jupyterlab"} <= named
