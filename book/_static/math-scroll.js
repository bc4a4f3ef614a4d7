// A display formula wider than its box scrolls inside it (book.css) and must be reachable by
// keyboard (axe-core: scrollable-region-focusable); every other formula stays out of the tab order.
// The formulas are typeset at build time (book/_ext/prerender_math.py); this only watches widths,
// of each formula as it comes near the window (book.css lays out off-screen blocks only then) and
// of all of them when the window changes size.
(() => {
  const check = (el) => {
    if (el.scrollWidth > el.clientWidth + 1) el.setAttribute("tabindex", "0");
    else el.removeAttribute("tabindex");
  };
  const formulas = () => document.querySelectorAll('mjx-container[display="true"]');
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) check(entry.target);
  }, {rootMargin: "100% 0px"});
  window.addEventListener("load", () => formulas().forEach((el) => near.observe(el)));
  window.addEventListener("resize", () => formulas().forEach(check));
  window.matchMedia("print").addEventListener("change", () => formulas().forEach(check));
})();
