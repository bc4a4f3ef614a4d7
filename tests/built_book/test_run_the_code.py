"""A reader runs a downloaded chapter with what the built site ships (page "Run the code").

Everything comes from the built site, as a reader gets it: the companion's
wheel and the reader's requirements (``code/``, written by
``book/_ext/reader_code.py``), the commands of the Run-the-code page, and the
chapter those commands open, as its download button serves it (``_sources/``).
In a folder outside the repository the page's commands make a fresh virtual
environment and install the two files; then the chapter's set-up cell and one
figure cell run in a Jupyter kernel of that environment, with that folder as
working directory, so the checkout's ``companion`` cannot be what is imported.
The figure must come back as a PNG image.

The figure is ``fig-ch1-reliability``: it needs nothing but the set-up cell
and draws in about a second.  The installation takes the most time (pip's
cache makes later runs faster).
"""

from __future__ import annotations

import ast
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import warnings
import zipfile
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import ROOT
from figure_cells import figure_cells, setup_source
from reader_code import CODE_DIR, REQUIREMENTS, missing_modules

FIGURE = "fig-ch1-reliability"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def page_commands(html_root: Path) -> list[str]:
    """The shell commands of the Run-the-code page: its first ``bash`` block, one per line."""
    soup = BeautifulSoup((html_root / "book" / "run_the_code.html").read_text(encoding="utf-8"), "html.parser")
    block = soup.select_one("article div.highlight-bash pre")
    assert block is not None, "the Run-the-code page has no bash block of commands"
    return [line.strip() for line in block.get_text().splitlines() if line.strip()]


