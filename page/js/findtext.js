// Waits in one frame for any of several texts, for wait_for.
// Called with (texts, ms); resolves with the first text found, or null after ms.
// A text matches when the frame's rendered text contains it (whitespace
// collapsed, so "Hello World" matches across <span>s), or when it equals an
// element's accessible label (aria-label, alt, title, placeholder, value of a button).
async function (texts, ms) {
  const norm = (s) => String(s).replace(/\s+/g, ' ').trim();
  const wanted = texts.map(norm);
  const find = () => {
    const body = document.body;
    if (!body) return null;
    const text = norm(body.innerText || '');
    for (let i = 0; i < wanted.length; i++) {
      if (wanted[i] && text.includes(wanted[i])) return texts[i];
    }
    const labelled = document.querySelectorAll('[aria-label],[alt],[title],[placeholder],input[type=button],input[type=submit]');
    for (const el of labelled) {
      for (const v of [el.getAttribute('aria-label'), el.getAttribute('alt'), el.getAttribute('title'), el.getAttribute('placeholder'), el.value]) {
        if (v == null) continue;
        const i = wanted.indexOf(norm(v));
        if (i >= 0) return texts[i];
      }
    }
    return null;
  };
  const hit = find();
  if (hit !== null || ms <= 0) return hit;
  return await new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      obs.disconnect();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(v);
    };
    const check = () => { const v = find(); if (v !== null) finish(v); };
    const obs = new MutationObserver(check);
    obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    // Visibility changes through CSS classes elsewhere don't always mutate
    // this subtree; a slow poll covers them.
    const poll = setInterval(check, 100);
    const timer = setTimeout(() => finish(null), ms);
  });
}
