"""Headless Chromium with the network cut off, for the browser test of the book and for printing its PDF.

Only ``file://`` (and ``data:``/``blob:``) requests succeed; every other URL
is aborted and recorded, so a page that needs the network is caught.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

#: Where Debian's package puts the browser; ``CHROMIUM`` overrides.
DEFAULT_CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "install Debian's chromium: `apt-get install -y chromium` (see README, Prerequisites)"

_LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """The Chromium executable, or a ``FileNotFoundError`` that says how to install it."""
    path = os.environ.get("CHROMIUM", DEFAULT_CHROMIUM)
    if not (Path(path).is_file() or shutil.which(path)):
        raise FileNotFoundError(f"Chromium not found at {path}: {INSTALL_HINT}")
    return path


@contextmanager
def offline_browser():
    """A Playwright browser context in which only ``file://`` requests succeed.

    Yields ``(context, blocked)``; ``blocked`` collects every aborted URL.
    """
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=_LAUNCH_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)

        def route(request_route):
            url = request_route.request.url
            if url.startswith(("file://", "data:", "blob:", "about:")):
                request_route.continue_()
            else:
                blocked.append(url)
                request_route.abort()

        context.route("**/*", route)
        try:
            yield context, blocked
        finally:
            context.close()
            browser.close()


def wait_for_mathjax(page) -> bool:
    """Wait until MathJax has typeset the page; ``False`` if the page loaded no MathJax."""
    if not page.evaluate("() => !!(window.MathJax && window.MathJax.startup)"):
        return False
    page.evaluate("() => window.MathJax.startup.promise")
    return True
