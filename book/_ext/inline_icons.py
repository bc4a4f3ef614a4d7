"""Sphinx extension: the theme's icons drawn as inline SVG written at build time, with no icon script.

pydata-sphinx-theme loads Font Awesome's SVG-with-JavaScript bundle (``_static/scripts/fontawesome.js``,
1.5 MB) on every page: it compiles the icon sets of three styles, then replaces each ``<i class="fa-solid
fa-bars">`` with an ``<svg>`` and watches every node the page inserts (on a 49,000-element chapter, about
0.4 s of a phone's time, benchmarks/bench_typesetting.py ``--profile``).  After the build, this extension
does that replacement once, from the icon data of the same bundle (the path, the view box) and in the
markup Font Awesome writes: ``class="svg-inline--fa fa-bars ..."`` (the element's other classes kept),
its other attributes kept, ``aria-hidden`` unless it has a ``title``, which becomes the SVG's ``<title>``
named by ``aria-labelledby``.  Font Awesome's style sheet (the string the bundle injects at run time) is
``_static/fontawesome-svg.css``, linked where the bundle put its ``<style>``: before the first style sheet
of the head.  The bundle's ``<script>`` is dropped from every page.

An icon the bundle does not have is a build warning (an error in the strict build).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

BUNDLE = Path("_static") / "scripts" / "fontawesome.js"
CSS = "fontawesome-svg.css"

#: Font Awesome's style classes (as in the bundle's class-to-prefix map) and the prefix of each.
STYLES = {"fa-solid": "fas", "fas": "fas", "fa-regular": "far", "far": "far", "fa-brands": "fab", "fab": "fab"}

#: An icon set of the bundle: ``var p={...}`` then the call that registers it under its prefix.
_PACK = re.compile(r'var p=\{(?P<icons>.*?)\};!function.*?\(function\(\)\{d\("(?P<prefix>fa[a-z]+)",p\)', re.S)
#: One icon: ``name:[width,height,[aliases],"unicode","path"]`` (the name quoted when it is no identifier).
_ICON = re.compile(r'(?:"(?P<quoted>[a-z0-9-]+)"|(?P<bare>[a-z0-9_]+)):\[(?P<w>\d+),(?P<h>\d+),\[(?P<aliases>[^\]]*)\],'
                   r'"[0-9a-f]*","(?P<path>[^"]*)"\]')
#: The style sheet the bundle injects (with its default ``fa`` prefix, as the theme uses it).
_STYLE = re.compile(r"e='(?P<css>:host,:root\{[^']*)'")
#: The bundle's script tag, as the theme writes it in every page's head.
_SCRIPT = re.compile(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')
#: An element whose classes name a Font Awesome style (``fa-solid``, ``fas``...), empty as the theme writes it.
_ELEMENT = re.compile(r'<(?P<tag>i|span)(?P<attrs>\s[^>]*?\bclass="(?P<cls>[^"]*)"[^>]*)>\s*</(?P=tag)>')
#: The first style sheet of the head (``<link>`` or ``<style>``, as Font Awesome looks for it in the DOM, where a
#: ``<noscript>``'s content is text).
_SHEET = re.compile(r"<(?:link|style)\b")
_NOSCRIPT = re.compile(r"<noscript>.*?</noscript>", re.S)
_ATTR = re.compile(r'\s(?P<name>[a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="(?P<value>[^"]*)")?')


def icon_sets(bundle: str) -> dict[str, dict[str, tuple[str, int, int, str]]]:
    """``{prefix: {name or alias: (name, width, height, path)}}`` of every icon set in the Font Awesome bundle."""
    sets = {}
    for pack in _PACK.finditer(bundle):
        icons = {}
        for icon in _ICON.finditer(pack["icons"]):
            name = icon["quoted"] or icon["bare"]
            data = (name, int(icon["w"]), int(icon["h"]), icon["path"])
            icons[name] = data
            for alias in re.findall(r'"([a-z0-9-]+)"', icon["aliases"]):
                icons.setdefault(alias, data)
        sets[pack["prefix"]] = icons
    if not {"fas", "far", "fab"} <= sets.keys() or not sets["fas"]:
        raise ValueError(f"bundle: the solid, regular and brands icon sets were not found (found {sorted(sets)})")
    return sets


def svg(tag_attrs: str, sets: dict, number: int) -> str | None:
    """Font Awesome's ``<svg>`` for an element with attributes ``tag_attrs``; ``None`` if it names no icon."""
    attrs = {m["name"]: html.unescape(m["value"] or "") for m in _ATTR.finditer(tag_attrs)}
    classes = attrs.pop("class").split()
    prefix = next((STYLES[c] for c in classes if c in STYLES), None)
    names = [c[3:] for c in classes if c.startswith("fa-") and c[3:] in sets.get(prefix, {})]
    if prefix is None or not names:
        return None
    name, width, height, path = sets[prefix][names[0]]
    extra = [c for c in classes if c not in STYLES and c != f"fa-{names[0]}"]
    title = attrs.pop("title", None)
    out = {"class": " ".join(["svg-inline--fa", f"fa-{name}", *extra]), **attrs}
    title_id = f"svg-inline--fa-title-{number}"
    out.update({"aria-labelledby": title_id} if title else {"aria-hidden": "true", "focusable": "false"})
    out.update({"data-prefix": prefix, "data-icon": name, "role": "img", "xmlns": "http://www.w3.org/2000/svg",
                "viewBox": f"0 0 {width} {height}", "data-fa-i2svg": ""})
    head = "".join(f' {key}="{html.escape(value)}"' for key, value in out.items())
    label = f'<title id="{title_id}">{html.escape(title)}</title>' if title else ""
    return f'<svg{head}>{label}<path fill="currentColor" d="{path}"></path></svg>'


