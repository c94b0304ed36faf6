function (from, n) {
  const s = this.chunk(from, n);
  return typeof s === 'string' && s.length <= n ? s : null;
}