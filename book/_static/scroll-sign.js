// A box that scrolls sideways (a display formula, a table, a code or output block wider than the
// column) says so: this script names the edges where content is cut off in the box's
// data-clipped attribute ("right" at the start, "left right" in the middle, "left" at the end), and
// book.css fades those edges and draws a thin scrollbar.  A box that fits carries no attribute.
// Boxes are measured as they come near the window (book.css lays out off-screen blocks only
// then), again when the window changes size, and whenever the reader scrolls one.
(() => {
  const BOXES = 'mjx-container[display="true"], .pst-scrollable-table-container, div.highlight > pre, div.cell_output div.output';
  const mark = (el) => {
    const room = el.scrollWidth - el.clientWidth;
    const sides = room > 1 ? [el.scrollLeft > 1 && "left", el.scrollLeft < room - 1 && "right"].filter(Boolean) : [];
    if (sides.length) el.dataset.clipped = sides.join(" ");
    else delete el.dataset.clipped;
  };
  // the boxes, found by tag or class and filtered (a query of the whole selector list matches each of a long
  // chapter's 49,000 elements against all four selectors: several times slower on load)
  const among = (found) => Array.prototype.filter.call(found, (el) => el.matches(BOXES));
  const boxes = () => [
    ...among(document.getElementsByTagName("mjx-container")), ...document.getElementsByClassName("pst-scrollable-table-container"),
    ...among(document.getElementsByTagName("pre")), ...among(document.getElementsByClassName("output")),
  ];
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) mark(entry.target);
  }, {rootMargin: "100% 0px"});
  window.addEventListener("load", () => boxes().forEach((el) => near.observe(el)));
  window.addEventListener("resize", () => boxes().forEach(mark));
  document.addEventListener("scroll", (event) => {
    if (event.target instanceof Element && event.target.matches(BOXES)) mark(event.target);
  }, {capture: true, passive: true});
})();
