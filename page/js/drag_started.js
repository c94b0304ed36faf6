function (last) {
  if (last) this.w.removeEventListener('dragstart', this.on, {capture: true});
  return this.ev !== null && !this.ev.defaultPrevented;
}