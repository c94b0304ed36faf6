// inViewport tells, for walker ids of one document, which nodes intersect
// the viewport of their frame: a string with one character per id, '1' in
// the viewport, '2' outside it, '0' unknown (no box of its own, such as a
// display: contents element, or a node no longer in the page). It runs in
// the isolated world of the snapshot walker (js/snapshot.js), whose 'node'
// operation maps an id back to its node.
function inViewport(doc, ids) {
  'use strict';
  const walker = globalThis.__tabhiveWalker;
  if (!walker) return '';
  const w = innerWidth, h = innerHeight;
  const range = document.createRange();
  let out = '';
  for (const id of ids) {
    const n = walker.call(null, 'node', doc, id);
    let rects = null;
    if (n && n.nodeType === Node.ELEMENT_NODE) {
      rects = n.getClientRects();
    } else if (n && n.nodeType === Node.TEXT_NODE) {
      range.selectNodeContents(n);
      rects = range.getClientRects();
    } else if (n && n.nodeType === Node.DOCUMENT_NODE) {
      out += '1';
      continue;
    }
    if (!rects || rects.length === 0) {
      out += '0';
      continue;
    }
    let v = '2';
    for (const r of rects) {
      if ((r.width > 0 || r.height > 0) && r.right > 0 && r.bottom > 0 && r.left < w && r.top < h) {
        v = '1';
        break;
      }
    }
    out += v;
  }
  return out;
}
