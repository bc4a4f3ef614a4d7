"""A downloaded chapter notebook shows its MyST markup rendered in JupyterLab (jupyterlab-myst).

The book's Markdown cells are MyST: exercise boxes (``:::{exercise}``), statements and proofs
(``{prf:theorem}``, ``{prf:proof}``), equation and statement references (``{eq}``, ``{prf:ref}``).
Plain JupyterLab shows all of that as raw text; the reader's requirements
(``requirements-reader.txt``, ``book/_ext/reader_code.py``) therefore install ``jupyterlab-myst``.

Here the student edition's download of ch02 (its solutions cut out as ``book/_ext/student_source.py``
does) is cut to two of its Markdown cells, a theorem with its proof and an exercise, and opened in
JupyterLab started from the project's environment (headless, a free port, a token, its own
configuration folder) in Debian's Chromium driven by Playwright (the launch settings of
``book/_ext/browser.py``; no Chromium is a failure, not a skip).  With jupyterlab-myst the theorem,
the proof and the exercise are boxes and no role is left as text; with the extension disabled
(as ``jupyter labextension disable`` does, in the server's own configuration folder) the same
notebook shows the raw markup, so the check can fail.  The version checked is the one the reader's
requirements pin.  One JupyterLab and one Chromium for the module: under a minute (53 s on two busy cores).
"""
from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from browser import _LAUNCH_ARGS, chromium_path  # noqa: E402
from student_source import strip_solutions  # noqa: E402

CHAPTER = ROOT / "book" / "ch02_uniform_mass_binning.ipynb"
#: Raw MyST that must not be left in a rendered cell's text.
RAW_MARKUP = (":::{exercise}", "{prf:theorem}", "{prf:proof}", "{eq}", "{prf:ref}", "{numref}")
#: A Markdown cell as shown: JupyterLab's own renderer, or jupyterlab-myst's widget.
SHOWN = ".jp-MarkdownCell .jp-RenderedMarkdown, .jp-MarkdownCell .myst"
#: The boxes jupyterlab-myst draws (myst-to-react): an <aside> for a statement, a proof or an exercise,
#: with a title bar naming its kind ("Theorem 1 (Risk bound ...)", "Proof 1", "Exercise 1 (...)").
BOXES = """() => [...document.querySelectorAll('.jp-MarkdownCell aside.myst-proof, .jp-MarkdownCell aside.myst-exercise')]
  .map((box) => box.querySelector('.myst-proof-title, .myst-exercise-title')?.textContent.trim() || '')"""
TEXT = f"""() => [...document.querySelectorAll('{SHOWN}')].map((cell) => cell.innerText)"""


def downloaded_notebook(folder: Path) -> Path:
    """Two Markdown cells of ch02 as the student edition serves it: a theorem with a proof and an exercise."""
    student, _ = strip_solutions(json.loads(CHAPTER.read_text(encoding="utf-8")))
    text = lambda cell: "".join(cell["source"])  # noqa: E731
    markdown = [c for c in student["cells"] if c["cell_type"] == "markdown"]
    theorem = next(c for c in markdown if "{prf:theorem}" in text(c) and "{prf:proof}" in text(c)
                   and "{eq}" in text(c))
    exercise = next(c for c in markdown if ":::{exercise}" in text(c) and "{prf:ref}" in text(c))
    path = folder / "ch02.ipynb"
    path.write_text(json.dumps({**student, "cells": [theorem, exercise]}), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def jupyterlab(root: Path, config: Path):
    """JupyterLab serving ``root`` on a free port, with its own configuration in ``config``.

    Yields ``(url, token, env)``; ``env`` runs ``jupyter`` commands against the same configuration.
    """
    config.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTERLAB_SETTINGS_DIR": str(config / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(config / "workspaces"), "JUPYTER_RUNTIME_DIR": str(config / "runtime"),
           "JUPYTER_PLATFORM_DIRS": "1"}
    port, token = free_port(), secrets.token_hex(16)
    log = (config / "lab.log").open("w")
    lab = subprocess.Popen([BIN / "jupyter", "lab", "--no-browser", f"--ServerApp.port={port}",
                            "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
                            f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}",
                            "--LabApp.news_url=None",
                            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
                           + (["--allow-root"] if os.geteuid() == 0 else []),
                           env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if lab.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{(config / 'lab.log').read_text()}")
                time.sleep(0.3)
        yield url, token, env
    finally:
        lab.terminate()
        try:
            lab.wait(timeout=5)
        except subprocess.TimeoutExpired:
            lab.kill()
        log.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    notebook = downloaded_notebook(tmp_path_factory.mktemp("download"))
    with jupyterlab(notebook.parent, tmp_path_factory.mktemp("jupyter")) as (url, token, env):
        yield SimpleNamespace(url=url, token=token, env=env, notebook=notebook)


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, headless, launched as book/_ext/browser.py does (none installed: an error, not a skip)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=_LAUNCH_ARGS)
        yield browser
        browser.close()


