// get_css_styles' page side. It runs in the snapshot walker's isolated
// world of the element's frame (page/styles.go), on the element, so the
// page can neither see nor disturb it; it reads the walker's node ids
// without adding any. It returns, by value:
//
//   chain       the element, then its ancestors in the flat tree (slots,
//               shadow hosts), parent first, as Chrome lists what each
//               passes down: each one's short selector (s), tag (t) and
//               walker id (w, 0 when the walker never saw it);
//   containers  the same for each query container handed in (or null);
//   meta        for each property name handed in: the properties a
//               declaration block lists when it is set (l: a shorthand's
//               longhands, an alias's property), and the property it stands
//               for (c), as this browser knows them.
function (names, ...containers) {
  const st = globalThis.__tabhiveSnapshot;
  const wid = (n) => (st && st.ids.get(n)) || 0;
  // DevTools' short selector: tag#id, tag.class.class (div's tag left
  // out), input[type="..."].
  const sel = (n) => {
    const name = n.localName || n.nodeName.toLowerCase();
    if (n.nodeType !== 1) return name;
    const type = n.getAttribute('type');
    const id = n.getAttribute('id');
    const cls = n.getAttribute('class');
    if (name === 'input' && type && !id && !cls) return name + '[type="' + CSS.escape(type) + '"]';
    if (id) return name + '#' + CSS.escape(id);
    if (cls) {
      return (name === 'div' ? '' : name) + '.' + cls.trim().split(/\s+/g).map((c) => CSS.escape(c)).join('.');
    }
    return name;
  };
  const describe = (n) => ({ s: sel(n), t: n.localName || '', w: wid(n) });
  const up = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (p && p.nodeType === 11 && p.host) return p.host;
    return p && p.nodeType === 1 ? p : null;
  };
  const chain = [];
  for (let n = this; n && chain.length < 4096; n = up(n)) chain.push(describe(n));
  const probe = document.createElement('div').style;
  const meta = {};
  for (const name of names || []) {
    probe.cssText = '';
    probe.setProperty(name, 'inherit');
    const l = Array.from(probe);
    let c = name;
    if (l.length === 1 && l[0] !== name) c = l[0];
    else if (name.startsWith('-webkit-') && CSS.supports(name.slice(8), 'inherit')) c = name.slice(8);
    meta[name] = { l, c };
  }
  return { chain, containers: containers.map((c) => (c ? describe(c) : null)), meta };
}