def inline(text: str, sets: dict, css_href: str) -> tuple[str, list[str]]:
    """A page with its icons as SVG, no bundle script and the style sheet linked; the icons not found."""
    missing, count = [], 0

    def replace(match: re.Match) -> str:
        nonlocal count
        if not any(c in STYLES for c in match["cls"].split()):
            return match[0]
        count += 1
        drawn = svg(match["attrs"], sets, count)
        if drawn is None:
            missing.append(match[0])
            return match[0]
        return drawn

    text = _ELEMENT.sub(replace, _SCRIPT.sub("", text, count=1))
    head = _NOSCRIPT.sub(lambda m: " " * len(m[0]), text[:text.find("</head>")])  # no element inside <noscript>
    first = next((m.start() for m in _SHEET.finditer(head)), len(head))
    text = text[:first] + f'<link rel="stylesheet" type="text/css" href="{css_href}" />\n' + text[first:]
    return text, missing


def inline_icons(outdir: Path) -> int:
    """Every page under ``outdir`` with its icons inline; the number of pages written."""
    bundle = (outdir / BUNDLE).read_text(encoding="utf-8")
    sets = icon_sets(bundle)
    style = _STYLE.search(bundle)
    if style is None:
        raise ValueError(f"{BUNDLE}: Font Awesome's style sheet was not found")
    (outdir / "_static" / CSS).write_text(style["css"], encoding="utf-8")
    pages = sorted(p for p in outdir.rglob("*.html") if "_static" not in p.relative_to(outdir).parts)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if not _SCRIPT.search(text):
            continue  # not a page of the theme (e.g. a redirect)
        depth = len(page.relative_to(outdir).parts) - 1
        text, missing = inline(text, sets, "../" * depth + f"_static/{CSS}")
        for element in missing:
            logger.warning(f"inline_icons: {page.relative_to(outdir)}: no Font Awesome icon for {element[:120]}")
        page.write_text(text, encoding="utf-8")
    return len(pages)


def _build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    inline_icons(Path(app.outdir))


def setup(app):
    app.connect("build-finished", _build_finished, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
