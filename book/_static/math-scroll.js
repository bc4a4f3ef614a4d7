// A display formula wider than its box scrolls inside it (book.css) and must be reachable by
// keyboard (axe-core: scrollable-region-focusable); every other formula stays out of the tab order.
// The formulas are typeset at build time (book/_ext/prerender_math.py); this only watches widths.
(() => {
  const mark = () => {
    for (const el of document.querySelectorAll('mjx-container[display="true"]')) {
      if (el.scrollWidth > el.clientWidth + 1) el.setAttribute("tabindex", "0");
      else el.removeAttribute("tabindex");
    }
  };
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
  window.matchMedia("print").addEventListener("change", mark);
})();
