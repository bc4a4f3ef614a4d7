// Typeset TeX formulas with MathJax 3 (the npm package mathjax-full, the version the browser copy of
// sphinx-mathjax-offline has): CommonHTML output with its assistive MathML, as the browser would draw it.
// Used at build time by book/_ext/prerender_math.py, one process for the whole book.
//
// stdin:  {"formulas": [[tex, display], ...], "fontURL": "...", "scale": 1.0}
// stdout: {"html": [outer HTML of each mjx-container], "errors": [[index, message], ...], "css": "..."}
//         css: the CommonHTML style sheet of the characters used (the fonts are read from fontURL),
//         and the style every formula's container had (see slim).
"use strict";

const {mathjax} = require("mathjax-full/js/mathjax.js");
const {TeX} = require("mathjax-full/js/input/tex.js");
const {CHTML} = require("mathjax-full/js/output/chtml.js");
const {liteAdaptor} = require("mathjax-full/js/adaptors/liteAdaptor.js");
const {RegisterHTMLHandler} = require("mathjax-full/js/handlers/html.js");
const {AssistiveMmlHandler} = require("mathjax-full/js/a11y/assistive-mml.js");
require("mathjax-full/js/input/tex/AllPackages.js");  // registers every package; the list below picks

// The browser's tex-chtml.js: these packages loaded, and the ones its autoload extension loads on
// first use of one of their macros.
const PACKAGES = [
  "base", "ams", "newcommand", "noundefined", "configmacros",
  "action", "amscd", "bbox", "boldsymbol", "braket", "bussproofs", "cancel", "cases", "centernot",
  "color", "enclose", "extpfeil", "gensymb", "html", "mhchem", "unicode", "upgreek", "verb",
];

// Markup that the style sheet or the HTML parser gives every formula anyway is left out of each
// (190 kB of a long chapter's 1.8 MB): the container's style, the same for all, goes to the style
// sheet; <math> needs no xmlns in HTML, whose parser puts it in the MathML namespace; the style sheet
// makes the assistive MathML unselectable (user-select: none) without IE's `unselectable`; its rules
// for the container select it by its class MathJax, not by jax="CHTML" (the same specificity, see
// CONTAINER); no rule reads the assistive MathML's display="inline" (only display="block"), and
// its <math> carries the display mode for assistive technology.
function slim(adaptor, container, shared) {
  if (adaptor.getAttribute(container, "style") === shared) adaptor.removeAttribute(container, "style");
  if (adaptor.hasClass(container, "MathJax")) adaptor.removeAttribute(container, "jax");
  const assistive = adaptor.lastChild(container);
  if (adaptor.kind(assistive) !== "mjx-assistive-mml") return;
  adaptor.removeAttribute(assistive, "unselectable");
  if (adaptor.getAttribute(assistive, "display") === "inline") adaptor.removeAttribute(assistive, "display");
  adaptor.removeAttribute(adaptor.firstChild(assistive), "xmlns");
}

// The style sheet's selector of a formula's container, and the one that replaces it: an attribute and a
// class weigh the same in the cascade, so every rule keeps its place against the book's style sheets.
const CONTAINER = [/mjx-container\[jax="CHTML"\]/g, "mjx-container.MathJax"];

function main(request) {
  const errors = [];
  let current = -1;
  const adaptor = liteAdaptor();
  AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
  const tex = new TeX({
    packages: PACKAGES,
    formatError: (jax, err) => {
      errors.push([current, err.message]);
      return jax.formatError(err);
    },
  });
  const chtml = new CHTML({fontURL: request.fontURL, scale: request.scale || 1});
  const doc = mathjax.document("", {InputJax: tex, OutputJax: chtml});
  const convert = (source, display) => doc.convert(source, {display, em: 16, ex: 8, containerWidth: 80 * 16});
  const shared = adaptor.getAttribute(convert("x", false), "style");
  const html = request.formulas.map(([source, display], index) => {
    current = index;
    const node = convert(source, !!display);
    slim(adaptor, node, shared);
    return adaptor.outerHTML(node);
  });
  const css = (adaptor.textContent(chtml.styleSheet(doc)) + `\nmjx-container[jax="CHTML"] {\n  ${shared}\n}\n`)
    .replace(...CONTAINER);
  return {html, errors, css};
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(main(JSON.parse(input))));
});
