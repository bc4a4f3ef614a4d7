"""Typesetting of the printed book (``print_pdf.py``): what a typesetter does beyond the text column.

* The API reference of each package (the sections of :data:`UNPRINTED_PARENT` in ``_toc.yml``) is
  not printed: its index page says where to read it, and every link into it leads there.
* Each chapter prints on pages of its own name, whose top margin carries its title (a CSS page-margin
  box; the page number at the foot is in ``book/_static/print.css``).
* A heading and a short block after it go into one unbreakable box (:func:`keep_headings`).
* A code block or output splits over a page break only between its lines, with at least two lines on
  each side, each part in its own frame (:func:`frame_code_lines`); the title of a box (a proof, an
  exercise, a note) never ends a page alone (:func:`keep_titles`).
* The contents carry page numbers: read from a first print (:func:`destination_pages`), written in
  by :func:`number_contents`, then printed again.
"""

from __future__ import annotations

from pathlib import Path

import yaml

#: The entry of ``_toc.yml`` whose sections, the API reference of each package, are not printed: its
#: own page says where to read them (:data:`UNPRINTED_NOTE`; 164 of 569 pages when they were printed).
UNPRINTED_PARENT = "book/api/index"
UNPRINTED_NOTE_ID = "api-reference"
UNPRINTED_NOTE = ("The reference pages of the packages are not printed (they took 164 of the PDF's 569 pages): read "
                  "them in the HTML edition of the book, at book/api/index.html, where every chapter links to "
                  "them, or in Python with help(), for example help(companion.uniform_mass_binning).")


