// Snapshot walker: computes, inside the page, the tree chrome-devtools-mcp's
// default (non-verbose) snapshot shows — Chrome's accessibility tree
// filtered as Puppeteer filters it — without Accessibility.getFullAXTree,
// which on a large page costs seconds (page/snapshot.go explains the choice).
//
// It runs in an isolated world of each frame (Page.createIsolatedWorld), so
// the page neither sees it nor can disturb it (its own prototypes, its own
// globals), and is installed once per document as a global of that world
// (see walkerInstall in page/snapshot.go). Calls, with Runtime.callFunctionOn:
//
//   "walk"              returns the kept nodes as text, one line each, in
//                       pre-order (format in page/snapshot/walk.go):
//                       depth, id, role, opaque flag, name, AX properties.
//   "id"     on element returns the element's id (the caller hangs an
//                       iframe's own walk under its <iframe> by it).
//   "root"   on element hands in the element's closed shadow root, which the
//                       page's scripts cannot reach either (the caller finds
//                       it with DOM.describeNode), for the next walks.
//   "node" (doc, id)    returns the DOM node an id names, or null when it is
//                       gone or the id is from another document.
//
// Node identity: ids come from a WeakMap kept in the isolated world's
// global, which lives as long as the document, so a node keeps its id
// across snapshots; `doc` is a random token of that state, so ids of two
// documents never mix. Generated content has ids of its own that resolve
// to the element generating it.
//
// What it reproduces, and how (held against Chrome's own tree by the pages
// of page/testdata/snapshot/, see TestSnapshotFidelity, and by the HTML of
// $GOROOT/doc and /usr/share/doc, see TestSnapshotCorpus):
//   - which nodes Chrome's tree has and which it ignores: Blink's inclusion
//     rules (ShouldIncludeBasedOnSemantics), hiding (display, visibility,
//     aria-hidden, inert, a modal dialog, content-visibility, contents
//     content-visibility: auto skips, closed <details>), white space between
//     elements (CanIgnoreSpace) and at line wraps, aria-owns;
//   - roles (WAI-ARIA, HTML-AAM as Blink maps them, with its internal role
//     names), names and descriptions (accname as Blink computes it: labels,
//     aria-labelledby, embedded control values, name from contents with
//     Blink's space-insertion rules, the 100-node cap, titles), values and
//     states, as Accessibility.getFullAXTree reports them;
//   - the text of StaticText nodes as layout makes it: CSS white-space
//     collapsing across inline elements and block boundaries,
//     text-transform, generated content with counters and quotes;
//   - Puppeteer's filter (interesting nodes only), so that only what is
//     printed leaves the page.
// Built-in controls whose parts live in a user-agent shadow tree (date
// fields, media controls, plugins) are "opaque": the walker leaves a marker
// and the caller fills in Chrome's own subtree (Accessibility.queryAXTree).
function snapshotWalker(op, a1, a2) {
  'use strict';
  const g = globalThis;
  let st = g.__tabhiveSnapshot;
  if (!st) {
    st = {
      doc: Math.random().toString(36).slice(2) + performance.timeOrigin.toString(36).replace('.', ''),
      ids: new WeakMap(), // node → id
      extra: new WeakMap(), // element → {kind: id} for nodes with no DOM node of their own
      refs: new Map(), // id → WeakRef of the node (or element, for extra nodes)
      next: 1,
      closed: new WeakMap(), // host → its closed shadow root, handed in by the caller
      probed: new WeakSet(), // custom elements already reported as possible closed hosts
    };
    g.__tabhiveSnapshot = st;
  }
  const idOf = (node) => {
    let id = st.ids.get(node);
    if (id === undefined) {
      id = st.next++;
      st.ids.set(node, id);
      st.refs.set(id, new WeakRef(node));
    }
    return id;
  };
  // extraID names generated content (::before text, a <details> default
  // summary): it resolves to the element that generates it.
  const extraID = (el, kind) => {
    let m = st.extra.get(el);
    if (!m) st.extra.set(el, (m = {}));
    if (m[kind] === undefined) {
      m[kind] = st.next++;
      st.refs.set(m[kind], new WeakRef(el));
    }
    return m[kind];
  };
  if (op === 'id') return idOf(this);
  if (op === 'root') {
    st.closed.set(this, a1);
    return true;
  }
  if (op === 'node') {
    if (a1 !== st.doc) return null;
    const ref = st.refs.get(a2);
    const n = ref && ref.deref();
    return n && n.isConnected ? n : null;
  }

  const doc = document;
  const win = doc.defaultView;

  // ---------------------------------------------------------------------
  // Tree building.
  //
  // Records (r) stand for the objects of Chrome's tree:
  //   k: kind: doc, el, text, br, gen (generated content: ::before/::after,
  //      a presentational list item's marker), summary (a <details>' default
  //      summary), popup (a <select>'s), opaque (see above);
  //   n: DOM node (the generating element for gen and summary), r: role,
  //   p: parent, c: children, ign: ignored, hid: hidden via visibility,
  //   t: text (text, gen, br), f: inline formatting context it lays out in,
  //   at: atomic inline, blk: block-level or out of flow, nol: no layout
  //   object (display: contents), foc: focusable, cs: computed style.
  // Names, descriptions and inclusion are computed lazily and memoized on
  // the record (name, from, desc, inc).
  // ---------------------------------------------------------------------

  const byEl = new Map(); // element → record, for relations (labels, aria-labelledby)
  const suspects = []; // ids of possible closed shadow hosts
  // At most this many are reported a walk, so that a page of thousands of
  // custom elements spreads the look-ups over several snapshots.
  const MAX_HOSTS = 256;
  const shadowRoots = []; // shadow roots met, for their labels
  const owners = []; // records of elements with aria-owns, in tree order
  let focused = doc.hasFocus() ? doc.activeElement : null;
  if (focused && focused.shadowRoot) {
    // Focus inside an open shadow tree: the deepest active element.
    let f = focused;
    while (f && f.shadowRoot && f.shadowRoot.activeElement) f = f.shadowRoot.activeElement;
    focused = f;
  }

  // Inline formatting context: state of white-space collapsing.
  const newIFC = () => ({ space: true, trail: null, prev: '' });
  const endIFC = (ifc) => {
    // Collapsible space at the end of a line goes away.
    if (ifc.trail) {
      ifc.trail.t = ifc.trail.t.slice(0, -1);
      ifc.trail = null;
    }
    ifc.space = true;
    ifc.prev = '';
  };

  // Elements never rendered, whatever their style says.
  const SKIP_TAGS = new Set(['template', 'script', 'style', 'head', 'title', 'meta', 'link', 'noscript', 'base']);
  const FLEX_DISPLAYS = new Set(['flex', 'grid', 'inline-flex', 'inline-grid', 'block flex', 'block grid', 'inline flex', 'inline grid']);
  const isInlineDisplay = (d) => d === 'inline' || d === 'ruby' || d === 'ruby-text' || d === 'inline ruby';
  const isAtomicDisplay = (d) => d.startsWith('inline-') || d.startsWith('inline ');

  // Elements that are replaced or render as one box in their line.
  const ATOMIC_TAGS = new Set(['img', 'input', 'button', 'select', 'textarea', 'video', 'audio', 'canvas', 'iframe', 'embed', 'object', 'svg', 'meter', 'progress', 'math']);

  const whiteSpaceOf = (cs) => {
    const c = cs.whiteSpaceCollapse;
    if (c) return c; // collapse, preserve, preserve-breaks, break-spaces, preserve-spaces
    switch (cs.whiteSpace) {
      case 'pre': case 'pre-wrap': return 'preserve';
      case 'pre-line': return 'preserve-breaks';
      case 'break-spaces': return 'break-spaces';
      default: return 'collapse';
    }
  };

  const transform = (s, tt, ifc) => {
    switch (tt) {
      case 'uppercase': return s.toUpperCase();
      case 'lowercase': return s.toLowerCase();
      case 'capitalize': {
        let out = '';
        let prev = ifc.prev;
        for (const ch of s) {
          // A word starts after a space or punctuation, apostrophes aside.
          const start = prev === '' || (/[\s\p{P}]/u.test(prev) && prev !== "'" && prev !== '\u2019');
          out += start && /\p{L}/u.test(ch) ? ch.toUpperCase() : ch;
          prev = ch;
        }
        return out;
      }
    }
    return s;
  };

  // collapse applies CSS white-space processing to one text run in ifc and
  // returns the text layout keeps of it.
  const collapse = (raw, ws, ifc) => {
    let s;
    if (ws === 'collapse') {
      s = raw.replace(/[ \t\n\r\f]+/g, ' ');
      if (ifc.space && s.charCodeAt(0) === 32) s = s.slice(1);
    } else if (ws === 'preserve-breaks') {
      // A carriage return (only a character reference makes one: the parser
      // turns CR LF into LF) is a collapsible space here...
      s = raw.replace(/[ \t\f\r]+/g, ' ').replace(/ ?\n ?/g, '\n');
      if (ifc.space && s.charCodeAt(0) === 32) s = s.slice(1);
    } else {
      // ... and kept as it is where spaces are preserved.
      s = raw;
    }
    return s;
  };

  const mk = (k, n, parent) => {
    const r = { k, n, r: '', c: [], ign: false, hid: false, t: '', f: null, at: false, nol: false, p: parent };
    if (parent) parent.c.push(r);
    return r;
  };

  // contentItems parses the computed `content` of a ::before/::after into
  // what layout makes of it: runs of text (strings and attr() merge into
  // one), counters and quotes (each its own text), images; and the CSS alt
  // text after "/", if any. It returns null for no content.
  const contentItems = (el, cs, counters) => {
    const c = cs.content;
    if (!c || c === 'none' || c === 'normal') return null;
    const items = [];
    let alt = null;
    let run = null;
    const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([-\w]+)\s*\)|(\/)|(counters?)\(([^)]*)\)|url\([^)]*\)|(open-quote|close-quote|no-open-quote|no-close-quote)|[-\w]+(?:\([^)]*\))?/g;
    const unq = (s) => s.replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_, hex, ch) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : ch));
    let m;
    while ((m = re.exec(c))) {
      const str = m[1] ?? m[2];
      if (alt !== null) {
        if (str !== undefined) alt += unq(str);
        else if (m[3]) alt += el.getAttribute(m[3]) ?? '';
        continue;
      }
      if (m[4]) { alt = ''; continue; }
      if (str !== undefined || m[3]) {
        const t = str !== undefined ? unq(str) : el.getAttribute(m[3]) ?? '';
        if (run) run.s += t;
        else items.push((run = { k: 'text', s: t }));
        continue;
      }
      run = null;
      if (m[5]) items.push({ k: 'text', s: counterText(m[5], m[6], counters) });
      else if (m[0].startsWith('url(')) items.push({ k: 'image' });
      else if (m[7] === 'open-quote') items.push({ k: 'text', s: '\u201c' });
      else if (m[7] === 'close-quote') items.push({ k: 'text', s: '\u201d' });
    }
    if (!items.length && alt === null) return null;
    return { items, alt };
  };

  // CSS counters, for generated content that prints them: name → stack of
  // instances ({v}), innermost last.
  const counterText = (fn, args, counters) => {
    const parts = args.split(',').map((x) => x.trim());
    const name = parts[0];
    const stack = counters && counters.get(name);
    if (fn === 'counters') {
      const sep = parts[1] ? parts[1].replace(/^["']|["']$/g, '') : '';
      const style = parts[2] || 'decimal';
      return (stack && stack.length ? stack : [{ v: 0 }]).map((c) => formatCounter(c.v, style)).join(sep);
    }
    const v = stack && stack.length ? stack[stack.length - 1].v : 0;
    return formatCounter(v, parts[1] || 'decimal');
  };
  const formatCounter = (n, style) => {
    const alpha = (n) => { let s = ''; while (n > 0) { n--; s = String.fromCharCode(97 + (n % 26)) + s; n = Math.floor(n / 26); } return s; };
    const roman = (n) => {
      let s = '';
      for (const [v, r] of [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']]) while (n >= v) { s += r; n -= v; }
      return s;
    };
    switch (style) {
      case 'none': return '';
      case 'disc': return '\u2022';
      case 'circle': return '\u25e6';
      case 'square': return '\u25aa';
      case 'decimal-leading-zero': return (n < 10 && n >= 0 ? '0' : '') + n;
      case 'lower-alpha': case 'lower-latin': return n > 0 ? alpha(n) : String(n);
      case 'upper-alpha': case 'upper-latin': return n > 0 ? alpha(n).toUpperCase() : String(n);
      case 'lower-roman': return n > 0 && n < 4000 ? roman(n) : String(n);
      case 'upper-roman': return n > 0 && n < 4000 ? roman(n).toUpperCase() : String(n);
    }
    return String(n);
  };
  // Parse "name int name int" (counter-reset/-increment/-set values).
  const counterPairs = (v) => {
    if (!v || v === 'none') return null;
    const out = [];
    const toks = v.trim().split(/\s+/);
    for (let i = 0; i < toks.length; i++) {
      const n = parseInt(toks[i + 1], 10);
      if (!Number.isNaN(n)) { out.push([toks[i], n]); i++; } else out.push([toks[i], null]);
    }
    return out;
  };
  // applyCounters updates the counters for an element (or pseudo-element)
  // style: resets open instances in the sibling scope, sets, increments.
  const applyCounters = (cs, counters, scope) => {
    const reset = counterPairs(cs.counterReset);
    if (reset) for (const [name, v] of reset) {
      let st2 = counters.get(name);
      if (!st2) counters.set(name, (st2 = []));
      st2.push({ v: v ?? 0 });
      scope.push(name);
    }
    const set = counterPairs(cs.counterSet);
    if (set) for (const [name, v] of set) {
      const st2 = counters.get(name);
      if (st2 && st2.length) st2[st2.length - 1].v = v ?? 0;
    }
    const inc = counterPairs(cs.counterIncrement);
    if (inc) for (const [name, v] of inc) {
      let st2 = counters.get(name);
      if (!st2) counters.set(name, (st2 = []));
      if (!st2.length) { st2.push({ v: 0 }); scope.push(name); }
      st2[st2.length - 1].v += v ?? 1;
    }
  };

  // Generated content (::before/::after) costs a style resolution per
  // element to look for, more than the rest of the walk; the style sheets
  // tell which elements can have it. scanSheets collects the selectors of
  // the rules that style ::before/::after, whether their content uses
  // counters, and whether some sheet could not be read (cross-origin) or
  // has nested rules, in which case every element is checked.
  const PSEUDO_RE = /:(?::)?(?:before|after)\b/i;
  const splitSelectors = (sel) => {
    const out = [];
    let depth = 0, start = 0, quote = '';
    for (let i = 0; i < sel.length; i++) {
      const c = sel[i];
      if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) { out.push(sel.slice(start, i)); start = i + 1; }
    }
    out.push(sel.slice(start));
    return out;
  };
  const FONT_SHEETS = /^https?:\/\/fonts\.(googleapis\.com|bunny\.net)\/css2?\?/;
  const scanSheets = (sheets) => {
    const res = { all: false, sels: [], host: false, counters: false };
    const visit = (rules) => {
      for (const rule of rules) {
        if (res.all) return;
        const sel = rule.selectorText;
        if (sel === undefined) {
          if (rule.cssRules) visit(rule.cssRules);
          continue;
        }
        if (rule.cssRules && rule.cssRules.length) {
          // Nested style rules have relative selectors: no query for them.
          if (PSEUDO_RE.test(rule.cssText)) { res.all = true; res.counters = true; }
          continue;
        }
        if (!PSEUDO_RE.test(sel)) continue;
        for (const part of splitSelectors(sel)) {
          if (!PSEUDO_RE.test(part)) continue;
          let base = part.replace(/::?(?:before|after)\b/gi, '').trim();
          if (base === '' || /[>+~]$/.test(base)) base += '*';
          if (base.startsWith(':host')) res.host = true;
          else res.sels.push(base);
        }
        const content = rule.style && rule.style.content;
        if (content && content.includes('counter')) res.counters = true;
      }
    };
    for (const sheet of sheets) {
      // Google Fonts' style sheets (on countless sites, and cross-origin so
      // unreadable) hold only @font-face rules.
      if (sheet.href && FONT_SHEETS.test(sheet.href)) continue;
      let rules;
      try {
        rules = sheet.cssRules;
      } catch {
        res.all = true;
        res.counters = true;
        return res;
      }
      visit(rules);
    }
    return res;
  };
  // pseudoScope returns which elements under root may have generated
  // content: false for none, true for any, or the set of them.
  const pseudoScope = (root, scan) => {
    if (scan.all) return true;
    if (!scan.sels.length) return false;
    try {
      return new Set(root.querySelectorAll(scan.sels.join(',')));
    } catch {
      const set = new Set();
      for (const sel of scan.sels) {
        try {
          for (const e of root.querySelectorAll(sel)) set.add(e);
        } catch {
          return true;
        }
      }
      return set;
    }
  };
  const sheetsOf = (root) => [...root.styleSheets, ...(root.adoptedStyleSheets || [])];
  // Whether anything may be contenteditable: asking each element costs a
  // style look-up.
  let mayEdit = doc.designMode === 'on' || !!doc.querySelector('[contenteditable]');
  const editableEl = (el) => mayEdit && el.isContentEditable;
  // Likewise aria-disabled, which disables a whole subtree.
  let mayAriaDisable = !!doc.querySelector('[aria-disabled]');

  // Flat-tree children of a node, as layout sees them.
  const flatChildren = (n) => {
    if (n.nodeType === 1) {
      const sr = n.shadowRoot || st.closed.get(n);
      if (sr) return sr.childNodes;
      if (n.localName === 'slot' && n.getRootNode() instanceof ShadowRoot) {
        const assigned = n.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return n.childNodes;
  };

  // build adds the records of DOM node n to parent. ctx carries what
  // children inherit: ifc, ws, tt, hidden (aria-hidden / inert: laid out,
  // but not in the tree), pseudo (whether ::before/::after may exist),
  // flexParent (children are blockified).
  const buildChildren = (parent, n, ctx) => {
    const kids = flatChildren(n);
    for (let i = 0; i < kids.length; i++) build(parent, kids[i], ctx);
  };

  const build = (parent, n, ctx) => {
    const type = n.nodeType;
    if (type === 3) {
      if (ctx.ws === undefined) {
        ctx.ws = whiteSpaceOf(ctx.cs);
        ctx.tt = ctx.cs.textTransform;
      }
      const ifc = ctx.ifc;
      let s = collapse(n.data, ctx.ws, ifc);
      if (s === '') {
        // White space collapsed away has no node, unless layout gave it a
        // box after all: where a line wraps at it (the white space opening an
        // inline element after "See "), Chrome's tree has a " " there.
        if (ctx.ws === 'collapse' && !ctx.hidden && n.data !== '' && !ctx.flexParent && layoutText(n, ctx.cs) &&
          spaceRelevant(n) && wrapsAt(n)) {
          const r = mk('text', n, parent);
          r.t = ' ';
          r.f = ifc;
          r.hid = ctx.vis;
          if (ctx.labelText) r.ign = true;
        }
        return;
      }
      if (ctx.flexParent) {
        // An anonymous flex item: its own formatting context.
        const own = newIFC();
        s = collapse(n.data, ctx.ws, own);
        if (s.trim() === '' && ctx.ws === 'collapse') return;
      }
      s = transform(s, ctx.tt, ifc);
      if (ctx.owner) ctx.owner.kid = true;
      // Collapsible white space between two things read apart anyway gets no
      // node (Blink's CanIgnoreSpace); it still separates words in layout.
      const skip = ctx.hidden || (ctx.ws === 'collapse' && s === ' ' && !spaceRelevant(n));
      const r = skip ? { k: 'text', t: s } : mk('text', n, parent);
      if (ctx.labelText) r.ign = true;
      r.t = s;
      r.f = ifc;
      r.hid = ctx.vis;
      if (ctx.ws === 'collapse' || ctx.ws === 'preserve-breaks') {
        ifc.space = s.charCodeAt(s.length - 1) === 32;
        ifc.trail = ifc.space ? r : null;
      } else {
        ifc.space = s.endsWith('\n');
        ifc.trail = null;
      }
      ifc.prev = s.slice(-1);
      if (ctx.flexParent) endIFC(ifc);
      return;
    }
    if (type !== 1) return;
    const el = n;
    const tag = el.localName;
    const cs = win.getComputedStyle(el);
    let display = cs.display;
    if (display === 'none') {
      // <option>s of a <select> are not laid out one by one, yet are in the tree.
      return;
    }
    if (tag === 'br') {
      if (ctx.owner) ctx.owner.kid = true;
      endIFC(ctx.ifc);
      if (!ctx.hidden) {
        const r = mk('br', el, parent);
        r.r = 'LineBreak';
        r.t = '\n';
        r.f = ctx.ifc;
        r.hid = cs.visibility !== 'visible';
        byEl.set(el, r);
      }
      return;
    }
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'wbr') {
      // A word break opportunity: no text and never shown, but Chrome's
      // names read a space at it ("long<wbr>word" names a link "long word").
      if (!ctx.hidden) {
        const r = mk('wbr', el, parent);
        r.ign = true;
        r.f = ctx.ifc;
      }
      return;
    }

    const hidden = ctx.hidden || ariaHidden(el) || el.inert || (modal !== null && blockedByModal(el));
    let r;
    if (hidden) {
      r = { k: 'el', n: el, c: [], p: parent, hidden: true };
    } else {
      r = mk('el', el, parent);
      byEl.set(el, r);
      if (el.hasAttribute('aria-owns')) owners.push(r);
    }
    r.cs = cs;
    r.hid = cs.visibility !== 'visible';
    if (ctx.counters) applyCounters(cs, ctx.counters, ctx.scope);
    const contents = display === 'contents';
    const inlineLevel = contents || isInlineDisplay(display) || isAtomicDisplay(display);
    // Floats and absolutely positioned boxes are blockified, so only a
    // block-level display can be out of flow.
    let out = false;
    if (!inlineLevel) {
      const pos = cs.position;
      out = pos === 'absolute' || pos === 'fixed' || cs.float !== 'none';
    }
    let block = !inlineLevel;
    if (ctx.flexParent && !contents) block = true;
    const atomic = !contents && !block && (isAtomicDisplay(display) || ATOMIC_TAGS.has(tag));
    r.nol = contents;
    r.at = atomic;
    r.blk = block || out;
    // Whether the block that lays this element out gets a block child (its
    // children are then not inline) or an inline one.
    if (ctx.owner && !contents) {
      if (block && !out) ctx.owner.blockKid = true;
      else if (!out) ctx.owner.kid = true;
    }

    const outer = ctx.ifc;
    let inner = outer;
    if (out) {
      inner = newIFC();
    } else if (block) {
      endIFC(outer);
      inner = newIFC();
    } else if (atomic) {
      inner = newIFC();
    }
    r.f = block || out ? inner : outer;

    if (!hidden) {
      roleOf(r);
      if (!r.hid && opaque(el, tag)) {
        // Built-in controls whose accessible parts live in a user-agent
        // shadow tree the page cannot reach (date fields, media controls,
        // plugins): the caller fills them in from Chrome's own tree.
        r.k = 'opaque';
        if (atomic) { outer.space = false; outer.trail = null; outer.prev = 'x'; }
        if (block) { endIFC(outer); }
        return;
      }
    }

    const flex = FLEX_DISPLAYS.has(display);
    // Text of a <label> that only names its checkbox or radio is ignored:
    // the control carries it.
    const labelText = tag === 'label' && !hidden && redundantLabel(el);
    if (labelText) r.ign = true;
    const sr = el.shadowRoot || st.closed.get(el);
    let ps = ctx.ps;
    let hostPseudo = false;
    if (sr) {
      shadowRoots.push(sr);
      // Inside a shadow tree only its own style sheets apply.
      const scan = scanSheets(sheetsOf(sr));
      ps = pseudoScope(sr, scan);
      hostPseudo = scan.all || scan.host;
      if (scan.counters && !ctx.counters) ctx.counters = new Map();
      if (!mayEdit && sr.querySelector('[contenteditable]')) mayEdit = true;
      if (!mayAriaDisable && sr.querySelector('[aria-disabled]')) mayAriaDisable = true;
    }
    const ownPseudo = ctx.ps === true || hostPseudo || (ctx.ps && ctx.ps.has(el));
    const c2 = {
      ps,
      cs,
      counters: ctx.counters,
      scope: [],
      owner: block || out || atomic ? r : ctx.owner,
      labelText,
      ifc: inner,
      ws: undefined, // white space and text transform, read when text needs them
      tt: undefined,
      hidden,
      vis: cs.visibility !== 'visible',
      flexParent: flex,
    };
    // A defined custom element may host a closed shadow root the page's
    // scripts cannot see either; the caller looks it up once (DOM.describeNode
    // pierces) and hands it in for the next walk.
    if (!sr && !hidden && suspects.length < MAX_HOSTS && !st.probed.has(el) && maybeClosedHost(el, tag)) {
      st.probed.add(el);
      suspects.push(idOf(el));
    }

    if (!leafElement(r, el, tag, cs)) {
      if (r.markerText && !hidden) presentationalMarker(r, el, cs);
      if (ownPseudo) pseudo(r, el, '::before', c2);
      if (tag === 'details' && !hasSummary(el)) {
        defaultSummary(r, el, c2);
      }
      if ((inlineLevel || !skippedContents(el, cs)) && !(tag === 'details' && !el.open)) {
        buildChildren(r, el, c2);
      } else if (tag === 'details') {
        // A closed <details> shows only its summary.
        for (const k of el.children) if (k.localName === 'summary') { build(r, k, c2); break; }
      }
      if (ownPseudo) pseudo(r, el, '::after', c2);
    }
    // Counters reset inside the element go out of scope with it.
    for (const name of c2.scope) c2.counters.get(name).pop();
    r.inl = !!r.kid && !r.blockKid;
    if (block || out) endIFC(inner);
    if (atomic) endIFC(inner);
    if (atomic) {
      outer.space = false;
      outer.trail = null;
      outer.prev = 'x';
    }
    if (block) {
      outer.space = true;
      outer.trail = null;
      outer.prev = '';
    }
  };

  // skippedContents reports whether layout skips the element's contents:
  // content-visibility: hidden, or auto while far from the viewport. Chrome's
  // tree leaves such contents out (until they are scrolled near), so a
  // snapshot of a long page with content-visibility: auto sections (the
  // one-page Node.js API) shows only the sections near the viewport.
  const skippedContents = (el, cs) => {
    const cv = cs.contentVisibility;
    if (cv === 'hidden') return true;
    if (cv !== 'auto') return false;
    // A child in a skipped subtree fails checkVisibility with
    // contentVisibilityAuto, which answers without computing the child's
    // style (a plain checkVisibility or getComputedStyle would compute the
    // skipped subtree's: 6 ms against 390 ms on the Node.js API page). A
    // child with no box fails it too: any child passing it settles it.
    let seen = 0;
    for (const k of flatChildren(el)) {
      if (k.nodeType !== 1 || SKIP_TAGS.has(k.localName)) continue;
      if (k.checkVisibility({ contentVisibilityAuto: true })) return false;
      if (++seen === 3) break;
    }
    if (seen) return true;
    // Only text: nothing tells without forcing its layout (a range's boxes
    // are laid out on demand); taken as shown.
    return false;
  };

  const pseudo = (r, el, which, ctx) => {
    const cs = win.getComputedStyle(el, which);
    if (cs.display === 'none') return;
    if (ctx.counters) applyCounters(cs, ctx.counters, ctx.scope);
    const c = contentItems(el, cs, ctx.counters);
    if (!c) return;
    const ifc = ctx.ifc;
    const hid = cs.visibility !== 'visible';
    if (c.alt !== null || c.items.some((it) => it.k === 'image')) {
      // An image (or CSS alt text): one node standing for the whole
      // pseudo-element, laid out as an atomic inline.
      const g2 = ctx.hidden ? { k: 'gen' } : mk('gen', el, r);
      g2.img = true;
      g2.t = c.alt ?? '';
      g2.f = ifc;
      g2.at = true;
      g2.kind = which;
      g2.hid = hid;
      ifc.space = false;
      ifc.trail = null;
      ifc.prev = 'x';
      return;
    }
    const ws = whiteSpaceOf(cs);
    // An inline-block (inline-flex, ...) pseudo-element is an atomic inline:
    // in a name from content its text is set apart from its siblings by a
    // space, as an element's would be (rustdoc's "\0" before an emoji).
    const atomic = isAtomicDisplay(cs.display);
    c.items.forEach((it, n) => {
      const s0 = collapse(it.s, ws, ifc);
      if (s0 === '') return;
      const s = transform(s0, cs.textTransform, ifc);
      const g2 = ctx.hidden ? { k: 'gen' } : mk('gen', el, r);
      g2.t = s;
      g2.f = ifc;
      g2.kind = which + n;
      g2.hid = hid;
      if (atomic) g2.at = true;
      if (ws === 'collapse' || ws === 'preserve-breaks') {
        ifc.space = s.charCodeAt(s.length - 1) === 32;
        ifc.trail = ifc.space ? g2 : null;
      } else {
        ifc.space = false;
        ifc.trail = null;
      }
      ifc.prev = s.slice(-1);
    });
  };

  const opaque = (el, tag) => {
    switch (tag) {
      case 'input':
        switch (el.type) {
          case 'date': case 'datetime-local': case 'month': case 'week': case 'time': return true;
        }
        return false;
      case 'video': case 'audio': return el.hasAttribute('controls');
      case 'object': case 'embed': return true;
    }
    return false;
  };

  // maybeClosedHost reports whether el may host a closed shadow root: a
  // defined custom element, or an element allowed to host one that renders a
  // box but has no content of its own to fill it.
  const SHADOW_HOSTS = new Set(['article', 'aside', 'blockquote', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5',
    'h6', 'header', 'main', 'nav', 'p', 'section', 'span']);
  const maybeClosedHost = (el, tag) => {
    if (tag.includes('-')) return el.matches(':defined');
    if (!SHADOW_HOSTS.has(tag)) return false;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) return false;
      if (c.nodeType === 3 && /[^ \t\n\r\f]/.test(c.data)) return false;
    }
    return el.offsetWidth > 0 && el.offsetHeight > 0;
  };

  // A list item made presentational (its list has another role) shows its
  // marker as plain text, where a list item's own ListMarker is never shown.
  const presentationalMarker = (r, el, cs) => {
    if (cs.display !== 'list-item') return;
    const type = cs.listStyleType;
    if (!type || type === 'none') return;
    let text;
    if (type.startsWith('"') || type.startsWith("'")) text = type.slice(1, -1);
    else {
      let n = 1;
      const list = el.parentElement;
      if (list && list.localName === 'ol') {
        const items = [...list.children].filter((c) => c.localName === 'li');
        const reversed = list.hasAttribute('reversed');
        n = list.hasAttribute('start') ? parseInt(list.getAttribute('start'), 10) || 1 : reversed ? items.length : 1;
        for (const li of items) {
          if (li.hasAttribute('value')) n = parseInt(li.getAttribute('value'), 10) || n;
          if (li === el) break;
          n += reversed ? -1 : 1;
        }
      }
      const v = formatCounter(n, type);
      text = type === 'disc' || type === 'circle' || type === 'square' ? v + ' ' : v + '. ';
    }
    const m = mk('gen', el, r);
    m.t = text;
    m.kind = 'marker';
    m.f = newIFC();
  };

  const hasSummary = (el) => {
    for (const k of el.children) if (k.localName === 'summary') return true;
    return false;
  };
  // A <details> without <summary> shows a default one ("Details").
  const defaultSummary = (r, el, ctx) => {
    if (ctx.hidden) return;
    const s = mk('summary', el, r);
    s.r = 'DisclosureTriangle';
    s.t = 'Details';
    s.f = newIFC();
  };

  // A modal <dialog> makes the rest of the document inert.
  const modal = doc.querySelector('dialog:modal');
  const blockedByModal = (el) => el !== modal && !modal.contains(el) && !el.contains(modal);

  const redundantLabel = (el) => {
    const c = el.control;
    if (!c || c.localName !== 'input' || (c.type !== 'checkbox' && c.type !== 'radio')) return false;
    const ccs = win.getComputedStyle(c);
    if (ccs.display === 'none' || ccs.visibility !== 'visible') return false;
    const l = c.getAttribute('aria-label');
    if (l && l.trim()) return false;
    const lb = idrefs(c, 'aria-labelledby');
    if (lb && lb.length) return false;
    // A label with semantics of its own (a role, ARIA attributes, a title)
    // is kept with its text.
    const role = el.getAttribute('role');
    if ((role && role.trim()) || el.getAttribute('title') || hasAriaAttr(el)) return false;
    const first = el.firstElementChild;
    return !first || (first === c && !c.nextElementSibling);
  };

  // Neighbours of a white-space text node, as Blink's NodeTraversal finds
  // them (DOM order, leaving the node's own subtree).
  const prevAbs = (n) => {
    for (let x = n; x; x = x.parentNode) {
      if (x.previousSibling) return x.previousSibling;
      if (!x.parentNode || x.parentNode.nodeType !== 1) return null;
    }
    return null;
  };
  const nextSkip = (n) => {
    for (let x = n; x; x = x.parentNode) {
      if (x.nextSibling) return x.nextSibling;
      if (!x.parentNode || x.parentNode.nodeType !== 1) return null;
    }
    return null;
  };
  const displayOf = (el) => {
    let d = displays.get(el);
    if (d === undefined) {
      d = win.getComputedStyle(el).display;
      displays.set(el, d);
    }
    return d;
  };
  const displays = new Map();
  const CELL_ROLES = /^(cell|gridcell|columnheader|rowheader)$/;
  // canIgnoreNextTo is Blink's CanIgnoreSpaceNextTo: whether white space
  // beside n can go because n is read apart from its neighbours anyway.
  const canIgnoreNextTo = (n, after, depth) => {
    if (!n) return true;
    if (depth > 3) return false;
    if (n.nodeType === 3) {
      if (n.data === '') return false;
      return /^[ \t\n\r\f]*$/.test(n.data) ? true : false;
    }
    if (n.nodeType !== 1) return true; // comments have no layout
    const tag = n.localName;
    const d = displayOf(n);
    if (d === 'none' || d === 'contents') return true;
    if (tag === 'br') return !after || !n.hasAttribute('role');
    // Images (media elements lay out as images too) keep spaces around them.
    if (tag === 'img' || tag === 'video' || tag === 'audio' || (tag === 'input' && n.type === 'image')) return false;
    if (d !== 'inline' || ATOMIC_TAGS.has(tag)) return true;
    const role = n.getAttribute('role');
    if (role && CELL_ROLES.test(role.trim().split(/\s+/)[0])) return true;
    const kids = flatChildren(n);
    let child = null;
    for (let i = 0; i < kids.length; i++) {
      const k = kids[after ? i : kids.length - 1 - i];
      if (k.nodeType === 3 ? k.data !== '' : k.nodeType === 1 && displayOf(k) !== 'none') { child = k; break; }
    }
    if (!child) return canIgnoreNextTo(after ? nextSkip(n) : prevAbs(n), after, depth + 1);
    return canIgnoreNextTo(child, after, depth + 1);
  };
  // The box a node's text lays out in: its nearest non-inline ancestor.
  const boxOf = (n) => {
    for (let p = n.parentElement; p; p = p.parentElement) {
      const d = displayOf(p);
      if (d !== 'inline' && d !== 'contents') return p;
    }
    return null;
  };
  const spaceRelevant = (n) => {
    const prev = prevAbs(n);
    const next = nextSkip(n);
    if (!prev || !next) return false;
    if (canIgnoreNextTo(prev, false, 0) || canIgnoreNextTo(next, true, 0)) return false;
    const box = boxOf(n);
    if (prev.nodeType === 3 && boxOf(prev) !== box) return false;
    if (next.nodeType === 3 && boxOf(next) !== box) return false;
    return true;
  };

  // layoutText tells whether Blink gives white space n a layout object
  // (Text::TextLayoutObjectIsNeeded): after text or an inline, or first in
  // an inline element; parentCS is its parent's style.
  const layoutText = (n, parentCS) => {
    let p = n.previousSibling;
    while (p && p.nodeType === 8) p = p.previousSibling;
    if (!p) return isInlineDisplay(parentCS.display);
    if (p.nodeType === 3) return true;
    return p.nodeType === 1 && p.localName !== 'br' && displayOf(p).startsWith('inline');
  };
  // wrapsAt reports whether a line wraps at white space n: what comes after
  // it starts below the end of what comes before.
  const edgeRect = (x, end) => {
    let rects;
    if (x.nodeType === 3) {
      if (!x.data.length) return null;
      const rg = doc.createRange();
      rg.setStart(x, end ? x.data.length - 1 : 0);
      rg.setEnd(x, end ? x.data.length : 1);
      rects = rg.getClientRects();
    } else if (x.nodeType === 1) {
      rects = x.getClientRects();
    } else return null;
    return rects.length ? rects[end ? rects.length - 1 : 0] : null;
  };
  const wrapsAt = (n) => {
    const a = edgeRect(prevAbs(n), true);
    const b = edgeRect(nextSkip(n), false);
    return !!a && !!b && b.top >= a.bottom - 1;
  };

  const ariaHidden = (el) => {
    const v = el.getAttribute('aria-hidden');
    return v !== null && v.trim().toLowerCase() === 'true';
  };

  // leafElement reports whether the element's DOM children are not part of
  // the tree (form controls render their own content).
  const leafElement = (r, el, tag) => {
    switch (tag) {
      case 'input': case 'textarea': case 'iframe': case 'frame': case 'img': case 'video': case 'audio':
      case 'canvas': case 'embed': case 'object': case 'progress': case 'meter':
        if (tag === 'canvas' || tag === 'object' || tag === 'video' || tag === 'audio') {
          // Fallback content is in the tree for a canvas (Chrome exposes it).
          if (tag === 'canvas') return false;
        }
        return true;
      case 'select':
        selectChildren(r, el);
        return true;
    }
    return false;
  };

  const selectChildren = (r, el) => {
    if (r.hidden) return;
    // Options hang under the combobox (through an ignored popup) or the
    // listbox, groups flattened for a combobox.
    const listbox = el.multiple || el.size > 1;
    const add = (parent, o) => {
      if (o.localName === 'option') {
        const or = mk('el', o, parent);
        or.r = 'option';
        // An option can take focus unless disabled itself (a disabled
        // <select> greys its options but leaves them focusable).
        or.foc = !o.disabled && !(o.parentElement && o.parentElement.localName === 'optgroup' && o.parentElement.disabled);
        or.cs = win.getComputedStyle(o);
        or.hid = r.hid;
        or.f = newIFC();
        byEl.set(o, or);
        optionText(or, o);
      } else if (o.localName === 'optgroup') {
        const gr = mk('el', o, parent);
        gr.r = 'group';
        gr.cs = win.getComputedStyle(o);
        gr.f = newIFC();
        byEl.set(o, gr);
        for (const c of o.children) add(gr, c);
      } else if (o.localName === 'hr') {
        const hr = mk('el', o, parent);
        hr.r = 'separator';
        hr.cs = win.getComputedStyle(o);
        hr.f = newIFC();
      }
    };
    const popup = listbox ? r : mk('popup', null, r);
    if (!listbox) {
      popup.r = 'MenuListPopup';
      popup.ign = false;
    }
    for (const c of el.children) add(popup, c);
  };
  // optionText adds the text of an option as StaticText, as a listbox
  // option shows it.
  const optionText = (or, o) => {
    const t = o.label.replace(/[ \t\n\r\f]+/g, ' ').trim();
    if (t) {
      const tr = mk('text', o.firstChild || o, or);
      tr.t = t;
      tr.f = or.f;
    }
  };

  // ---------------------------------------------------------------------
  // Roles.
  // ---------------------------------------------------------------------

  // ARIA roles Chrome knows, with the name it reports when it differs.
  const ARIA = {
    alert: 1, alertdialog: 1, application: 1, article: 1, banner: 1, blockquote: 1, button: 1, caption: 1, cell: 1,
    checkbox: 1, code: 1, columnheader: 1, combobox: 1, comment: 1, complementary: 1, contentinfo: 1, definition: 1,
    deletion: 1, dialog: 1, directory: 'list', document: 1, emphasis: 1, feed: 1, figure: 1, form: 1, generic: 1,
    grid: 1, gridcell: 1, group: 1, heading: 1, img: 'image', image: 'image', insertion: 1, link: 1, list: 1, listbox: 1,
    listitem: 1, log: 1, main: 1, mark: 1, marquee: 1, math: 1, menu: 1, menubar: 1, menuitem: 1, menuitemcheckbox: 1,
    menuitemradio: 1, meter: 1, navigation: 1, none: 'none', note: 1, option: 1, paragraph: 1, presentation: 'none',
    progressbar: 1, radio: 1, radiogroup: 1, region: 1, row: 1, rowgroup: 1, rowheader: 1, scrollbar: 1, search: 1,
    searchbox: 1, sectionfooter: 1, sectionheader: 1, separator: 1, slider: 1, spinbutton: 1, status: 1, strong: 1,
    subscript: 1, suggestion: 1, superscript: 1, switch: 1, tab: 1, table: 1, tablist: 1, tabpanel: 1, term: 1,
    textbox: 1, time: 1, timer: 1, toolbar: 1, tooltip: 1, tree: 1, treegrid: 1, treeitem: 1,
    'graphics-document': 1, 'graphics-object': 1, 'graphics-symbol': 1,
  };
  for (const d of ['abstract', 'acknowledgments', 'afterword', 'appendix', 'backlink', 'biblioentry', 'bibliography',
    'biblioref', 'chapter', 'colophon', 'conclusion', 'cover', 'credit', 'credits', 'dedication', 'endnote', 'endnotes',
    'epigraph', 'epilogue', 'errata', 'example', 'footnote', 'foreword', 'glossary', 'glossref', 'index', 'introduction',
    'noteref', 'notice', 'pagebreak', 'pagefooter', 'pageheader', 'pagelist', 'part', 'preface', 'prologue',
    'pullquote', 'qna', 'subtitle', 'tip', 'toc']) ARIA['doc-' + d] = 1;

  // Global ARIA attributes: their presence turns role=none back to the
  // element's own role (presentational role conflict resolution).
  const GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-description',
    'aria-details', 'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby',
    'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];

  // explicitRole is the first role token Chrome knows; form and region
  // count only on an element with a name (else they are no landmarks).
  const explicitRole = (el) => {
    const attr = el.getAttribute('role');
    if (attr === null) return '';
    for (const tok of attr.trim().toLowerCase().split(/\s+/)) {
      const v = ARIA[tok];
      if (!v) continue;
      if ((tok === 'form' || tok === 'region') && !hasLabel(el)) continue;
      return v === 1 ? tok : v;
    }
    return '';
  };

  const inputRole = (el) => {
    switch (el.type) {
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'color': return 'ColorWell';
      case 'date': case 'month': case 'week': return 'Date';
      case 'datetime-local': return 'DateTime';
      case 'time': return 'InputTime';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'hidden': return 'none';
      default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
  };

  // Sectioning content (and <main>, for <header>/<footer>) scopes
  // <header>, <footer> and <aside> to a section rather than the page.
  const scoped = (el, main) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      switch (p.localName) {
        case 'article': case 'aside': case 'nav': case 'section': return true;
        case 'main': if (main) return true;
      }
      const role = p.getAttribute('role');
      if (role && /\b(article|complementary|navigation|region)\b/.test(role)) return true;
      if (main && role && /\bmain\b/.test(role)) return true;
    }
    return false;
  };

  const nativeRole = (el, tag) => {
    switch (tag) {
      case 'a': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'abbr': return 'Abbr';
      case 'address': return 'group';
      case 'article': return 'article';
      case 'aside': return scoped(el, false) && !hasLabel(el) ? 'generic' : 'complementary';
      case 'audio': return 'Audio';
      case 'blockquote': return 'blockquote';
      case 'body': return 'generic';
      case 'button': return 'button';
      case 'canvas': return 'Canvas';
      case 'caption': return 'caption';
      case 'code': return 'code';
      case 'dd': return 'definition';
      case 'del': case 's': return tag === 'del' ? 'deletion' : 'generic';
      case 'details': return 'group';
      case 'dfn': return 'term';
      case 'dialog': return 'dialog';
      case 'dl': return 'list';
      case 'dt': return 'term';
      case 'em': return 'emphasis';
      case 'embed': return 'EmbeddedObject';
      case 'fieldset': return 'group';
      case 'figcaption': return 'Figcaption';
      case 'figure': return 'figure';
      case 'footer': return scoped(el, true) ? 'SectionFooter' : 'contentinfo';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': return scoped(el, true) ? 'SectionHeader' : 'banner';
      case 'hgroup': return 'group';
      case 'hr': return 'separator';
      case 'html': return 'none';
      case 'iframe': case 'frame': return 'Iframe';
      case 'img': return el.getAttribute('alt') === '' && !hasLabel(el) && !el.hasAttribute('title') ? 'none' : 'image';
      case 'input': return inputRole(el);
      case 'ins': return 'insertion';
      case 'label': return 'LabelText';
      case 'legend': return 'LegendText';
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'mark': return 'mark';
      case 'math': return 'math';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'object': return 'PluginObject';
      case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'pre': return 'generic';
      case 'progress': return 'progressbar';
      case 'ruby': return 'Ruby';
      case 'search': return 'search';
      // Without a name a section is no landmark: Chrome maps it to generic.
      case 'section': return hasLabel(el) ? 'region' : 'generic';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'strong': return 'strong';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'summary': return summaryOf(el) ? 'DisclosureTriangle' : 'generic';
      case 'svg': return 'image';
      case 'table': return 'table';
      case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
      case 'td': return inGrid(el) ? 'gridcell' : 'cell';
      case 'th': return thRole(el);
      case 'textarea': return 'textbox';
      case 'time': return 'time';
      case 'tr': return 'row';
      case 'video': return 'Video';
    }
    return 'generic';
  };

  const summaryOf = (el) => {
    const p = el.parentElement;
    if (!p || p.localName !== 'details') return false;
    for (const k of p.children) if (k.localName === 'summary') return k === el;
    return false;
  };
  const tableOf = (el) => el.closest('table');
  const inGrid = (el) => {
    const t = tableOf(el);
    const role = t && t.getAttribute('role');
    return !!role && /\b(grid|treegrid)\b/.test(role);
  };
  // thRole is Blink's DetermineTableCellRole for <th>: scope, else its
  // neighbours decide (DecideRoleFromSiblings).
  const thRole = (el) => {
    const scope = (el.getAttribute('scope') || '').toLowerCase();
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    const th = (c) => !!c && c.localName === 'th';
    const td = (c) => !!c && c.localName === 'td' && c.hasChildNodes();
    const next = el.nextElementSibling, prev = el.previousElementSibling;
    if (!next && !prev) return 'columnheader';
    if (th(next) && th(prev)) return 'columnheader';
    if (td(next) || td(prev)) return 'rowheader';
    const row = el.parentElement;
    if (!row || row.localName !== 'tr') return 'columnheader';
    const first = row.firstElementChild, last = row.lastElementChild;
    if (td(first) || td(last)) return 'rowheader';
    if (td(first.nextElementSibling) || td(last.previousElementSibling)) return 'rowheader';
    return 'columnheader';
  };
  const hasLabel = (el) => {
    const l = el.getAttribute('aria-label');
    if (l && l.trim()) return true;
    const lb = el.getAttribute('aria-labelledby');
    if (lb && lb.trim()) return true;
    const t = el.getAttribute('title');
    return !!(t && t.trim());
  };

  const focusableTags = new Set(['button', 'select', 'textarea', 'embed', 'object', 'dialog']);
  const isFocusable = (el, tag) => {
    if (el.inert) return false;
    if (isDisabled(el, tag)) return false;
    if (el.hasAttribute('tabindex') && !Number.isNaN(parseInt(el.getAttribute('tabindex'), 10))) return true;
    if (focusableTags.has(tag)) return true;
    switch (tag) {
      case 'input': return el.type !== 'hidden';
      case 'a': case 'area': return el.hasAttribute('href');
      case 'summary': return summaryOf(el);
      case 'audio': case 'video': return el.hasAttribute('controls');
    }
    if (editableEl(el) && (!el.parentElement || !el.parentElement.isContentEditable)) return true;
    return false;
  };
  const formControl = (tag) => tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'optgroup' || tag === 'option' || tag === 'fieldset';
  const isDisabled = (el, tag) => {
    if (formControl(tag) && el.matches(':disabled')) return true;
    return false;
  };
  const roleOf = (r) => {
    const el = r.n;
    const tag = el.localName;
    const native = nativeRole(el, tag);
    let role = explicitRole(el);
    r.native = native;
    r.foc = isFocusable(el, tag);
    if (role === 'none') {
      // Presentational role conflict: focusable or globally-attributed
      // elements keep their own role.
      if (r.foc || GLOBAL_ARIA.some((a) => el.hasAttribute(a))) role = '';
    }
    if (!role) role = native;
    if (role === 'listitem' && tag === 'li') {
      const p = el.parentElement;
      if (p && (p.localName === 'ul' || p.localName === 'ol' || p.localName === 'menu')) {
        const pr = p.getAttribute('role');
        if (pr && pr.trim() && !/^(list|directory)$/.test(pr.trim())) {
          role = 'none';
          r.markerText = true;
        }
      }
    }
    if (role === 'none') r.ign = true;
    r.r = role;
  };

  // ---------------------------------------------------------------------
  // Names and descriptions (accname 1.2 as Blink computes it).
  // ---------------------------------------------------------------------

  const isSpace = (c) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f';
  const innerText = (el) => (typeof el.innerText === 'string' ? el.innerText : el.textContent || '');

  // idrefs resolves an ID reference list in the element's tree scope.
  const idrefs = (el, attr) => {
    const v = el.getAttribute(attr);
    if (v === null) return null;
    const scope = el.getRootNode();
    const out = [];
    for (const id of v.trim().split(/\s+/)) {
      if (!id) continue;
      const t = scope.getElementById ? scope.getElementById(id) : null;
      if (t) out.push(t);
    }
    return out;
  };

  // recOf returns the record of an element, making a detached one for
  // elements outside the tree (hidden targets of aria-labelledby).
  const recOf = (el) => {
    const r = byEl.get(el);
    if (r) return r;
    return detached(el);
  };
  const detached = (n) => {
    if (n.nodeType === 3) return { k: 'text', n, t: n.data.replace(/[ \t\n\r\f]+/g, ' '), c: [], f: null, nol: true, det: true };
    const r = { k: 'el', n, c: [], r: '', f: null, nol: true, det: true, cs: null };
    roleOf(r);
    if (n.localName !== 'select' && n.localName !== 'input' && n.localName !== 'textarea') {
      for (const k of flatChildren(n)) {
        if (k.nodeType === 1 || k.nodeType === 3) {
          if (k.nodeType === 1 && /^(script|style|template)$/.test(k.localName)) continue;
          r.c.push(detached(k));
        }
      }
    }
    return r;
  };

  // hiddenForText reports whether r is left out of a text alternative:
  // hidden content counts only inside a hidden aria-labelledby target.
  const hiddenForText = (r, root) => {
    if (root && (root.det || root.hid)) return false;
    if (r.det) return true;
    if (r.k === 'el' && r.hid) return true;
    if ((r.k === 'text' || r.k === 'gen' || r.k === 'br') && r.hid) return true;
    return false;
  };

  const ROLE_CONTENTS = new Set(['button', 'cell', 'checkbox', 'columnheader', 'doc-backlink', 'doc-biblioref',
    'doc-noteref', 'doc-glossref', 'DisclosureTriangle', 'gridcell', 'heading', 'LineBreak', 'link', 'ListMarker',
    'math', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'radio', 'rowheader', 'StaticText', 'switch', 'tab',
    'treeitem', 'tooltip']);
  const ROLE_CONTRIBUTE = new Set(['generic', 'Abbr', 'Canvas', 'caption', 'code', 'deletion', 'insertion',
    'definition', 'list', 'Details', 'emphasis', 'Figcaption', 'LabelText', 'LegendText', 'listitem', 'mark', 'none',
    'paragraph', 'region', 'Ruby', 'section', 'strong', 'subscript', 'superscript', 'time']);

  const supportsContents = (r, recursive) => {
    const role = r.r;
    if (ROLE_CONTENTS.has(role)) return true;
    if (role === 'option') {
      // A <select>'s option with one text child is named by its label.
      return !(r.n.localName === 'option' && r.n.closest('select'));
    }
    if (role === 'row') {
      for (let p = r.p; p; p = p.p) {
        if (p.r === 'grid' || p.r === 'treegrid') return true;
        if (p.ign || p.r === 'generic' || p.r === 'none' || p.r === 'group' || p.r === 'rowgroup') continue;
        return false;
      }
      return false;
    }
    if (ROLE_CONTRIBUTE.has(role)) {
      if (role === 'generic' && (r.n.localName === 'body' || r.n === doc.documentElement)) return false;
      if (recursive) return true;
      if (isEditable(r)) return false;
      return r.foc && r.n === focused;
    }
    return false;
  };

  const isEditable = (r) => r.k === 'el' && editableEl(r.n);
  const textFieldTag = (el) => {
    const tag = el.localName;
    if (tag === 'textarea') return true;
    if (tag !== 'input') return false;
    switch (el.type) {
      case 'text': case 'search': case 'email': case 'url': case 'tel': case 'password': case 'number': return true;
    }
    return false;
  };
  // isTextField is Blink's IsTextField: native text inputs, textarea, ARIA
  // textboxes and searchboxes, and editable roots.
  const isTextField = (r) => {
    if (r.k !== 'el') return false;
    const el = r.n;
    if (textFieldTag(el) && el.type !== 'number') return true;
    if (r.r === 'textbox' || r.r === 'searchbox') return true;
    if (r.r === 'combobox' && el.localName === 'input') return true;
    return false;
  };
  const isRange = (r) => {
    switch (r.r) {
      case 'progressbar': case 'scrollbar': case 'slider': case 'spinbutton': case 'meter': return true;
      case 'separator': return r.foc;
    }
    return false;
  };

  // textFromElements joins the text alternatives of the elements an
  // aria-labelledby or aria-describedby names (hidden ones included), or
  // with labels set of a control's <label>s: those are named as any element
  // is (their own aria-labelledby and aria-label first), and a label that is
  // not rendered, or hidden with visibility, gives nothing.
  const textFromElements = (els, vis, labels) => {
    let acc = '';
    let found = false;
    for (const el of els) {
      if (labels && !el.checkVisibility({ visibilityProperty: true })) continue;
      const r = recOf(el);
      found = true;
      const res = recursiveAlt(r, labels ? null : r, vis, { v: '' });
      vis.add(r);
      if (res) {
        if (acc) acc += ' ';
        acc += res;
      }
    }
    return found ? acc : null;
  };

  // Within an aria-labelledby traversal (root set) a node may be visited
  // again: a control labelled by itself and others.
  // A node already being named up the stack contributes nothing, which ends
  // cycles (a control inside its own label, mutual aria-labelledby).
  const active = new Set();
  const recursiveAlt = (r, root, vis, out) => {
    if ((vis.has(r) && !root) || (active.has(r) && r !== root)) return '';
    active.add(r);
    try {
      return textAlt(r, true, root, vis, out);
    } finally {
      active.delete(r);
    }
  };

  // sameFlow reports whether two records are inline in one block, so that
  // their texts join without a space (Blink's IsInSameBlockFlow).
  const sameFlow = (a, b) => {
    if (!a.f || !b.f || a.nol || b.nol || a.blk || b.blk) return false;
    if (a.det || b.det) return false;
    return a.f === b.f;
  };
  const ATTR_FROM = new Set(['attr', 'caption', 'related', 'title', 'value', 'placeholder', 'cssalt']);
  const CONTROL_ROLES = new Set(['button', 'checkbox', 'ColorWell', 'combobox', 'DisclosureTriangle', 'listbox', 'menu',
    'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'radio', 'scrollbar', 'searchbox', 'slider',
    'spinbutton', 'switch', 'tab', 'textbox', 'tree', 'Date', 'DateTime', 'InputTime']);
  const isControlRec = (r) => r.k === 'el' && (CONTROL_ROLES.has(r.r) || /^(input|select|textarea|button)$/.test(r.n.localName));
  const needSpace = (prev, next, lastFrom, nextFrom) => {
    if (prev.k === 'wbr') return true;
    if (!sameFlow(prev, next)) return true;
    if (prev.at || next.at) return true;
    if (ATTR_FROM.has(lastFrom) || ATTR_FROM.has(nextFrom)) return true;
    return isControlRec(prev) || isControlRec(next);
  };

  const MAX_VISITED = 100;
  const textFromDescendants = (r, root, vis) => {
    let acc = '';
    let prev = null;
    let lastFrom = 'none';
    for (const c of r.c) {
      if (vis.size > MAX_VISITED) break;
      if (c.k === 'text' && c.t === '') continue;
      if (c.k === 'marker') continue;
      if (hiddenForText(c, root)) continue;
      const out = { v: 'none' };
      let res;
      if (c.k === 'el' && c.r === 'none' && !c.det) {
        vis.add(c);
        res = textFromDescendants(c, root, vis);
      } else {
        res = recursiveAlt(c, root, vis, out);
      }
      if (res && prev && acc && !isSpace(acc[acc.length - 1]) && !isSpace(res[0])) {
        if (needSpace(prev, c, lastFrom, out.v)) acc += ' ';
      }
      acc += res;
      // An empty atomic inline Chrome ignores (an icon's placeholder box) is
      // no neighbour: "Text<span class=icon></span>🚀" reads "Text🚀".
      if (!res && c.k === 'el' && c.at && isIgnored(c)) continue;
      prev = c;
      if (res) lastFrom = out.v;
    }
    return acc;
  };

  // labelsOf returns the <label>s of a control, or undefined. Asking an
  // element for .labels scans its whole tree scope once per element, which
  // on a page of a thousand buttons costs more than the walk; one pass over
  // the labels does for all.
  let labelMap = null;
  const labelsOf = (el) => {
    if (!labelMap) {
      labelMap = new Map();
      const add = (list) => {
        for (const l of list) {
          const c = l.control;
          if (!c) continue;
          let ls = labelMap.get(c);
          if (!ls) labelMap.set(c, (ls = []));
          ls.push(l);
        }
      };
      add(doc.getElementsByTagName('label'));
      for (const sr of shadowRoots) add(sr.querySelectorAll('label'));
    }
    return labelMap.get(el);
  };

  const labelable = (el) => {
    switch (el.localName) {
      case 'button': case 'meter': case 'output': case 'progress': case 'select': case 'textarea': return true;
      case 'input': return el.type !== 'hidden';
    }
    return false;
  };

  const fileStatus = (el) => {
    const n = el.files ? el.files.length : 0;
    if (n === 0) return el.multiple ? 'No file chosen' : 'No file chosen';
    if (n === 1) return el.files[0].name;
    return n + ' files';
  };

  // nativeAlt is Blink's NativeTextAlternative: undefined to go on with the
  // next step, a string to stop there.
  const nativeAlt = (r, vis, out) => {
    const el = r.n;
    const tag = el.localName;
    if (tag === 'option' && el.closest('select') && oneTextChild(el)) {
      out.v = 'contents';
      const t = el.label.replace(/[ \t\n\r\f]+/g, ' ').trim();
      if (t) return t;
    }
    if (tag === 'optgroup') {
      out.v = 'attr';
      const t = el.label;
      if (t) return t;
    }
    const labels = labelable(el) && labelsOf(el);
    if (labels) {
      out.v = 'related';
      const t = textFromElements(labels, vis, true);
      if (t !== null) {
        const s = t.trim();
        if (s) return s;
      }
    }
    if (tag === 'input') {
      const type = el.type;
      if (type === 'button' || type === 'submit' || type === 'reset') {
        out.v = 'value';
        if (el.hasAttribute('value')) return el.value;
        out.v = 'contents';
        return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '';
      }
      if (type === 'image') {
        const alt = el.getAttribute('alt');
        if (alt) { out.v = 'attr'; return alt; }
        if (el.hasAttribute('value')) { out.v = 'attr'; return el.getAttribute('value'); }
        const t = tooltip(el);
        if (t) { out.v = 'title'; return t; }
        out.v = 'value';
        return 'Submit';
      }
      if (type === 'file') {
        out.v = 'contents';
        return el.multiple ? 'Choose Files' : 'Choose File';
      }
    }
    if (textFieldTag(el)) {
      const t = tooltip(el);
      if (t) { out.v = 'title'; return t; }
      const ph = el.getAttribute('placeholder');
      if (ph) { out.v = 'placeholder'; const s = ph.replace(/[\r\n]/g, ''); if (s) return s; }
    }
    if (isTextField(r)) {
      const ap = el.getAttribute('aria-placeholder');
      out.v = 'placeholder';
      if (ap) return ap;
      return '';
    }
    if (tag === 'img' || tag === 'area') {
      const alt = el.getAttribute('alt');
      if (alt !== null) {
        out.v = alt === '' ? 'explicitEmpty' : 'attr';
        return alt;
      }
      return undefined;
    }
    if (tag === 'table') {
      const cap = el.caption;
      if (cap) {
        out.v = 'caption';
        const cr = byEl.get(cap);
        if (cr) return recursiveAlt(cr, null, vis, { v: '' });
      }
      const sum = el.getAttribute('summary');
      if (sum !== null) { out.v = 'attr'; return sum; }
      return undefined;
    }
    if (el instanceof SVGElement) {
      for (const k of el.children) {
        if (k.localName === 'title') {
          const t = k.textContent;
          if (t) { out.v = 'related'; return t; }
          break;
        }
      }
    }
    if (tag === 'fieldset') {
      const lg = [...el.children].find((k) => k.localName === 'legend');
      if (lg) {
        const lr = byEl.get(lg);
        if (lr && !vis.has(lr)) {
          out.v = 'related';
          return recursiveAlt(lr, null, vis, { v: '' });
        }
      }
    }
    return undefined;
  };
  const oneTextChild = (el) => el.childNodes.length === 1 && el.firstChild.nodeType === 3;

  const tooltip = (el) => {
    const t = el.getAttribute('title');
    if (t === null || t === '') return '';
    if (t.trim() === innerText(el).trim()) return '';
    return t;
  };

  // valueOf is the value a control contributes to a name around it.
  const valueContribution = (r) => {
    const el = r.n;
    if (isTextField(r)) return controlValue(r) ?? '';
    if (isRange(r)) {
      const vt = el.getAttribute('aria-valuetext');
      if (vt !== null) return vt;
      const v = rangeValue(r);
      return v === undefined ? null : String(v);
    }
    if (r.r === 'combobox' || r.r === 'listbox') {
      if (el.localName === 'select') {
        const names = [...el.selectedOptions].map((o) => { const or = byEl.get(o); return or ? nameOf(or) : o.label; });
        if (names.length) return names.join(' ');
      } else {
        const sel = [];
        const walk = (x) => { for (const c of x.c) { if (c.k === 'el' && c.r === 'option' && ariaBool(c.n, 'aria-selected') === true) sel.push(nameOf(c)); else walk(c); } };
        walk(r);
        if (sel.length) return sel.join(' ');
      }
      return controlValue(r) ?? '';
    }
    return null;
  };

  const textAlt = (r, recursive, root, vis, out) => {
    switch (r.k) {
      case 'text': case 'gen': case 'br': case 'summary': case 'marker': case 'wbr':
        vis.add(r);
        out.v = r.img ? 'cssalt' : 'contents';
        return r.t;
      case 'popup':
        return '';
      case 'doc': {
        const de = doc.documentElement;
        const l = de && de.getAttribute('aria-label');
        out.v = 'attr';
        if (l) return l;
        out.v = 'related';
        return doc.title;
      }
    }
    const el = r.n;
    if (hiddenForText(r, root)) return '';
    // 2E: an embedded control gives its value, before its own label.
    if (recursive && !vis.has(r) && !r.det) {
      const v = valueContribution(r);
      if (v !== null) {
        out.v = 'value';
        return v;
      }
    }
    if (!root) {
      const els = idrefs(el, 'aria-labelledby');
      if (els && els.length) {
        out.v = 'related';
        const t = textFromElements(els, vis);
        if (t !== null) return t;
      }
    }
    const label = el.getAttribute('aria-label');
    if (label) {
      out.v = 'attr';
      return label;
    }
    const nat = nativeAlt(r, vis, out);
    if (nat !== undefined && (nat !== '' || out.v === 'explicitEmpty')) {
      return nat;
    }
    if ((root || supportsContents(r, recursive)) && el.localName !== 'select' && !(isTextField(r) && root !== r)) {
      out.v = 'contents';
      // A text field's content is its value (the text in its inner editor).
      const t = isTextField(r) && !r.det ? controlValue(r) ?? '' : textFromDescendants(r, root, vis);
      if (t) return t;
    }
    // A role whose name is prohibited gets its title as description instead.
    if (root || !prohibited(r)) {
      const t = tooltip(el);
      if (t) {
        out.v = 'title';
        return t;
      }
    }
    out.v = 'none';
    return '';
  };

  // Roles whose author-given name is prohibited (moved to the description)
  // unless focusable.
  const NAME_PROHIBITED = new Set(['caption', 'code', 'deletion', 'insertion', 'emphasis', 'generic', 'mark', 'none',
    'paragraph', 'strong', 'subscript', 'superscript', 'time', 'definition', 'term', 'Abbr', 'Ruby', 'LabelText',
    'LegendText', 'Figcaption']);
  const prohibited = (r) => r.k === 'el' && !r.foc && NAME_PROHIBITED.has(r.r) && r.n !== doc.documentElement;

  // nameOf computes and memoizes the name of r; r.from keeps its source.
  const nameOf = (r) => {
    if (r.name !== undefined) return r.name;
    const out = { v: 'none' };
    // The node named counts as visited: its own value is not part of its
    // name, and it counts towards the 100 nodes a name reads at most.
    active.add(r);
    let n;
    try {
      n = textAlt(r, false, null, new Set([r]), out);
    } finally {
      active.delete(r);
    }
    r.from = out.v;
    // Blink collapses white space in names, keeping a leading or trailing
    // space; text keeps its own (a <pre>'s newlines).
    if ((r.k === 'el' || r.k === 'doc') && /[\t\n\r\f]| {2}/.test(n)) n = n.replace(/[ \t\n\r\f]+/g, ' ');
    r.name = n;
    return n;
  };

  const descOf = (r) => {
    if (r.desc !== undefined) return r.desc;
    let d = '';
    if (r.k === 'el') d = description(r);
    d = simplifyHTML(d);
    r.desc = d;
    return d;
  };
  const simplifyHTML = (s) => s.replace(/[ \t\n\r\f]+/g, ' ').trim();

  const description = (r) => {
    const el = r.n;
    nameOf(r);
    const from = r.from;
    const els = idrefs(el, 'aria-describedby');
    if (els && els.length) {
      const t = textFromElements(els, new Set());
      if (t !== null) return t;
    }
    const ad = el.getAttribute('aria-description');
    if (ad !== null) return ad;
    if (el instanceof SVGElement) {
      for (const k of el.children) if (k.localName === 'desc') return k.textContent;
    }
    if (from !== 'value' && el.localName === 'input' && /^(button|submit|reset)$/.test(el.type) && el.hasAttribute('value')) {
      return el.value;
    }
    if (from !== 'caption' && el.localName === 'table' && el.caption) {
      const cr = byEl.get(el.caption);
      if (cr) return recursiveAlt(cr, null, new Set(), { v: '' });
    }
    if (from !== 'contents' && el.localName === 'summary') {
      const t = textFromDescendants(r, null, new Set());
      if (t) return t;
    }
    if (from !== 'title') {
      const t = el.getAttribute('title');
      if (t && t.trim() !== innerText(el).trim()) return t;
    }
    return '';
  };

  // ---------------------------------------------------------------------
  // Values and states.
  // ---------------------------------------------------------------------

  const ariaBool = (el, attr) => {
    const v = el.getAttribute(attr);
    if (v === null) return undefined;
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
    return undefined;
  };
  const ariaNum = (el, attr) => {
    const v = el.getAttribute(attr);
    if (v === null || v.trim() === '') return undefined;
    const f = parseFloat(v);
    return Number.isFinite(f) ? f : undefined;
  };

  const nativeRange = (el) => el.localName === 'input' && (el.type === 'range' || el.type === 'number');
  const rangeMin = (r) => {
    const el = r.n;
    let v = ariaNum(el, 'aria-valuemin');
    if (v !== undefined) return v;
    if (nativeRange(el)) {
      const m = parseFloat(el.min);
      if (Number.isFinite(m)) return m;
      return el.type === 'range' ? 0 : undefined;
    }
    if (el.localName === 'meter') return el.min;
    if (el.localName === 'progress') return 0;
    switch (r.r) {
      case 'meter': case 'progressbar': case 'scrollbar': case 'separator': case 'slider': return 0;
    }
    return undefined;
  };
  const rangeMax = (r) => {
    const el = r.n;
    let v = ariaNum(el, 'aria-valuemax');
    if (v !== undefined) return v;
    if (nativeRange(el)) {
      const m = parseFloat(el.max);
      if (Number.isFinite(m)) return m;
      return el.type === 'range' ? 100 : undefined;
    }
    if (el.localName === 'meter') return el.max;
    if (el.localName === 'progress') return el.max;
    switch (r.r) {
      case 'meter': case 'progressbar': case 'scrollbar': case 'separator': case 'slider': return 100;
    }
    return undefined;
  };
  const rangeValue = (r) => {
    const el = r.n;
    const now = ariaNum(el, 'aria-valuenow');
    if (now !== undefined) {
      const mn = rangeMin(r), mx = rangeMax(r);
      if (mn !== undefined && now < mn) return mn;
      if (mx !== undefined && now > mx) return mx;
      return now;
    }
    if (nativeRange(el)) {
      const v = el.valueAsNumber;
      return Number.isFinite(v) ? v : undefined;
    }
    if (el.localName === 'meter') return el.value;
    if (el.localName === 'progress') return el.position === -1 ? undefined : el.value;
    switch (r.r) {
      case 'scrollbar': case 'slider': {
        const mn = rangeMin(r), mx = rangeMax(r);
        if (mn !== undefined && mx !== undefined) return (mn + mx) / 2;
        return 50;
      }
      case 'separator': return 50;
      case 'meter': return rangeMin(r) ?? 0;
      case 'spinbutton': return 0;
    }
    return undefined;
  };

  // controlValue is Blink's value for a control, or undefined.
  const controlValue = (r) => {
    const el = r.n;
    const tag = el.localName;
    if (tag === 'select') {
      if (el.multiple || el.size > 1) return undefined;
      const o = el.options[el.selectedIndex];
      if (!o) return undefined;
      const al = o.getAttribute('aria-label');
      if (al !== null) return al;
      return o.label.replace(/[ \t\n\r\f]+/g, ' ').trim();
    }
    if (textFieldTag(el) && el.type !== 'number') {
      const v = el.value;
      if (!v) return undefined;
      if (el.type === 'password') return '•'.repeat([...v].length);
      return v;
    }
    // Editable roots and ARIA text fields have their inner text as value.
    if (r.k === 'el' && ((editableEl(el) && editingHost(el) === el) || ((r.r === 'textbox' || r.r === 'searchbox') && tag !== 'input' && tag !== 'textarea'))) {
      return innerText(el);
    }
    if (isRange(r)) return undefined;
    if (tag === 'input') {
      switch (el.type) {
        case 'file': return fileStatus(el);
        case 'button': case 'checkbox': case 'image': case 'radio': case 'reset': case 'submit': return undefined;
      }
      return el.value || undefined;
    }
    if (r.r === 'combobox' && tag !== 'input') {
      return textFromDescendants(r, null, new Set()) || undefined;
    }
    return undefined;
  };

  const checkedState = (r) => {
    const el = r.n;
    const role = r.r;
    const tag = el.localName;
    const nativeCheck = tag === 'input' && (el.type === 'checkbox' || el.type === 'radio');
    switch (role) {
      case 'checkbox': case 'menuitemcheckbox': case 'menuitemradio': case 'radio': case 'switch': case 'treeitem': case 'option':
        break;
      default:
        if (!(role === 'button' && ariaState(el, 'aria-pressed') !== undefined)) return undefined;
    }
    if (role === 'button') return undefined;
    if (nativeCheck) {
      if (el.type === 'checkbox' && el.indeterminate) return 'mixed';
      return el.checked ? 'true' : 'false';
    }
    const v = ariaState(el, 'aria-checked');
    if (v === 'mixed') return role === 'checkbox' || role === 'menuitemcheckbox' ? 'mixed' : 'false';
    if (v === 'true') return 'true';
    if (role === 'option' || role === 'treeitem') return v === 'false' ? 'false' : undefined;
    return 'false';
  };
  const ariaState = (el, attr) => {
    const v = el.getAttribute(attr);
    if (v === null) return undefined;
    const t = v.trim().toLowerCase();
    if (t === '' || t === 'undefined') return undefined;
    if (t === 'mixed') return 'mixed';
    if (t === 'false') return 'false';
    return 'true';
  };

  const EXPANDABLE = new Set(['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'row', 'rowheader', 'columnheader', 'tab', 'treeitem', 'switch',
    'radio', 'DisclosureTriangle', 'generic', 'group', 'region', 'dialog', 'alertdialog', 'alert', 'article', 'banner',
    'complementary', 'contentinfo', 'document', 'feed', 'figure', 'form', 'grid', 'heading', 'img', 'image', 'list',
    'listitem', 'log', 'main', 'marquee', 'math', 'menu', 'menubar', 'navigation', 'note', 'option', 'progressbar',
    'radiogroup', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'table',
    'tablist', 'tabpanel', 'textbox', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid']);
  const expandedState = (r) => {
    const el = r.n;
    if (r.k === 'summary') return undefined;
    if (r.r === 'DisclosureTriangle' && el.localName === 'summary') return el.parentElement.open;
    if (el.localName === 'select' && r.r === 'combobox') return false;
    const v = ariaBool(el, 'aria-expanded');
    if (v === undefined && el.popoverTargetElement && (el.localName === 'button' || el.localName === 'input')) {
      return el.popoverTargetElement.matches(':popover-open');
    }
    if (v === undefined) return undefined;
    if (!EXPANDABLE.has(r.r)) return undefined;
    return v;
  };

  const SELECTABLE = new Set(['gridcell', 'option', 'row', 'tab', 'columnheader', 'rowheader', 'treeitem', 'cell']);
  const selectedState = (r) => {
    const el = r.n;
    if (el.localName === 'option') {
      const sel = el.closest('select');
      // A disabled option (or one of a disabled <select>) has no selection
      // state to report.
      if (sel) return el.matches(':disabled') || sel.matches(':disabled') ? undefined : el.selected;
    }
    if (!SELECTABLE.has(r.r)) return undefined;
    const v = ariaBool(el, 'aria-selected');
    if (v !== undefined) return v;
    // Selection follows focus in a single-select tab list, tree or list box
    // none of whose items says aria-selected: an item is selected when
    // focused, else not (Blink's IsSelectedFromFocus).
    const kind = FOLLOWS_FOCUS[r.r];
    if (kind) {
      for (let p = r.p; p; p = p.p) {
        if (p.k !== 'el' || p.r !== kind) continue;
        if (p.sff === undefined) {
          p.sff = ariaBool(p.n, 'aria-multiselectable') !== true && !p.n.querySelector('[aria-selected]');
        }
        return p.sff ? el === focused : undefined;
      }
    }
    return undefined;
  };
  const FOLLOWS_FOCUS = { tab: 'tablist', treeitem: 'tree', option: 'listbox' };

  const invalidState = (r) => {
    const el = r.n;
    const v = el.getAttribute('aria-invalid');
    if (v !== null) {
      const t = v.trim().toLowerCase();
      if (t === 'false') return 'false';
      if (t === 'spelling' || t === 'grammar') return r.r === 'textbox' ? 'true' : undefined;
      if (t !== '') return 'true';
    }
    const tag = el.localName;
    if ('validity' in el && 'willValidate' in el && tag !== 'object') {
      if (el.validity.customError) return 'true';
      if (!el.willValidate || el.validity.valid) return 'false';
      if (textFieldTag(el) && el.required && !el.value) return 'false';
      return 'true';
    }
    return undefined;
  };

  const ORIENTATION_DEFAULT = { scrollbar: 'vertical', listbox: 'vertical', menu: 'vertical', menubar: 'horizontal',
    tree: 'vertical', slider: 'horizontal', tablist: 'horizontal', toolbar: 'horizontal', separator: 'horizontal',
    radiogroup: undefined, treegrid: undefined, combobox: undefined, select: undefined };
  const orientationOf = (r) => {
    if (!(r.r in ORIENTATION_DEFAULT)) return undefined;
    const v = (r.n.getAttribute('aria-orientation') || '').trim().toLowerCase();
    if (v === 'vertical' || v === 'horizontal') return v;
    return ORIENTATION_DEFAULT[r.r];
  };

  const levelOf = (r) => {
    const el = r.n;
    if (r.r === 'heading') {
      const l = parseInt(el.getAttribute('aria-level'), 10);
      if (l > 0) return l;
      const m = /^h([1-6])$/.exec(el.localName);
      return m ? +m[1] : 2;
    }
    if (r.r === 'treeitem' || (r.r === 'row' && treegridOf(r))) {
      const l = parseInt(el.getAttribute('aria-level'), 10);
      if (l > 0) return l;
      if (r.r === 'row') return undefined;
      // Blink counts the groups the item is in, not the items.
      let level = 1;
      for (let p = r.p; p; p = p.p) {
        if (p.r === 'tree') break;
        if (p.r === 'group') level++;
      }
      return level;
    }
    return undefined;
  };
  const treegridOf = (r) => {
    for (let p = r.p; p; p = p.p) if (p.r === 'treegrid') return true;
    return false;
  };

  const liveOf = (r) => {
    const v = (r.n.getAttribute('aria-live') || '').trim().toLowerCase();
    if (v === 'polite' || v === 'assertive' || v === 'off') return v;
    switch (r.r) {
      case 'alert': return 'assertive';
      case 'log': case 'status': return 'polite';
      case 'marquee': case 'timer': return 'off';
    }
    return '';
  };

  const modalOf = (r) => {
    if (r.r !== 'dialog' && r.r !== 'alertdialog') return undefined;
    const el = r.n;
    if (el.localName === 'dialog' && el.open && el.matches(':modal')) return true;
    return ariaBool(el, 'aria-modal') === true;
  };

  const REQUIRED_ROLES = new Set(['combobox', 'gridcell', 'listbox', 'radiogroup', 'spinbutton', 'textbox', 'tree',
    'columnheader', 'rowheader', 'treegrid', 'searchbox', 'Date', 'DateTime', 'InputTime']);
  const READONLY_ROLES = new Set(['checkbox', 'combobox', 'grid', 'gridcell', 'listbox', 'radiogroup', 'slider',
    'spinbutton', 'textbox', 'columnheader', 'rowheader', 'treegrid', 'searchbox', 'menuitemcheckbox',
    'menuitemradio', 'radio', 'switch', 'ColorWell', 'Date', 'DateTime', 'InputTime']);
  const MULTISELECT_ROLES = new Set(['grid', 'listbox', 'tablist', 'tree', 'treegrid']);

  // disabledOf is Blink's restriction: native disabled, or aria-disabled on
  // the element or an ancestor.
  const disabledOf = (r) => {
    const el = r.n;
    if (formControl(el.localName) && el.matches(':disabled')) return true;
    if (el.localName === 'option') {
      const sel = el.closest('select');
      if (sel && sel.matches(':disabled')) return true;
    }
    if (!mayAriaDisable) return false;
    for (let p = el; p; p = p.parentElement) {
      if (ariaBool(p, 'aria-disabled') === true) return true;
    }
    return false;
  };

  // props returns the AX properties of a kept record, named as in CDP.
  const props = (r) => {
    const p = {};
    if (r.k === 'doc') {
      p.url = doc.URL;
      return p;
    }
    if (r.k !== 'el') return p;
    const el = r.n;
    const tag = el.localName;
    const role = r.r;
    // value
    if (isRange(r)) {
      const v = rangeValue(r);
      if (v !== undefined) p.value = v;
    } else {
      const v = controlValue(r);
      if (v !== undefined && v !== '') p.value = v;
    }
    const d = descOf(r);
    if (d) p.description = d;
    // url
    if ((tag === 'a' || tag === 'area') && role === 'link') p.url = el.href;
    else if (role === 'image' && tag === 'img') {
      const src = el.currentSrc || el.src;
      if (src) p.url = src;
    } else if (tag === 'input' && el.type === 'image') {
      if (el.src) p.url = el.src;
    }
    // aria-keyshortcuts, else the access key with the platform's modifier
    // (Blink's KeyboardShortcut; Alt on Linux), verbatim.
    const ks = el.getAttribute('aria-keyshortcuts');
    if (ks) p.keyshortcuts = ks;
    else if (el.hasAttribute('accesskey')) p.keyshortcuts = 'Alt+' + el.getAttribute('accesskey');
    const rd = el.getAttribute('aria-roledescription');
    if (rd && rd.trim() && roleDescribable(r)) p.roledescription = rd;
    // disabled
    if (disabledOf(r)) p.disabled = true;
    const ex = expandedState(r);
    if (ex !== undefined) p.expanded = ex;
    if (el === focused && r.foc) p.focused = true;
    const modal = modalOf(r);
    if (modal !== undefined) p.modal = modal;
    if (role === 'textbox' || role === 'searchbox') {
      p.multiline = tag === 'textarea' || (tag !== 'input' && ariaBool(el, 'aria-multiline') === true);
    }
    if (MULTISELECT_ROLES.has(role)) {
      p.multiselectable = tag === 'select' ? el.multiple : ariaBool(el, 'aria-multiselectable') === true;
    }
    if (READONLY_ROLES.has(role)) {
      p.readonly = (textFieldTag(el) && el.readOnly) || ariaBool(el, 'aria-readonly') === true;
    }
    if (REQUIRED_ROLES.has(role)) {
      p.required = (tag !== 'select' && ('required' in el) && el.required === true) || ariaBool(el, 'aria-required') === true;
    }
    const sel = selectedState(r);
    if (sel !== undefined) p.selected = sel;
    // Live region properties: Chrome reports them on the region's root only.
    const live = liveOf(r);
    if (live) {
      p.live = live;
      const at = ariaBool(el, 'aria-atomic');
      p.atomic = at !== undefined ? at : r.r === 'alert' || r.r === 'status';
      p.relevant = (el.getAttribute('aria-relevant') || 'additions text').trim();
    }
    const ch = checkedState(r);
    if (ch !== undefined) p.checked = ch;
    if (role === 'button') {
      const pr = ariaState(el, 'aria-pressed');
      if (pr !== undefined) p.pressed = pr;
    }
    const lv = levelOf(r);
    if (lv !== undefined) p.level = lv;
    if (isRange(r)) {
      // Blink reports both bounds, 0 when it has none, and a value text only
      // for native inputs.
      p.valuemax = rangeMax(r) ?? 0;
      p.valuemin = rangeMin(r) ?? 0;
      p.valuetext = nativeRange(el) ? el.value : '';
    }
    const ac = (el.getAttribute('aria-autocomplete') || '').trim().toLowerCase();
    if (ac && ac !== 'none') p.autocomplete = ac;
    else if (tag === 'input' && el.hasAttribute('list') && el.list) p.autocomplete = 'list';
    const hp = hasPopup(r);
    if (hp) p.haspopup = hp;
    const inv = invalidState(r);
    if (inv !== undefined) p.invalid = inv;
    const o = orientationOf(r);
    if (o) p.orientation = o;
    const em = el.getAttribute('aria-errormessage');
    if (em && inv !== 'false' && inv !== undefined && idrefs(el, 'aria-errormessage').length) p.errormessage = em;
    const det = el.getAttribute('aria-details');
    if (det && idrefs(el, 'aria-details').length) p.details = det;
    return p;
  };

  // Chrome drops aria-roledescription on generic elements, but an unnamed
  // <section> (generic too) keeps it.
  const roleDescribable = (r) => r.r !== 'none' && (r.r !== 'generic' || r.n.localName === 'section');

  const hasPopup = (r) => {
    const el = r.n;
    const v = (el.getAttribute('aria-haspopup') || '').trim().toLowerCase();
    if (v) {
      if (v === 'false') return '';
      if (v === 'true' || v === 'menu') return 'menu';
      if (v === 'listbox' || v === 'tree' || v === 'grid' || v === 'dialog') return v;
    }
    if (r.r === 'combobox') {
      if (el.localName === 'select') return 'menu';
      return 'listbox';
    }
    return '';
  };

  // applyOwns moves the elements aria-owns names under their owner, after
  // its own children, as Blink's relation cache does: an element is owned
  // once (first owner in tree order), never by its own descendant, and text
  // fields, images and editable roots own nothing.
  const applyOwns = () => {
    const owned = new Set();
    for (const r of owners) {
      const el = r.n;
      const tag = el.localName;
      if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'img' || editableEl(el)) continue;
      for (const t of idrefs(el, 'aria-owns') || []) {
        const tr = byEl.get(t);
        if (!tr || owned.has(tr)) continue;
        let cyclic = false;
        for (let p = r; p; p = p.p) if (p === tr) { cyclic = true; break; }
        if (cyclic) continue;
        const old = tr.p;
        if (old) {
          const i = old.c.indexOf(tr);
          if (i >= 0) old.c.splice(i, 1);
        }
        r.c.push(tr);
        tr.p = r;
        owned.add(tr);
      }
    }
  };

  // ---------------------------------------------------------------------
  // Puppeteer's filter: which records the default snapshot shows.
  // ---------------------------------------------------------------------

  const LANDMARKS = new Set(['banner', 'complementary', 'contentinfo', 'form', 'main', 'navigation', 'region', 'search']);
  const CONTROLS = new Set(['button', 'checkbox', 'ColorWell', 'combobox', 'DisclosureTriangle', 'listbox', 'menu',
    'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'radio', 'scrollbar', 'searchbox', 'slider',
    'spinbutton', 'switch', 'tab', 'textbox', 'tree', 'treeitem']);
  const LEAF_ROLES = new Set(['doc-cover', 'graphics-symbol', 'img', 'image', 'Meter', 'scrollbar', 'slider', 'separator', 'progressbar']);

  const kids = (r) => r.c;
  // Hidden with visibility, a node is in Chrome's tree but ignored, and an
  // ignored node reports no focusable state (a Sphinx heading's permalink).
  const focusableRec = (r) => (r.k === 'el' || r.k === 'opaque') && r.foc && !r.hid;
  const hasFocusableChild = (r) => {
    if (r.hfc !== undefined) return r.hfc;
    let v = false;
    for (const c of kids(r)) {
      if (focusableRec(c) || hasFocusableChild(c)) { v = true; break; }
    }
    r.hfc = v;
    return v;
  };
  // Everything inside contenteditable="true" is richly editable; inside
  // "plaintext-only" it is a plain text field.
  const editingHost = (el) => {
    let h = el;
    while (h.parentElement && h.parentElement.isContentEditable) h = h.parentElement;
    return h;
  };
  const richlyEditable = (r) => {
    if (!mayEdit) return false;
    const el = r.k === 'el' ? r.n : r.k === 'text' && r.n.parentElement;
    return !!el && editableEl(el) && editingHost(el).contentEditable !== 'plaintext-only';
  };
  const editable = (r) => r.k === 'el' && editableEl(r.n);
  const isLeaf = (r) => {
    const ch = kids(r);
    // A <meter> has user-agent shadow children in Chrome's tree.
    if (!ch.length) return !(r.k === 'el' && r.n.localName === 'meter');
    if (r.k === 'text' || r.k === 'br' || r.k === 'gen') return true;
    if (!richlyEditable(r) && (editable(r) || r.r === 'textbox' || r.r === 'searchbox')) return true;
    if (LEAF_ROLES.has(r.r)) return true;
    if (hasFocusableChild(r)) return false;
    return r.r === 'heading' && nameOf(r) !== '';
  };
  // included is Blink's ShouldIncludeBasedOnSemantics and the layout rules
  // after it: whether an element that is neither hidden nor presentational
  // is exposed (not ignored).
  const ALWAYS_INCLUDED = new Set(['Abbr', 'application', 'article', 'Audio', 'banner', 'blockquote', 'code',
    'complementary', 'deletion', 'contentinfo', 'insertion', 'definition', 'list', 'group', 'dialog', 'emphasis',
    'Figcaption', 'figure', 'SectionFooter', 'form', 'SectionHeader', 'listitem', 'main', 'mark', 'math', 'meter',
    'navigation', 'PluginObject', 'progressbar', 'region', 'Ruby', 'search', 'section', 'separator', 'subscript',
    'superscript', 'strong', 'term', 'time', 'Video', 'table', 'row', 'cell', 'gridcell', 'columnheader', 'rowheader',
    'rowgroup', 'grid', 'treegrid', 'caption', 'Details']);
  const hasAriaAttr = (el) => {
    for (const a of el.attributes) {
      if (a.name.startsWith('aria-') && a.name !== 'aria-hidden') return true;
    }
    return false;
  };
  const included = (r) => {
    const el = r.n;
    const tag = el.localName;
    const role = r.r;
    if (role === 'none' || tag === 'html') return false;
    if (el instanceof SVGElement) {
      if (el.closest('symbol')) return false;
      if (tag === 'svg' && el.firstElementChild) return true;
      for (const k of el.children) if (k.localName === 'title' || k.localName === 'desc') return true;
    }
    if (tag === 'thead' || tag === 'tfoot' || tag === 'tbody') return true;
    if (r.foc && tag !== 'body') return true;
    if (role === 'link' || role === 'heading' || tag === 'header' || tag === 'footer') return true;
    if (el.hasAttribute('onclick')) return true;
    if (CONTROL_ROLES.has(role) || formControl(tag) || tag === 'optgroup') return true;
    if (explicitRole(el)) return true;
    if (editableEl(el) && editingHost(el) === el) return true;
    if (tag === 'legend') return true;
    if (ALWAYS_INCLUDED.has(role) || tag === 'hgroup' || tag === 'section') return true;
    if (liveOf(r)) return true;
    if (hasAriaAttr(el) || el.getAttribute('title')) return true;
    if (role === 'image' && tag === 'img') return el.getAttribute('alt') !== '';
    if ((tag === 'a' && el.hasAttribute('name')) || (el.id && tag !== 'label' && tag !== 'optgroup' && !(el instanceof SVGElement) && !(el.getRootNode() instanceof ShadowRoot))) return true;
    if (tag === 'span') return false;
    if (tag === 'label') return !r.ign;
    if (tag === 'foreignObject') return false;
    if (r.nol) return false;
    if (tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed') return true;
    if (tag === 'canvas') return true;
    const cs = r.cs;
    if (cs.position === 'absolute' || cs.position === 'fixed') return true;
    if (/^(auto|scroll|hidden)$/.test(cs.overflowX) || /^(auto|scroll|hidden)$/.test(cs.overflowY)) {
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') return true;
    }
    // A block that directly holds inline content.
    if (r.blk || r.at) return r.inl === true;
    return false;
  };

  const isIgnored = (r) => {
    if (r.k === 'text' || r.k === 'gen' || r.k === 'br') return r.ign || r.hid || r.t === '';
    if (r.k === 'marker' || r.k === 'popup') return false;
    if (r.k === 'el' && r.inc === undefined) r.inc = included(r);
    return r.ign || r.hid || (r.k === 'el' && !r.inc);
  };
  const interesting = (r, insideControl) => {
    if (r.k === 'text' && r.t === '') return false;
    if (isIgnored(r)) return false;
    const role = r.r || (r.k === 'text' || r.k === 'gen' ? 'StaticText' : '');
    if (LANDMARKS.has(role)) return true;
    if (r.k === 'doc') return true;
    if (r.k === 'text' && richlyEditable(r)) return true;
    if (r.k === 'el') {
      if (r.foc || richlyEditable(r)) return true;
      const el = r.n;
      const l = liveOf(r);
      if (l && l !== 'off') return true;
      if (modalOf(r) === true) return true;
      if (el.hasAttribute('aria-errormessage') && (props(r).errormessage)) return true;
      if (el.hasAttribute('aria-details') && idrefs(el, 'aria-details').length) return true;
      const rd = el.getAttribute('aria-roledescription');
      if (rd && rd.trim() && roleDescribable(r)) return true;
    }
    if (CONTROLS.has(role)) return true;
    if (insideControl) return false;
    return isLeaf(r) && (nameOf(r) !== '' || descOf(r) !== '');
  };

  const keep = new Set();
  const collect = (r, insideControl) => {
    if (r.k === 'opaque') {
      r.inside = insideControl;
      keep.add(r);
      return;
    }
    if (interesting(r, insideControl) || r.r === 'Iframe') keep.add(r);
    if (isLeaf(r)) return;
    insideControl = insideControl || CONTROLS.has(r.r);
    for (const c of kids(r)) collect(c, insideControl);
  };

  // Iframes are shown when their document could be walked; the caller
  // drops those left without one.
  const out = [];
  const idFor = (r) => {
    switch (r.k) {
      case 'gen': return extraID(r.n, r.kind);
      case 'summary': return extraID(r.n, 'summary');
      case 'popup': return 0;
    }
    return idOf(r.n);
  };
  const DEPTH = Array.from({ length: 64 }, (_, i) => i + '\t');
  const ESC = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
  const esc = (s) => (/[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESC[c]) : s);
  const emit = (r, depth) => {
    let d = depth;
    if (r.k === 'opaque') {
      if (keep.has(r)) out.push(depth + '\t' + idFor(r) + '\t\t' + (r.inside ? 2 : 1) + '\t\t');
      return;
    }
    if (keep.has(r)) {
      const role = r.k === 'text' || (r.k === 'gen' && !r.img) ? 'StaticText' : r.k === 'gen' ? 'image' : r.r;
      const p = props(r);
      let pj = '';
      for (const k in p) { pj = JSON.stringify(p); break; }
      out.push((DEPTH[depth] ?? depth + '\t') + idFor(r) + '\t' + role + '\t0\t' + esc(nameOf(r)) + '\t' + pj);
      d = depth + 1;
    }
    for (const c of kids(r)) emit(c, d);
  };

  // ---------------------------------------------------------------------
  // Build.
  // ---------------------------------------------------------------------

  const root = mk('doc', doc, null);
  root.r = 'RootWebArea';
  root.foc = true; // a document is focusable, so always shown
  root.f = newIFC();
  const docScan = scanSheets(sheetsOf(doc));
  const rootCtx = { scope: [], owner: root, ifc: root.f, ws: 'collapse', tt: 'none', hidden: false, vis: false, flexParent: false,
    ps: pseudoScope(doc, docScan), counters: docScan.counters ? new Map() : null };
  if (doc.documentElement) build(root, doc.documentElement, rootCtx);

  applyOwns();
  collect(root, false);
  emit(root, 0);
  // Forget ids of nodes gone from the page, now and then.
  if (st.refs.size > 4 * out.length + 10000) {
    for (const [id, ref] of st.refs) if (!ref.deref()) st.refs.delete(id);
  }
  out.unshift(st.doc + '\t' + suspects.join(','));
  return out.join('\n');
}
