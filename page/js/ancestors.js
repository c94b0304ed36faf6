function () {
  const out = [];
  for (let n = this; n && out.length < 4096; ) {
    out.push(n);
    const p = n.parentNode;
    n = n.assignedSlot || (p && p.nodeType === 11 && p.host ? p.host : p && p.nodeType === 1 ? p : null);
  }
  return out;
}