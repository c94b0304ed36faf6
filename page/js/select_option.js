function () {
  const opt = this;
  if (!(opt instanceof HTMLOptionElement) || opt.disabled) return false;
  const sel = opt.closest('select');
  if (!sel || sel.multiple || sel.disabled) return false;
  if (opt.parentElement instanceof HTMLOptGroupElement && opt.parentElement.disabled) return false;
  if (sel.value !== opt.value) {
    sel.value = opt.value;
    sel.dispatchEvent(new Event('input', {bubbles: true}));
    sel.dispatchEvent(new Event('change', {bubbles: true}));
  }
  return true;
}