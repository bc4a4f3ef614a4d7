"""Time until every formula of a page is drawn, on a phone-class CPU: each chapter against the intro page.

Run: ``.venv/bin/python benchmarks/bench_typesetting.py [--build _build] [--rounds 3]`` after a book build.
Each page is opened in headless Chromium with no network (``book/_ext/browser.py``) at a phone's width
(390 px) with the CPU throttled 4x (CDP ``Emulation.setCPUThrottlingRate``), and timed from the start
of navigation until the page has loaded, its fonts are ready and, when the page loads MathJax, MathJax
has typeset it.  The pages are opened alternately (each round visits every page, the first page
rotating), each keeping its best of ``--rounds``, so that the intro page -- the baseline, 6 formulas --
and the chapters are measured under the same load; the table gives each page's ratio to it.
The goal (issue 28): every page at most 2 s and at most 1.3 times the intro page.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from browser import offline_browser  # noqa: E402

WIDTH, HEIGHT, THROTTLE = 390, 844, 4
BASELINE = "book/intro"

#: In the page after ``load``: wait for the fonts and for MathJax if the page loads it; the time since navigation.
_DRAWN = """async () => {
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) await window.MathJax.startup.promise;
  await document.fonts.ready;
  return {ms: performance.now(), mathjax: !!(window.MathJax && window.MathJax.startup),
          formulas: document.querySelectorAll('mjx-container').length};
}"""


def pages(html: Path) -> list[str]:
    """The intro page and every chapter page of the build, as paths without suffix."""
    chapters = sorted(p.relative_to(html).with_suffix("").as_posix() for p in (html / "book").glob("ch*.html"))
    return [BASELINE, *chapters]


def time_page(context, path: Path) -> dict:
    """One visit: milliseconds until the page is fully typeset, whether MathJax ran, number of formulas."""
    page = context.new_page()
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    page.goto(path.resolve().as_uri(), wait_until="load", timeout=300_000)
    drawn = page.evaluate(_DRAWN)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    page.close()
    return drawn


def measure(html: Path, rounds: int) -> dict[str, dict]:
    """Best of ``rounds`` alternating visits of every page: ``{page: {"s", "mathjax", "formulas"}}``."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    names = pages(html)
    best: dict[str, dict] = {}
    with offline_browser() as (context, blocked):
        for r in range(rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                drawn = time_page(context, html / f"{name}.html")
                s = drawn["ms"] / 1000
                print(f"round {r + 1}: {name} {s:.2f} s ({drawn['formulas']} formulas)", flush=True)
                if name not in best or s < best[name]["s"]:
                    best[name] = {"s": s, "mathjax": drawn["mathjax"], "formulas": drawn["formulas"]}
        if blocked:
            raise RuntimeError(f"pages tried to leave the local files: {blocked[:5]}")
    return {name: best[name] for name in names}


def markdown(best: dict[str, dict]) -> str:
    """The times as a Markdown table, each page's ratio to the intro page."""
    base = best[BASELINE]["s"]
    lines = ["| page | formulas | typeset in the browser | time (s) | / intro page |", "|---|---:|---|---:|---:|"]
    for name, row in best.items():
        lines.append(f"| {name.split('/')[-1]} | {row['formulas']} | {'yes' if row['mathjax'] else 'no'} | "
                     f"{row['s']:.2f} | {row['s'] / base:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "_build"), help="the build directory that holds html/")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    html = Path(args.build) / "html"
    if not (html / f"{BASELINE}.html").is_file():
        raise SystemExit(f"{html / BASELINE}.html not found: build the book first (make book)")
    load = os.getloadavg()[0]
    best = measure(html, args.rounds)
    print(f"\n{THROTTLE}x CPU throttling, {WIDTH} px, best of {args.rounds}, load {max(load, os.getloadavg()[0]):.1f}\n")
    print(markdown(best))


if __name__ == "__main__":
    main()