def shown_cells(lab, chromium, ready: str) -> tuple[list[str], list[str]]:
    """The notebook opened in JupyterLab: the titles of the MyST boxes and the text of each Markdown cell.

    ``ready`` is a JavaScript condition waited for (at most 30 s) before reading the page.
    """
    page = chromium.new_page(viewport={"width": 1280, "height": 2000})
    try:
        # JupyterLab and its extensions come from the local server: nothing else is fetched
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(lab.url)
                   else route.abort())
        page.goto(f"{lab.url}/lab/tree/{lab.notebook.name}?token={lab.token}")
        page.wait_for_selector(SHOWN, timeout=45_000)
        try:
            page.wait_for_function(f"() => {ready}", timeout=30_000)
        except PlaywrightTimeout:
            pass  # the caller's assertions say what is missing
        return page.evaluate(BOXES), page.evaluate(TEXT)
    finally:
        page.close()


def raw_markup(cells: list[str]) -> set[str]:
    return {mark for mark in RAW_MARKUP for cell in cells if mark in cell}


def test_downloaded_notebook_shows_boxes_and_no_raw_markup(chromium, lab):
    titles, cells = shown_cells(lab, chromium, f"({BOXES})().length >= 3")
    kinds = [title.split()[0] for title in titles]
    assert {"Theorem", "Proof", "Exercise"} <= set(kinds), f"boxes drawn: {titles}"
    assert len(cells) == 2 and not raw_markup(cells), f"raw MyST left in the rendered cells: {raw_markup(cells)}"


def test_without_jupyterlab_myst_the_same_notebook_shows_raw_markup(chromium, lab):
    """The control: plain JupyterLab (the extension disabled in this server's configuration) fails both checks."""
    # what `jupyter labextension disable --level=user jupyterlab-myst` writes, read at each page load
    page_config = Path(lab.env["JUPYTER_CONFIG_DIR"]) / "labconfig" / "page_config.json"
    page_config.parent.mkdir(exist_ok=True)
    page_config.write_text(json.dumps({"disabledExtensions": {"jupyterlab-myst": True}}))
    try:
        titles, cells = shown_cells(
            lab, chromium, f"[...document.querySelectorAll('{SHOWN}')].filter((c) => c.innerText.length > 100).length >= 2")
    finally:
        page_config.unlink()
    assert not titles
    assert {":::{exercise}", "{eq}", "{prf:ref}"} <= raw_markup(cells), f"raw markup seen: {raw_markup(cells)}"


def test_the_reader_installs_the_version_checked_here():
    """requirements-reader.txt names jupyterlab-myst with requirements.txt's pin, the version installed here."""
    from importlib.metadata import version

    from reader_code import reader_requirements

    pinned = f"jupyterlab-myst=={version('jupyterlab-myst')}"
    assert pinned in (ROOT / "requirements.txt").read_text().splitlines()
    assert pinned in reader_requirements(ROOT).splitlines()