def unprinted_pages(toc_file: Path) -> list[str]:
    """The documents of ``_toc.yml`` left out of the PDF: the sections of :data:`UNPRINTED_PARENT`."""
    toc = yaml.safe_load(Path(toc_file).read_text())
    entries = [c for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [s["file"] for c in entries if c["file"] == UNPRINTED_PARENT for s in c.get("sections", [])]


def destination_pages(pdf: Path) -> dict[str, int]:
    """The page (from 1) of every named destination of the PDF: an element id of the printed page."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    return {name.lstrip("/"): reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()}


# The pages of ``unprinted`` (documents of _toc.yml) leave the PDF: their sections and their
# entries in the contents go, every link into them leads to ``note_id`` (the page that says where
# they are), where ``note`` is appended as a paragraph.
_UNPRINTED_JS = r"""
({docs, noteId, note}) => {
  const gone = [];
  for (const doc of docs) {
    const anchor = document.getElementById('document-' + doc);
    const section = anchor && anchor.nextElementSibling;
    if (!section || section.tagName !== 'SECTION') throw new Error('unprinted page not found: ' + doc);
    gone.push(anchor, section);
  }
  const ids = new Set();
  for (const el of gone) {
    if (el.id) ids.add(el.id);
    el.querySelectorAll('[id]').forEach(e => ids.add(e.id));
  }
  let redirected = 0;
  for (const a of document.querySelectorAll('a[href]')) {
    let url;
    try { url = new URL(a.getAttribute('href'), document.baseURI); } catch (e) { continue; }
    if (url.origin === location.origin && ids.has(decodeURIComponent(url.hash.slice(1)))
        && !gone.some(el => el.contains(a))) {
      const entry = a.closest('#pdf-contents li');
      if (entry) entry.remove();
      else { a.setAttribute('href', '#' + noteId); redirected++; }
    }
  }
  gone.forEach(el => el.remove());
  document.querySelectorAll('.toctree-wrapper').forEach(w => { if (!w.querySelector('*')) w.remove(); });
  const target = document.getElementById(noteId);
  if (!target) throw new Error('no element #' + noteId + ' for the note on the unprinted pages');
  const p = document.createElement('p');
  p.className = 'pdf-unprinted-note';
  p.textContent = note;
  (target.closest('section') || target).append(p);
  return {removed: docs.length, redirected: redirected};
}
"""

# Each chapter (``section.pdf-chapter``) prints on pages of its own name whose top margin carries its
# title as the running head; every page but the first carries its number at the foot (print.css).
_RUNNING_HEADS_JS = r"""
() => {
  const style = document.createElement('style');
  const rules = [];
  document.querySelectorAll('section.pdf-chapter').forEach((section, i) => {
    const h = section.querySelector('h1, h2');
    if (!h) return;
    const c = h.cloneNode(true);
    c.querySelectorAll('.headerlink').forEach(e => e.remove());
    c.querySelectorAll('mjx-container').forEach(m => {
      const mml = m.querySelector('mjx-assistive-mml');
      m.replaceWith(mml ? mml.textContent : '');
    });
    const title = c.textContent.replace(/\s+/g, ' ').trim();
    // The chapter's anchor moves inside it: left before it, on a page of no name, it would print a blank page.
    const anchor = section.previousElementSibling;
    if (anchor && anchor.id.startsWith('document-') && !anchor.childNodes.length) section.prepend(anchor);
    section.style.page = 'pdf-chapter-' + i;
    rules.push(`@page pdf-chapter-${i} { @top-center { content: ${JSON.stringify(title)}; } }`);
  });
  style.textContent = '@media print {\n' + rules.join('\n') + '\n}';
  document.head.append(style);
  return rules.length;
}
"""

# A heading and the block after it (with the empty anchors between them) go into one unbreakable box
# when that block is at most ``tallest`` CSS pixels high, so that a figure or formula that moves to
# the next page takes its heading along; before a taller block, print.css keeps three lines with it.
_KEEP_HEADINGS_JS = r"""
(tallest) => {
  let kept = 0;
  for (const h of document.querySelectorAll('.bd-article :is(h2, h3, h4, h5, h6, p.rubric)')) {
    const group = [h];
    let next = h.nextElementSibling;
    while (next && next.tagName === 'SPAN' && !next.textContent.trim()) { group.push(next); next = next.nextElementSibling; }
    if (!next || next.matches('section, h1, h2, h3, h4, h5, h6, .pdf-keep')
        || next.getBoundingClientRect().height > tallest) continue;
    const keep = document.createElement('div');
    keep.className = 'pdf-keep';
    h.before(keep);
    keep.append(...group, next);
    kept++;
  }
  return kept;
}
"""

# Chromium honours neither orphans nor widows in a <pre>, and breaks a framed box between its top edge
# and its first line: every <pre> becomes a stack of lines (``span.pdf-line``, each a block) whose first
# and last ``edge`` lines (blank lines aside) form unbreakable groups, a box of fewer lines one group.
# The frame is drawn by the <pre> alone, as inset shadows with no block-start or block-end border or
# padding (the padding goes into the edge groups), so a break can fall only between two lines of the
# middle or before the whole box; the borders and backgrounds of its wrappers (a cell's input box, the
# highlighting divs) move onto it.
_CODE_LINES_JS = r"""
(edge) => {
  const WRAPPERS = 'div.cell_input, div[class*="highlight"], div.literal-block-wrapper, div.output';
  let split = 0, whole = 0;
  const px = (v) => parseFloat(v) || 0;
  for (const pre of document.querySelectorAll('.bd-article pre')) {
    if (!pre.getClientRects().length || pre.closest('table')) continue;
    const lines = [[]];
    const walk = (node, chain) => {
      for (const child of Array.from(node.childNodes)) {
        if (child.nodeType === Node.TEXT_NODE) {
          child.textContent.split('\n').forEach((piece, i) => {
            if (i) lines.push([]);
            if (piece) lines[lines.length - 1].push([chain, piece]);
          });
        } else if (child.tagName === 'BR') lines.push([]);
        else if (child.nodeType === Node.ELEMENT_NODE) walk(child, chain.concat([child]));
      }
    };
    walk(pre, []);
    if (lines.length > 1 && !lines[lines.length - 1].length) lines.pop();  // the newline that ends the text
    const cloned = new Set();
    const blocks = lines.map(pieces => {
      const line = document.createElement('span');
      line.className = 'pdf-line';
      for (const [chain, text] of pieces) {
        let node = document.createTextNode(text);
        for (const el of chain.slice().reverse()) {
          const copy = el.cloneNode(false);
          if (cloned.has(el)) copy.removeAttribute('id');
          cloned.add(el);
          copy.append(node);
          node = copy;
        }
        line.append(node);
      }
      if (!pieces.some(([, text]) => text.trim())) line.classList.add('pdf-blank');
      if (!pieces.length) line.append(document.createElement('br'));
      return line;
    });
    const filled = blocks.map(b => !b.classList.contains('pdf-blank'));
    let head = 0, tail = blocks.length;
    for (let seen = 0; head < blocks.length && seen < edge; head++) seen += filled[head];
    for (let seen = 0; tail > 0 && seen < edge; ) seen += filled[--tail];
    // the frame: the <pre>'s own border and its wrappers' borders as inset shadows (inner first, on top)
    const shadows = [];
    for (let el = pre; el; el = el.parentElement.matches(WRAPPERS) ? el.parentElement : null) {
      const s = getComputedStyle(el);
      for (const [side, x, y] of [['Left', 1, 0], ['Right', -1, 0], ['Top', 0, 1], ['Bottom', 0, -1]]) {
        const w = px(s['border' + side + 'Width']);
        if (w && s['border' + side + 'Style'] !== 'none') shadows.push(`inset ${x * w}px ${y * w}px 0 ${s['border' + side + 'Color']}`);
      }
      if (el !== pre) el.classList.add('pdf-unframed');
    }
    const s = getComputedStyle(pre);
    const top = px(s.paddingTop) + px(s.borderTopWidth), bottom = px(s.paddingBottom) + px(s.borderBottomWidth);
    const group = (items, cls) => {
      const g = document.createElement('span');
      g.className = 'pdf-lines ' + cls;
      g.append(...items);
      return g;
    };
    let parts;
    if (head >= tail) { parts = [group(blocks, 'pdf-lines-first pdf-lines-last')]; whole++; }
    else { parts = [group(blocks.slice(0, head), 'pdf-lines-first'), ...blocks.slice(head, tail),
                    group(blocks.slice(tail), 'pdf-lines-last')]; split++; }
    parts[0].style.paddingTop = top + 'px';
    parts[parts.length - 1].style.paddingBottom = bottom + 'px';
    pre.replaceChildren(...parts);
    pre.classList.add('pdf-code');
    pre.style.setProperty('box-shadow', shadows.join(', ') || 'none', 'important');
  }
  return {split: split, whole: whole};
}
"""

# The title of a box (a proof, an exercise, a note) is unbreakable and holds, invisibly, room for the
# box's first three lines (an empty block whose height a negative margin gives back, print.css): where
# they do not fit, the title moves over with the box; the box has no top padding or border of its own,
# so the break falls before it and leaves no frame behind.
_TITLE_ROOM_JS = r"""
(selector) => {
  const titles = document.querySelectorAll(selector);
  titles.forEach(title => {
    const room = document.createElement('span');
    room.className = 'pdf-room';
    room.setAttribute('aria-hidden', 'true');
    title.append(room);
  });
  return titles.length;
}
"""
#: The titles of boxes that :func:`keep_titles` keeps with the first lines of their box.
BOX_TITLES = ".bd-article .admonition > .admonition-title"

# The contents: a page number after each entry, first a placeholder as wide as three digits (the
# first print), then the page of the entry's destination read from that print.
_CONTENTS_NUMBERS_JS = r"""
(pages) => {
  let missing = [];
  document.querySelectorAll('#pdf-contents li > a[href^="#"]').forEach(a => {
    let span = a.querySelector(':scope > .pdf-toc-page');
    if (!span) {
      span = document.createElement('span');
      span.className = 'pdf-toc-page';
      a.append(span);
    }
    const id = decodeURIComponent(a.getAttribute('href').slice(1));
    if (pages === null) span.textContent = '000';
    else if (id in pages) span.textContent = String(pages[id]);
    else missing.push(id);
  });
  return missing;
}
"""


def leave_out(page, unprinted: dict) -> dict:
    """Leave the documents ``unprinted["docs"]`` out of the page; returns how many pages and links changed."""
    return page.evaluate(_UNPRINTED_JS, unprinted)


def add_running_heads(page) -> int:
    """Give each ``section.pdf-chapter`` a named page whose running head is its title; returns their number."""
    return page.evaluate(_RUNNING_HEADS_JS)


def keep_headings(page, tallest_px: float) -> int:
    """Group each heading with the block after it if that block is at most ``tallest_px`` high."""
    return page.evaluate(_KEEP_HEADINGS_JS, tallest_px)


def frame_code_lines(page, edge: int = 2) -> dict:
    """Set every code block and output as a stack of lines that splits only with ``edge`` lines on each
    side (see ``_CODE_LINES_JS``); returns how many can split and how many move whole."""
    return page.evaluate(_CODE_LINES_JS, edge)


def keep_titles(page) -> int:
    """Give every box title of :data:`BOX_TITLES` room for three lines below it; returns their number."""
    return page.evaluate(_TITLE_ROOM_JS, BOX_TITLES)


def number_contents(page, pages: dict[str, int] | None) -> list[str]:
    """Write the page of each contents entry (``None``: a three-digit placeholder); returns the entries
    whose destination is not in ``pages``."""
    return page.evaluate(_CONTENTS_NUMBERS_JS, pages)
