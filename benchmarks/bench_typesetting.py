"""Time until every formula of a page is drawn, on a phone-class CPU: each chapter against the intro page.

Run: ``.venv/bin/python benchmarks/bench_typesetting.py [--build _build] [--rounds 3]`` after a book build
(``--against OTHER_BUILD``: the pages of another build too, visited in the same rounds, for a before/after).
Each page is opened in headless Chromium with no network (``book/_ext/browser.py``) at a phone's width
(390 px) with the CPU throttled 4x (CDP ``Emulation.setCPUThrottlingRate``), and timed from the start
of navigation until the page has loaded, its fonts are ready, MathJax has typeset it when the page
loads MathJax, and two frames have been drawn since: the first frame after that lays out and paints
what is on screen (the off-screen blocks are laid out when they come near, book.css), the second
starts once it is done.  The pages are opened alternately (each round visits every page, the first page
rotating), each keeping its best of ``--rounds``, so that the intro page -- the baseline, one formula --
and the chapters are measured under the same load; the table gives each page's ratio to it.
The goal (issue 28): every page at most 2 s and at most 1.3 times the intro page.

``--sections``: a copy of the build in which each chapter page is cut into one page per section (``<h2>``; the
first page keeps the chapter's opening text, each page the chapter's title), visited in the same rounds: what
a book read one section per page would cost (issue 28 measured it: 39 of the 80 section pages still took more
than 1.3 times the intro page: a first screen of formulas costs that much on its own, ``bench_page_parts.py``).

Each row also gives the time until the largest element of the first screen was drawn (Chrome's Largest
Contentful Paint), what a reader sees first; the page may still be parsing below it.

``--profile book/ch03_multiclass_lp`` instead records one visit of that page (and of the intro page)
with Chrome's tracing and prints where the time goes on the page's main thread (HTML parsing, style,
layout, paint, script, ...) and the page's bytes by part.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "book" / "_ext"))

from browser import offline_browser  # noqa: E402

WIDTH, HEIGHT, THROTTLE = 390, 844, 4
BASELINE = "book/intro"

#: In the page after ``load``: wait for MathJax if the page loads it, for the fonts, and for two frames
#: (the page on screen laid out and painted); the time since navigation.
_DRAWN = """async () => {
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) await window.MathJax.startup.promise;
  await document.fonts.ready;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  await document.fonts.ready;  // and the fonts that frame's layout asked for
  const ms = performance.now();
  const first = await new Promise((done) => {
    new PerformanceObserver((list) => done(list.getEntries().at(-1).startTime))
      .observe({type: "largest-contentful-paint", buffered: true});
    setTimeout(() => done(null), 1000);
  });
  return {ms, first, mathjax: !!(window.MathJax && window.MathJax.startup),
          formulas: document.querySelectorAll('mjx-container').length};
}"""

_ARTICLE = re.compile(r'(<article class="bd-article"[^>]*>)(.*)(</article>)', re.S)
_SECTION_TAG = re.compile(r"<(/?)section\b[^>]*>")
_H1 = re.compile(r"<h1\b.*?</h1>", re.S)


def pages(html: Path) -> list[str]:
    """The intro page and every chapter page of the build, as paths without suffix."""
    chapters = sorted(p.relative_to(html).with_suffix("").as_posix() for p in (html / "book").glob("ch*.html"))
    return [BASELINE, *chapters]


def cut_at_sections(page: str) -> list[str]:
    """A chapter page cut into one page per section (``<h2>``): the first keeps the chapter's opening text and
    first section, each other the chapter's title and its section; the page itself if it has one section."""
    found = _ARTICLE.search(page)
    if found is None:
        raise ValueError("no <article class=\"bd-article\"> in the page")
    article, depth, spans, top = found[2], 0, [], None
    for tag in _SECTION_TAG.finditer(article):
        depth += -1 if tag[1] else 1
        if not tag[1] and depth == 1:
            top = tag
        elif not tag[1] and depth == 2:
            spans.append([tag.start(), None])
        elif tag[1] and depth == 1:
            spans[-1][1] = tag.end()
        elif tag[1] and depth == 0:
            close = tag.start()
            break
    else:
        raise ValueError("the page's top <section> is not closed")
    if len(spans) < 2:
        return [page]
    h1 = _H1.search(article, top.end(), spans[0][0])
    heads = [article[:spans[0][0]]] + [article[:top.end()] + (h1[0] if h1 else "")] * (len(spans) - 1)
    return [page[:found.start(2)] + head + article[start:end] + article[close:] + page[found.end(2):]
            for head, (start, end) in zip(heads, spans)]