def page_problems(html_root: Path) -> list[str]:
    """Links of the Run-the-code page to shipped files that do not resolve, and commands naming no shipped file."""
    page = html_root / "book" / "run_the_code.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    found = []
    links = [a["href"] for a in soup.select("article a.reader-file[href]")]
    if not links:
        found.append("the page links no shipped file")
    for href in links:
        if not (page.parent / href).resolve().is_file():
            found.append(f"link {href} resolves to no file of the site")
    shipped = sorted(p.name for p in (html_root / CODE_DIR).glob("*"))
    install = [c for c in page_commands(html_root) if " install " in c]
    if len(install) != 1:
        found.append(f"expected one install command, found {install}")
    else:
        named = set(install[0].split())
        for wanted in shipped:
            if wanted not in named:
                found.append(f"the install command does not name the shipped {wanted}")
        for word in named - set(shipped):
            if word.endswith((".whl", ".txt")):
                found.append(f"the install command names {word}, which the site does not ship")
    return found


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the first chunk after the signature)."""
    if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("data is not a PNG image")
    return struct.unpack(">II", data[16:24])


def shipped_wheel(html_root: Path) -> Path:
    wheels = sorted((html_root / CODE_DIR).glob("shiftcal_companion-*.whl"))
    assert len(wheels) == 1, f"expected one companion wheel in {CODE_DIR}/, found {wheels}"
    return wheels[0]


def without(wheel: Path, folder: str, dest: Path) -> Path:
    """A copy of ``wheel`` in ``dest`` without the files under ``folder`` (a subpackage left out)."""
    dest.mkdir(parents=True, exist_ok=True)
    broken = dest / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(broken, "w") as out:
        for item in src.infolist():
            if not item.filename.startswith(folder + "/"):
                out.writestr(item, src.read(item))
    return broken


def _imports(source: str) -> set[str]:
    """Top-level modules that Python source imports absolutely, anywhere (functions included)."""
    names = set()
    with warnings.catch_warnings():  # an invalid escape in a string is not this test's business
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def needed_modules(html_root: Path) -> set[str]:
    """What the downloadable chapters' code cells and the shipped wheel's modules import."""
    names = set()
    for path in sorted((html_root / "_sources" / "book").glob("ch*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                lines = cell.source.splitlines()
                names |= _imports("\n".join(line for line in lines if not line.lstrip().startswith(("%", "!"))))
    with zipfile.ZipFile(shipped_wheel(html_root)) as wheel:
        for name in wheel.namelist():
            if name.endswith(".py"):
                names |= _imports(wheel.read(name).decode())
    return names


def unimportable(reader: dict, names: set[str]) -> list[str]:
    """The modules among ``names`` that the reader's environment cannot import."""
    code = "import importlib, json\nbad = []\n"
    code += f"for name in {sorted(names)!r}:\n    try:\n        importlib.import_module(name)\n"
    code += "    except ImportError:\n        bad.append(name)\nprint(json.dumps(bad))"
    run = subprocess.run([str(reader["prefix"] / "bin" / "python"), "-c", code], cwd=reader["folder"],
                         env=reader["env"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def _clean_env(home: Path) -> dict:
    """The process environment without anything that points Python or Jupyter back at the repository."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "JUPYTER_PATH"}}
    # Kernel specs and settings of the user's own Jupyter are out of reach: the kernel is the new environment's.
    env["JUPYTER_DATA_DIR"] = str(home / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(home / "jupyter-config")
    env["MPLCONFIGDIR"] = str(home / "matplotlib")
    env["PIP_NO_COMPILE"] = "1"  # no byte-compiling of every installed module; Python compiles what it imports
    return env


@pytest.fixture(scope="module")
def reader(html_root, tmp_path_factory):
    """A reader's folder outside the repository: the downloads, and the environment the page's commands made."""
    folder = tmp_path_factory.mktemp("reader")
    assert ROOT not in folder.resolve().parents, "the reader's folder must lie outside the repository"
    shutil.copy2(shipped_wheel(html_root), folder)
    shutil.copy2(html_root / CODE_DIR / REQUIREMENTS, folder)
    commands = page_commands(html_root)
    assert len(commands) == 3 and commands[2].split()[1:2] == ["lab"], commands
    chapter = commands[2].split()[-1]
    shutil.copy2(html_root / "_sources" / "book" / chapter, folder)
    env = _clean_env(folder)
    # make the environment, install; the third command starts a server: ask its version instead
    for command in commands[:2] + [commands[2].rsplit(" ", 1)[0] + " --version"]:
        run = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=1500)
        assert run.returncode == 0, f"`{command}` failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    env_dir = folder / commands[0].split()[-1]
    # The folder (0.7 GB) is left to pytest's clean-up of old temporary folders (it keeps the last three runs).
    return {"folder": folder, "env": env, "prefix": env_dir, "chapter": folder / chapter}


def run_figure(reader: dict, name: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run the downloaded chapter's set-up cell and figure ``name`` with the environment's Jupyter.

    Around them, two checks: the kernel is the environment's Python, and the
    ``companion`` it imported lies in that environment.
    """
    nb = nbformat.read(reader["chapter"], as_version=4)
    figure = [c for c in figure_cells(nb) if c.name == name]
    assert figure, f"{reader['chapter'].name} has no figure cell {name}"
    prefix = str(reader["prefix"].resolve())
    trimmed = nbformat.v4.new_notebook(metadata=nb.metadata)
    trimmed.cells = [
        nbformat.v4.new_code_cell(f"import os, sys\nassert os.path.realpath(sys.prefix) == {prefix!r}, sys.prefix"),
        nbformat.v4.new_code_cell(setup_source(nb)),
        nbformat.v4.new_code_cell(figure[0].source),
        nbformat.v4.new_code_cell(
            "import companion\n"
            "import json\nfrom importlib.metadata import version\n"
            f"assert os.path.realpath(companion.__file__).startswith({prefix!r}), companion.__file__\n"
            "print(json.dumps({p: version(p) for p in ('numpy', 'scipy', 'matplotlib', 'sympy', 'scikit-learn')}))"
        ),
    ]
    source = reader["folder"] / f"run-{name}.ipynb"
    nbformat.write(trimmed, source)
    executed = source.with_name(f"executed-{name}.ipynb")
    run = subprocess.run(
        [str(reader["prefix"] / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
         "--ExecutePreprocessor.timeout=600", "--output", executed.name, source.name],
        cwd=reader["folder"], env=reader["env"], capture_output=True, text=True, timeout=900,
    )
    return run, executed


def test_the_run_the_code_page_links_what_the_site_ships(html_root):
    found = page_problems(html_root)
    assert not found, "\n".join(found)


def test_the_front_page_links_the_run_the_code_page(html_root):
    soup = BeautifulSoup((html_root / "book" / "intro.html").read_text(encoding="utf-8"), "html.parser")
    assert soup.select('article a[href="run_the_code.html#run-the-code"]'), "the front page does not link the Run-the-code page"


def test_a_downloaded_chapter_runs_its_set_up_and_a_figure_with_the_shipped_wheel(reader):
    run, executed = run_figure(reader, FIGURE)
    assert run.returncode == 0, f"the chapter failed in the reader's environment:\n{run.stderr[-4000:]}"
    cells = json.loads(executed.read_text())["cells"]
    images = [out["data"]["image/png"] for out in cells[2]["outputs"] if "image/png" in out.get("data", {})]
    assert len(images) == 1, f"{FIGURE} displayed {len(images)} images"
    png = executed.with_name(f"{FIGURE}.png")
    png.write_bytes(base64.b64decode(images[0]))
    width, height = png_size(png.read_bytes())
    assert width >= 200 and height >= 150, (width, height)
    # the versions installed are the ones requirements.txt pins (those that computed the stored outputs)
    printed = "".join("".join(out.get("text", "")) for out in cells[3]["outputs"])
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M))
    for package, installed in json.loads(printed).items():
        assert pins[package] == installed, (package, installed, pins[package])


def test_every_module_a_chapter_imports_is_installed(reader, html_root):
    """What any chapter or the companion imports (not only what one figure needs) is installed."""
    names = needed_modules(html_root)
    assert {"companion", "numpy", "scipy", "matplotlib", "sympy", "sklearn", "IPython"} <= names, names
    assert unimportable(reader, names) == []
    assert unimportable(reader, {"numpy", "not_installed_anywhere"}) == ["not_installed_anywhere"]


def test_a_wheel_without_a_subpackage_fails_the_chapter(reader, tmp_path, html_root):
    """The same run with a wheel that leaves out the chapter's package ``companion.calibration_sharpness``: the set-up cell fails."""
    good = shipped_wheel(html_root)
    broken = without(good, "companion/calibration_sharpness", tmp_path)
    assert missing_modules(broken, ROOT / "companion") == sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "companion" / "calibration_sharpness").rglob("*.py")
    )
    assert missing_modules(good, ROOT / "companion") == []
    pip = [str(reader["prefix"] / "bin" / "pip"), "install", "--quiet", "--no-deps", "--force-reinstall"]
    subprocess.run(pip + [str(broken)], env=reader["env"], check=True, capture_output=True, timeout=600)
    try:
        run, _ = run_figure(reader, FIGURE)
    finally:
        subprocess.run(pip + [str(good)], env=reader["env"], check=True, capture_output=True, timeout=600)
    assert run.returncode != 0
    assert "No module named 'companion.calibration_sharpness'" in run.stderr


