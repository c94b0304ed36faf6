// Causal tracker for the post-action waiter: follows the
// asynchronous work an action causes in the page's main world, so that the
// wait ends when nothing the action caused is pending, plus a short
// DOM-quiet tail, instead of after a fixed window.
//
// Evaluated as an expression in the main world; yields install(counting,
// lifetime, horizon), which wraps the page's scheduling functions and returns a
// controller. The waiter keeps the controller by reference, never through
// a global, so the page cannot reach it:
//
//   end()     the action's input was delivered: from now on only work
//             scheduled by work already counted counts (transitively)
//   settle(o) a promise of {reason, pending, quietFor} once nothing counted
//             is pending and the DOM has been quiet for o.tail ms, and
//             o.min ms have passed; with timers or frames still pending,
//             once the page has run on for o.horizon ms without changing
//             the DOM (work that runs on without changing the page is not
//             waited for: see "page time" below); with requests pending,
//             once o.requests ms have passed; or o.max ms after the call.
//             Settling stops the tracker.
//   stop()    restores everything as it was (idempotent). A tracker that
//             nobody settles or stops stops itself after `lifetime` ms.
//
// What counts, from install until end() (the action's window), and then
// from within counted callbacks: setTimeout and the first tick of
// setInterval with a delay up to the horizon (later ones are reported, not
// waited for), requestAnimationFrame, fetch and the reading of its
// response body, XMLHttpRequest, MessagePort.postMessage (how schedulers
// such as React's run work soon), a form submission, and a navigation the
// document starts (the Navigation API's navigate event: settle then
// answers "navigating").
// A counted callback runs "in the action": what it schedules, and what the
// microtasks after it schedule until its task ends, counts too.
//
// Page time: "ran on for the horizon" is measured in the time the page
// asked for — a timer's delay, 1/60 s per animation frame — as its
// callbacks run, and in wall time since the DOM last changed or a request
// last finished; both must reach the horizon (or the wall time three
// horizons). On a loaded machine, where ten frames or a 600 ms timer may
// take more than a second of wall time, the wait does not give up on work
// that is merely late, and the quiet while a slow response was awaited is
// not counted against what the response then schedules.
//
// Limits: work scheduled by other means (workers, observers, CSS
// transitions and animations, window.postMessage, idle callbacks) and work
// in other frames is covered only by the DOM-quiet tail; unrelated work
// that runs inside the action's window counts too, a bounded
// over-approximation. The page sees the wrappers only while the tracker
// runs, and as itself: their toString is the original's, the timer ids
// are the browser's own; a function the page installed in their place
// during that time is left alone on stop.
(function (counting, lifetime, horizon) {
  const w = window;
  const now = () => performance.now();
  const origSetTimeout = w.setTimeout;
  const origClearTimeout = w.clearTimeout;
  const origPost = MessagePort.prototype.postMessage;

  let inAction = counting; // the action's input is being delivered
  let inCaused = false; // a counted callback's task is running
  const isCounting = () => inAction || inCaused;

  let nextID = 1;
  const pending = new Map(); // id → {what, net}
  const beyond = []; // work scheduled past the horizon: reported, not awaited
  let netPending = 0; // requests among pending: bounded by o.requests
  let lastChange = now();
  let lastNetEnd = 0; // when a counted request last finished
  let paged = 0; // page time run by counted callbacks since the DOM last changed
  let navigating = false;
  let wake = () => {};
  const add = (what, net) => {
    const id = nextID++;
    pending.set(id, { what, net });
    if (net) netPending++;
    return id;
  };
  const done = (id) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (p.net) {
      netPending--;
      lastNetEnd = now();
      paged = 0;
    }
    wake();
  };

  // Messages on a channel of our own mark the end of caused tasks: one
  // posted now is delivered in a later task, after the page's messages
  // posted before it (one task source, first in first out). inCaused holds
  // until the last one outstanding arrives.
  let outstanding = 0;
  const channel = new MessageChannel();
  channel.port1.onmessage = (e) => {
    if (--outstanding === 0) inCaused = false;
    if (e.data) { paged += 1; done(e.data); }
  };
  const mark = (pid) => { outstanding++; origPost.call(channel.port2, pid || 0); };
  // causedTask marks the rest of the current task as the action's: the
  // callback that calls it and the microtasks after it.
  const causedTask = () => {
    inCaused = true;
    if (outstanding === 0) mark(0);
  };

  const wrappers = new WeakMap(); // wrapper → the function it stands for
  const restores = [];
  const wrap = (target, name, make) => {
    const before = target[name];
    if (typeof before !== 'function') return;
    const fn = make(before);
    wrappers.set(fn, before);
    target[name] = fn;
    restores.push(() => { if (target[name] === fn) target[name] = before; });
  };
  const describe = (ms) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

  // Timers: the id the page gets is the browser's own.
  const timers = new Map(); // browser timer id → pending id
  const timer = (kind) => (before) => function (cb, delay, ...args) {
    if (!isCounting() || typeof cb !== 'function') return before.call(this, cb, delay, ...args);
    const ms = Math.max(0, Number(delay) || 0);
    if (ms > horizon) {
      beyond.push(`${kind === 'setInterval' ? 'an interval' : 'a timer'} of ${describe(ms)}`);
      return before.call(this, cb, delay, ...args);
    }
    const pid = add(`${kind === 'setInterval' ? 'an interval' : 'a timer'} of ${describe(ms)}`);
    let first = true;
    const id = before.call(this, function (...a) {
      if (!first) return cb.apply(this, a); // later ticks of an interval: not the action's
      first = false;
      causedTask();
      paged += Math.max(ms, 4);
      try { return cb.apply(this, a); } finally { timers.delete(id); done(pid); }
    }, delay, ...args);
    timers.set(id, pid);
    return id;
  };
  const clear = (before) => function (id) {
    const pid = timers.get(id);
    if (pid) { timers.delete(id); done(pid); }
    return before.call(this, id);
  };
  wrap(w, 'setTimeout', timer('setTimeout'));
  wrap(w, 'setInterval', timer('setInterval'));
  wrap(w, 'clearTimeout', clear);
  wrap(w, 'clearInterval', clear);

  const frames = new Map();
  wrap(w, 'requestAnimationFrame', (before) => function (cb) {
    if (!isCounting() || typeof cb !== 'function') return before.call(this, cb);
    const pid = add('an animation frame');
    const id = before.call(this, function (t) {
      causedTask();
      paged += 1000 / 60;
      try { return cb.call(this, t); } finally { frames.delete(id); done(pid); }
    });
    frames.set(id, pid);
    return id;
  });
  wrap(w, 'cancelAnimationFrame', (before) => function (id) {
    const pid = frames.get(id);
    if (pid) { frames.delete(id); done(pid); }
    return before.call(this, id);
  });

  // A promise the action waits on: counted until it settles; the reactions
  // the page attached run in the action, as ours is attached first.
  const follow = (p, what) => {
    if (!isCounting() || !p || typeof p.then !== 'function') return p;
    const pid = add(what, true);
    const settled = () => { causedTask(); done(pid); };
    p.then(settled, settled);
    return p;
  };
  wrap(w, 'fetch', (before) => function (...args) {
    const p = before.apply(this, args);
    let url = '';
    try { url = String((args[0] && args[0].url) || args[0]); } catch (e) {}
    return follow(p, `a fetch of ${url}`);
  });
  for (const m of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
    wrap(Response.prototype, m, (before) => function (...args) {
      return follow(before.apply(this, args), `reading a fetched response`);
    });
  }
  const xhrs = new WeakSet();
  wrap(XMLHttpRequest.prototype, 'open', (before) => function (...args) {
    if (isCounting() && !xhrs.has(this)) {
      xhrs.add(this);
      // Before the page's load listeners, which run in the same task.
      this.addEventListener('readystatechange', () => { if (this.readyState === 4) causedTask(); });
    }
    return before.apply(this, args);
  });
  wrap(XMLHttpRequest.prototype, 'send', (before) => function (...args) {
    if (isCounting()) {
      const pid = add('an XMLHttpRequest', true);
      this.addEventListener('loadend', () => { causedTask(); done(pid); }, { once: true });
    }
    return before.apply(this, args);
  });
  wrap(MessagePort.prototype, 'postMessage', (before) => function (...args) {
    if (!isCounting() || this === channel.port2) return before.apply(this, args);
    const pid = add('a posted message');
    const r = before.apply(this, args);
    inCaused = true; // the page's message is delivered before ours: in the action
    mark(pid);
    return r;
  });
  // Native-looking: the toString of a wrapper is the original's.
  wrap(Function.prototype, 'toString', (before) => function () {
    const f = wrappers.get(this);
    return before.call(f === undefined ? this : f);
  });

  // Any cross-document navigation the document starts while the tracker
  // runs is waited for: most start inside the action, and a form's
  // submission starts in a task of its own, just after it.
  let submission = 0;
  const onNavigate = (e) => {
    if (!(e.destination && e.destination.sameDocument === true)) {
      navigating = true;
      wake();
    }
  };
  if (w.navigation) w.navigation.addEventListener('navigate', onNavigate);
  // A form the action submits navigates a task later: pending until then,
  // for a short while at most (one that targets another window never
  // navigates this one).
  const onSubmit = (e) => {
    if (!isCounting() || e.defaultPrevented || submission) return;
    submission = add('a form submission');
    origSetTimeout.call(w, () => { done(submission); submission = 0; }, 100);
  };
  w.addEventListener('submit', onSubmit);

  const observer = new MutationObserver(() => { lastChange = now(); paged = 0; wake(); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    wake = () => {};
    observer.disconnect();
    if (w.navigation) w.navigation.removeEventListener('navigate', onNavigate);
    w.removeEventListener('submit', onSubmit);
    for (const r of restores.reverse()) r();
    channel.port1.onmessage = null;
    origClearTimeout.call(w, selfStop);
  };
  const selfStop = origSetTimeout.call(w, stop, lifetime);

  const report = (reason) => {
    const out = { reason, pending: [...pending.values()].map((p) => p.what).concat(beyond), quietFor: Math.round(now() - lastChange) };
    stop();
    return out;
  };

  return {
    end() { inAction = false; },
    stop,
    settle(o) {
      const start = now();
      return new Promise((resolve) => {
        let t = 0;
        const check = () => {
          origClearTimeout.call(w, t);
          const at = now();
          if (navigating) return resolve(report('navigating'));
          const quiet = at - lastChange;
          const since = at - start;
          // idle: wall time without a change of the DOM or a response.
          const idle = at - Math.max(lastChange, lastNetEnd);
          const ranOn = idle >= o.horizon && (paged >= o.horizon || idle >= 3 * o.horizon);
          if (pending.size === 0 && quiet >= o.tail && since >= o.min) return resolve(report('settled'));
          if (pending.size > 0 && netPending === 0 && ranOn) return resolve(report('horizon'));
          if (netPending > 0 && since >= o.requests) return resolve(report('requests'));
          if (since >= o.max) return resolve(report('max'));
          let next = o.max - since;
          if (pending.size === 0) next = Math.min(next, Math.max(o.tail - quiet, o.min - since));
          // Callbacks that run wake the check; the clock only has to
          // catch the horizons passing (while a request is pending, its
          // end wakes the check).
          if (pending.size > 0 && netPending === 0) next = Math.min(next, idle < o.horizon ? o.horizon - idle : 3 * o.horizon - idle);
          if (netPending > 0) next = Math.min(next, o.requests - since);
          t = origSetTimeout.call(w, check, Math.max(1, next));
        };
        // Woken by a change, the check runs as a task of its own: after the
        // microtasks of the task that changed something, which may schedule
        // more work or change the DOM.
        let woken = false;
        wake = () => {
          if (woken) return;
          woken = true;
          origSetTimeout.call(w, () => { woken = false; check(); }, 0);
        };
        check();
      });
    },
  };
})