def sections_copy(html: Path, into: Path) -> Path:
    """A copy of the build ``html`` under ``into`` with each chapter page replaced by its pages of a section
    (``ch03_multiclass_lp-s01.html``, ...)."""
    copy = into / "html"
    shutil.copytree(html, copy)
    for chapter in sorted((copy / "book").glob("ch*.html")):
        for k, page in enumerate(cut_at_sections(chapter.read_text(encoding="utf-8")), start=1):
            (chapter.parent / f"{chapter.stem}-s{k:02d}.html").write_text(page, encoding="utf-8")
        chapter.unlink()
    return copy


def time_page(context, path: Path, trace: Path | None = None) -> dict:
    """One visit: milliseconds until the page is fully typeset, whether MathJax ran, number of formulas.

    With ``trace``, Chrome's timeline of the visit is written there.
    """
    page = context.new_page()
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
    if trace is not None:
        context.browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline"])
    page.goto(path.resolve().as_uri(), wait_until="load", timeout=300_000)
    drawn = page.evaluate(_DRAWN)
    if trace is not None:
        context.browser.stop_tracing()
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    page.close()
    return drawn


def best_visits(paths: dict, rounds: int) -> dict:
    """Best of ``rounds`` alternating visits of each page of ``{key: path}``: ``{key: {"s", "first", "mathjax",
    "formulas"}}`` (seconds to fully typeset, to the first screen).  Each round visits every page, the first
    visit rotating, so that the pages compared are measured under the same load."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    keys = list(paths)
    best: dict = {}
    with offline_browser() as (context, blocked):
        for r in range(rounds):
            for key in keys[r % len(keys):] + keys[: r % len(keys)]:
                drawn = time_page(context, paths[key])
                s = drawn["ms"] / 1000
                name = " ".join(key) if isinstance(key, tuple) else key
                print(f"round {r + 1}: {name} {s:.2f} s ({drawn['formulas']} formulas)", flush=True)
                first = drawn["first"] / 1000 if drawn["first"] is not None else float("nan")
                row = best.setdefault(key, {**drawn, "s": s, "first": first})
                row["s"], row["first"] = min(row["s"], s), min(row["first"], first)
        if blocked:
            raise RuntimeError(f"pages tried to leave the local files: {blocked[:5]}")
    return {key: best[key] for key in keys}


def measure(builds: dict[str, Path], rounds: int) -> dict[str, dict[str, dict]]:
    """:func:`best_visits` of every page of every build (``{label: html directory}``), visited in the same rounds:
    ``{label: {page: {"s", "first", "mathjax", "formulas"}}}``."""
    best = best_visits({(label, name): html / f"{name}.html" for label, html in builds.items() for name in pages(html)},
                       rounds)
    return {label: {name: row for (lab, name), row in best.items() if lab == label} for label in builds}


#: Chrome's trace events by the kind of work they are (the rest: loading the files, the event loop).
KINDS = {
    "HTML parsing": {"ParseHTML"},
    "CSS parsing": {"ParseAuthorStyleSheet"},
    "style": {"UpdateLayoutTree"},
    "layout": {"Layout"},
    "paint": {"PrePaint", "Paint", "Layerize", "UpdateLayer", "Commit", "PaintImage", "Decode Image"},
    "script": {"EvaluateScript", "FunctionCall", "TimerFire", "EventDispatch", "v8.compile", "RunMicrotasks",
               "FireAnimationFrame", "IntersectionObserverController::computeIntersections"},
    "garbage collection": {"MajorGC", "MinorGC"},
}


def _main_thread(trace: Path, url: str) -> list[tuple[dict, float, dict | None]]:
    """The events of the page's main thread (the one that parsed ``url``), each with its self time (us)
    -- its duration less that of the events nested in it -- and the innermost script event it runs in."""
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    parses = defaultdict(int)
    for e in events:
        if e.get("name") == "ParseHTML" and e.get("args", {}).get("beginData", {}).get("url") == url:
            parses[e["pid"], e["tid"]] += 1
    thread = max(parses, key=parses.get)
    spans = sorted((e for e in events if (e["pid"], e["tid"]) == thread and e.get("ph") == "X"),
                   key=lambda e: (e["ts"], -e.get("dur", 0)))
    own, script, stack = [], [], []
    for e in spans:
        while stack and stack[-1][0]["ts"] + stack[-1][0].get("dur", 0) <= e["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][1]] -= e.get("dur", 0)
        outer = stack[-1][2] if stack else None
        own.append(e.get("dur", 0))
        script.append(e if _script_url(e) is not None else outer)
        stack.append((e, len(own) - 1, script[-1]))
    return list(zip(spans, own, script))


def _script_url(event: dict) -> str | None:
    """The script file an event runs (compiles, evaluates, calls into), ``None`` for other events."""
    if event["name"] not in {"EvaluateScript", "FunctionCall", "v8.compile", "v8.produceCache"}:
        return None
    data = event.get("args", {}).get("data", {})
    return data.get("url") or data.get("fileName") or None


def main_thread_ms(trace: Path, url: str) -> dict[str, float]:
    """Self time (ms) of each kind of work on the page's main thread."""
    kind_of = {name: kind for kind, names in KINDS.items() for name in names}
    ms = defaultdict(float)
    for e, t, _ in _main_thread(trace, url):
        ms[kind_of.get(e["name"], "other (loading, event loop)")] += t / 1000
    return dict(ms)