def test_planted_page_problems_are_caught(html_root, tmp_path):
    """A copy of the site whose page names a stale wheel and links a file that is not shipped."""
    site = tmp_path / "html"
    (site / "book").mkdir(parents=True)
    shutil.copytree(html_root / CODE_DIR, site / CODE_DIR)
    wheel = shipped_wheel(html_root).name
    page = (html_root / "book" / "run_the_code.html").read_text(encoding="utf-8")
    assert page.count(wheel) >= 2
    (site / "book" / "run_the_code.html").write_text(page.replace(wheel, "shiftcal_companion-0.0.9-py3-none-any.whl"))
    found = page_problems(site)
    assert f"the install command does not name the shipped {wheel}" in found
    assert "the install command names shiftcal_companion-0.0.9-py3-none-any.whl, which the site does not ship" in found
    assert "link ../code/shiftcal_companion-0.0.9-py3-none-any.whl resolves to no file of the site" in found


def test_png_size_reads_a_png_and_rejects_anything_else(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(3, 2), dpi=100)
    fig.savefig(tmp_path / "f.png")
    plt.close(fig)
    assert png_size((tmp_path / "f.png").read_bytes()) == (300, 200)
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))


def test_a_package_without_a_pin_stops_the_build(tmp_path):
    from sphinx.errors import ExtensionError

    from reader_code import reader_requirements

    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\nscipy>=1.17\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "c"\ndependencies = ["numpy>=2", "scipy"]\n')
    with pytest.raises(ExtensionError, match="pins no version of scipy, mpmath, scikit-learn") as caught:
        reader_requirements(tmp_path)
    assert "numpy" not in str(caught.value)
