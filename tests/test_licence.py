"""Reuse is allowed in writing: LICENSE, CITATION.cff and the author line agree with the project."""

import re
import subprocess
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
PLACEHOLDER = "The authors of the open textbook"


def test_license_names_both_licences_the_authors_and_existing_files():
    text = (ROOT / "LICENSE").read_text()
    assert "Creative Commons Attribution 4.0 International (CC BY 4.0)" in text
    assert "BSD 3-Clause License" in text and "Redistributions in binary form must reproduce" in text
    assert CONFIG["author"] in text
    named = set(re.findall(r"(?<![\w/.])((?:\.ci|book|companion|tests|benchmarks)/[\w/.*]*)", text))
    assert len(named) >= 6, named
    missing = [n for n in named if not list(ROOT.glob(n.rstrip("/")))]
    assert not missing, f"LICENSE names files that do not exist: {missing}"


def test_citation_file_is_cff_1_2_0_with_the_book_s_title_authors_and_licences():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert {"cff-version", "message", "title", "authors"} <= set(cff)  # the required keys of CFF 1.2.0
    assert cff["title"] == CONFIG["title"]
    assert cff["authors"] == [{"name": CONFIG["author"]}]
    assert cff["license"] == ["CC-BY-4.0", "BSD-3-Clause"]
    assert cff["version"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_footer_states_the_licence_and_no_placeholder_author_is_left():
    footer = CONFIG["html"]["extra_footer"]
    assert "https://creativecommons.org/licenses/by/4.0/" in footer and "CC BY 4.0" in footer
    assert "BSD 3-Clause" in footer
    tracked = subprocess.run(["git", "-C", str(ROOT), "grep", "-l", PLACEHOLDER, "--", ".", f":!{Path(__file__).relative_to(ROOT)}"],
                             capture_output=True, text=True)
    assert tracked.stdout == "", f"the placeholder author is still in {tracked.stdout.split()}"