def script_ms(trace: Path, url: str) -> dict[str, dict[str, float]]:
    """Main-thread time (ms) spent inside each script file: ``{file: {"script": ms, "style and layout": ms,
    "other": ms}}`` -- the script's own work, the style and layout it forces, the rest it causes (e.g. a
    parse of HTML it inserts).  The page's inline scripts are ``(inline)``."""
    kind_of = {name: kind for kind, names in KINDS.items() for name in names}
    ms: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for e, t, script in _main_thread(trace, url):
        if script is None:
            continue
        kind = kind_of.get(e["name"], "other")
        ms[_script_url(script)]["script" if kind == "script" else "style and layout" if kind in {"style", "layout"} else "other"] += t / 1000
    return {("(inline)" if file == url else file.split("/")[-1].split("?")[0]): dict(row) for file, row in ms.items()}


def page_bytes(page: Path) -> dict[str, int]:
    """Bytes of the page's HTML by part (the formulas in notebook outputs counted as formulas)."""
    from bs4 import BeautifulSoup

    text = page.read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "html.parser")

    def size(nodes) -> int:
        return sum(len(str(node).encode()) for node in nodes)

    formulas = soup.find_all("mjx-container")
    mathml = size(node.find("mjx-assistive-mml") or "" for node in formulas)
    outputs = soup.select(".cell_output")
    parts = {
        "formulas: CommonHTML": size(formulas) - mathml,
        "formulas: assistive MathML": mathml,
        "notebook outputs (less formulas)": size(outputs) - size(f for o in outputs for f in o.find_all("mjx-container")),
        "code cells": size(soup.select(".cell_input")),
        "inline style and script": size(soup.find_all(["style", "script"])),
        "navigation (sidebars, header)": size(soup.select(".bd-sidebar-primary, .bd-sidebar-secondary, .bd-header")),
    }
    total = len(text.encode())
    return {"page": total, **parts, "the rest (text, markup)": total - sum(parts.values()),
            "elements": len(soup.find_all(True)), "elements in formulas": len(soup.select("mjx-container *"))}


