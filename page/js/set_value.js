function (v) {
  this.focus();
  if (this.value !== v) {
    this.value = v;
    this.dispatchEvent(new Event('input', {bubbles: true}));
    this.dispatchEvent(new Event('change', {bubbles: true}));
  }
}