// Typeset TeX formulas with MathJax 3 (the npm package mathjax-full, the version the browser copy of
// sphinx-mathjax-offline has): CommonHTML output with its assistive MathML, as the browser would draw it.
// Used at build time by book/_ext/prerender_math.py, one process for the whole book.
//
// stdin:  {"formulas": [[tex, display], ...], "fontURL": "...", "scale": 1.0}
// stdout: {"html": [outer HTML of each mjx-container], "errors": [[index, message], ...], "css": "..."}
//         css: the CommonHTML style sheet of every character used (the fonts are read from fontURL).
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
  const chtml = new CHTML({fontURL: request.fontURL, scale: request.scale || 1, adaptiveCSS: request.adaptiveCSS !== false});
  const doc = mathjax.document("", {InputJax: tex, OutputJax: chtml});
  const html = request.formulas.map(([source, display], index) => {
    current = index;
    const node = doc.convert(source, {display: !!display, em: 16, ex: 8, containerWidth: 80 * 16});
    return adaptor.outerHTML(node);
  });
  const css = adaptor.textContent(chtml.styleSheet(doc));
  return {html, errors, css};
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(main(JSON.parse(input))));
});