def profile(html: Path, name: str) -> str:
    """One traced visit of ``name`` and of the intro page: main-thread time by kind, time in each script
    file, and bytes by part."""
    rows, scripts = {}, {}
    with offline_browser() as (context, _), tempfile.TemporaryDirectory() as tmp:
        for page in dict.fromkeys([BASELINE, name]):
            trace = Path(tmp) / "trace.json"
            drawn = time_page(context, html / f"{page}.html", trace)
            url = (html / f"{page}.html").resolve().as_uri()
            rows[page] = {"drawn": drawn["ms"], **main_thread_ms(trace, url)}
            scripts[page] = script_ms(trace, url)
    kinds = sorted({k for row in rows.values() for k in row if k != "drawn"}, key=lambda k: -rows[name].get(k, 0))
    lines = [f"| main thread (ms, {THROTTLE}x throttled) | " + " | ".join(p.split("/")[-1] for p in rows) + " |",
             "|---|" + "---:|" * len(rows)]
    for kind in ["drawn", *kinds]:
        lines.append(f"| {'navigation to drawn' if kind == 'drawn' else kind} | "
                     + " | ".join(f"{row.get(kind, 0):.0f}" for row in rows.values()) + " |")
    files = sorted({f for row in scripts.values() for f in row}, key=lambda f: -sum(scripts[name].get(f, {}).values()))
    lines += ["", "| in script file (ms: own, style and layout, other) | " + " | ".join(p.split("/")[-1] for p in rows)
              + " |", "|---|" + "---:|" * len(rows)]
    for file in files:
        cells = [scripts[page].get(file, {}) for page in rows]
        lines.append(f"| {file} | " + " | ".join(
            " / ".join(f"{c.get(k, 0):.0f}" for k in ("script", "style and layout", "other")) for c in cells) + " |")
    sizes = {page: page_bytes(html / f"{page}.html") for page in rows}
    lines += ["", "| bytes | " + " | ".join(p.split("/")[-1] for p in rows) + " |", "|---|" + "---:|" * len(rows)]
    for part in sizes[name]:
        lines.append(f"| {part} | " + " | ".join(f"{size[part]:,}" for size in sizes.values()) + " |")
    return "\n".join(lines)


def markdown(best: dict[str, dict]) -> str:
    """The times as a Markdown table, each page's ratio to the intro page."""
    base = best[BASELINE]["s"]
    first = best[BASELINE]["first"]
    lines = ["| page | formulas | typeset in the browser | time (s) | / intro page | first screen (s) | / intro page |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for name, row in best.items():
        lines.append(f"| {name.split('/')[-1]} | {row['formulas']} | {'yes' if row['mathjax'] else 'no'} | "
                     f"{row['s']:.2f} | {row['s'] / base:.2f} | {row['first']:.2f} | {row['first'] / first:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "_build"), help="the build directory that holds html/")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", metavar="PAGE", help="trace one visit of PAGE (e.g. book/ch03_multiclass_lp)")
    parser.add_argument("--against", metavar="BUILD", help="another build directory, measured in the same rounds")
    parser.add_argument("--sections", action="store_true",
                        help="also a copy of the build with each chapter cut into pages of a section, in the same rounds")
    args = parser.parse_args()
    builds = {"build": Path(args.build) / "html"}
    if args.against:
        builds["against"] = Path(args.against) / "html"
    for html in builds.values():
        if not (html / f"{BASELINE}.html").is_file():
            raise SystemExit(f"{html / BASELINE}.html not found: build the book first (make book)")
    if args.profile:
        html = builds["build"]
        if not (html / f"{args.profile}.html").is_file():
            raise SystemExit(f"{html / args.profile}.html not found (a page as book/ch03_multiclass_lp)")
        print(profile(html, args.profile))
        return
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        if args.sections:
            builds["sections"] = sections_copy(builds["build"], Path(tmp))
        best = measure(builds, args.rounds)
    print(f"\n{THROTTLE}x CPU throttling, {WIDTH} px, best of {args.rounds}, load {max(load, os.getloadavg()[0]):.1f}")
    for label, rows in best.items():
        print(f"\n{label}: {builds[label].parent}\n\n{markdown(rows)}")


if __name__ == "__main__":
    main()
