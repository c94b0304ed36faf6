function () {
  const el = this;
  if (el instanceof HTMLInputElement) {
    const t = el.type;
    if (t === 'checkbox' || t === 'radio') return {kind: 'toggle', on: el.checked};
    if (['button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(t)) return {kind: 'unsupported:input type=' + t};
    if (['date', 'datetime-local', 'month', 'time', 'week', 'color', 'range'].includes(t)) return {kind: 'direct'};
    return {kind: 'text'};
  }
  const role = el.getAttribute && el.getAttribute('role');
  if (role === 'checkbox' || role === 'radio' || role === 'switch') {
    return {kind: 'toggle', on: el.getAttribute('aria-checked') === 'true'};
  }
  if (el instanceof HTMLSelectElement) return {kind: 'select'};
  if (el instanceof HTMLTextAreaElement || el.isContentEditable) return {kind: 'text'};
  return {kind: 'unsupported:<' + (el.localName || '#text') + '>'};
}