// A block that scrolls inside its own box (a display formula wider than the column, a wide code
// block, output or table) must be reachable by keyboard (axe-core: scrollable-region-focusable);
// no other block is a tab stop.  Each block is checked as it comes near the window (book.css lays
// out off-screen blocks only then), all of them when the window changes size or the page is printed.
//
// pydata-sphinx-theme makes the same check of its blocks (code, outputs, tables) all at once on
// `load`, which lays out every block of the page: about a second for a long chapter on a phone
// (benchmarks/bench_typesetting.py).  This script runs before the theme's, which is deferred to the
// end of the body, and keeps that one `load` listener from being added: the check is done here.
(() => {
  const FORMULAS = 'mjx-container[display="true"]';
  const THEME_BLOCKS = ["pre", ".nboutput > .output_area", ".cell_output > .output", ".jp-RenderedHTMLCommon",
                        ".pst-scrollable-table-container"];
  // a formula's glyphs may reach a pixel past its box without making it a scroll region (book.css)
  const scrolls = (el) => el.matches(FORMULAS)
    ? el.scrollWidth > el.clientWidth + 1
    : el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
  const check = (el) => {
    if (scrolls(el)) el.setAttribute("tabindex", "0");
    else el.removeAttribute("tabindex");
  };
  // the blocks, found by tag or class and filtered (a query of the whole selector list matches each of a long
  // chapter's 49,000 elements against all six selectors: several times slower on load)
  const among = (found, selector) => Array.prototype.filter.call(found, (el) => el.matches(selector));
  const blocks = () => [
    ...among(document.getElementsByTagName("mjx-container"), FORMULAS), ...document.getElementsByTagName("pre"),
    ...among(document.getElementsByClassName("output_area"), THEME_BLOCKS[1]),
    ...among(document.getElementsByClassName("output"), THEME_BLOCKS[2]),
    ...document.getElementsByClassName("jp-RenderedHTMLCommon"), ...document.getElementsByClassName("pst-scrollable-table-container"),
  ];

  const addListener = window.addEventListener;
  const isThemeCheck = (type, listener) => type === "load" && String(listener).includes(THEME_BLOCKS[4]);
  window.addEventListener = function (type, listener, options) {
    if (!isThemeCheck(type, listener)) addListener.call(this, type, listener, options);
  };
  document.addEventListener("DOMContentLoaded", () => { delete window.addEventListener; });  // the theme has run

  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) check(entry.target);
  }, {rootMargin: "100% 0px"});
  addListener("load", () => blocks().forEach((el) => near.observe(el)));
  addListener("resize", () => blocks().forEach(check));
  window.matchMedia("print").addEventListener("change", () => blocks().forEach(check));
})();
