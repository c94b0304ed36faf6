// DOM-quiet recorder and wait, for the post-action waiter (DESIGN §5).
// Evaluated as an expression; yields an object with two functions:
//   arm()              start recording mutations of this document (idempotent)
//   wait(win, quiet, max)  resolve "quiet" once `win` ms have passed since the call
//                      and no mutation happened in the last `quiet` ms, or "cap"
//                      after `max` ms.
// The recorder lives on a non-enumerable window property so pages don't see it
// in for-in loops; a new document starts without one.
(() => {
  const key = '__tabhiveQuiet';
  const arm = () => {
    let q = window[key];
    if (q && q.doc === document) return q;
    q = { doc: document, last: performance.now() };
    const obs = new MutationObserver(() => { q.last = performance.now(); });
    obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.defineProperty(window, key, { value: q, configurable: true, enumerable: false, writable: true });
    return q;
  };
  const wait = (win, quiet, max) => new Promise((resolve) => {
    const q = arm();
    const start = performance.now();
    const tick = () => {
      const now = performance.now();
      const ready = Math.max(start + win, q.last + quiet);
      if (now >= ready) return resolve('quiet');
      if (now - start >= max) return resolve('cap');
      setTimeout(tick, Math.max(1, Math.min(ready, start + max) - now));
    };
    tick();
  });
  return { arm, wait };
})()
