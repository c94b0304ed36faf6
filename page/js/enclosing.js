function () {
  if (this.nodeType === 1) return this;
  const p = this.parentNode;
  return this.nodeType === 3 && p && p.nodeType === 1 ? p : null;
}