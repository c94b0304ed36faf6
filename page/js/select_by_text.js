function (v) {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const opts = Array.from(this.options);
  const o = opts.find((o) => norm(o.text) === norm(v) || o.label === v) || opts.find((o) => o.value === v);
  return o ? o.value : null;
}