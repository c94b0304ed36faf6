// The causal tracker of the post-action waiter, and the machinery
// evaluate_script runs its scripts with.
//
// Installed in every document at its start, before the page's own scripts
// (Page.addScriptToEvaluateOnNewDocument), so that every reference it holds
// to the page's built-ins is the browser's own, and every reference the
// page takes to a scheduling function (setTimeout, fetch, ...) is to one of
// its wrappers. Where it could not be installed at document start (a
// document that predates the page's actor), the same source is evaluated
// late, and takes what the page left.
//
// The wrappers are dormant until an action begins: each checks one flag
// and calls the browser's function. They are proxies of the browser's
// functions, so that a page reading their name, length, prototype, own
// properties or source text (Function.prototype.toString, in this realm or
// another) sees the browser's; errors thrown through them carry the
// caller's stack, not theirs. The page's callbacks are never wrapped: a
// timer is followed by two companion timers of the same delay, set just
// before and just after it (timers of one delay run in the order they were
// set), and a frame by two companion frames; a promise by a reaction of
// ours and a promise of the same outcome handed to the page in its place,
// so that a rejection the page leaves unhandled is reported as it would be.
//
// The controller is kept in a private field of the document, whose name is
// a secret of the process (__TABHIVE_KEY__ is replaced): no global, no
// property, nothing a page can enumerate or reach. tabhive reads it over
// CDP (Runtime.getProperties lists private fields) and calls:
//
//   begin(counting, horizon)  follow an action from now: with counting, its
//             input is being delivered and all work scheduled counts
//   end()     the input was delivered: from now on only work scheduled by
//             work already counted counts (transitively)
//   hold(key), release(key)  a script the action loads (import(), a
//             <script>): pending, and what runs meanwhile counts, until
//             tabhive says it loaded
//   settle(o) a promise of {reason, pending} once nothing counted is
//             pending and the DOM has been quiet for o.tail ms, and o.min
//             ms have passed; with timers or frames still pending, once the
//             page has run on for o.horizon ms without changing the DOM, or
//             its counted timers and frames that changed the DOM add up to
//             o.horizon ms of page time (an endless animation); with
//             requests pending, once
//             o.requests ms have passed; or o.max ms after the call.
//             pending summarises, one line per kind, what is still
//             scheduled: how many, the nearest, of what kind. Settling
//             stops following.
//   stop()    dormant again (idempotent); a tracker nobody stops stops
//             itself `lifetime` ms after begin
//   state()   {active, observing, missing}, for tests
//   run(fn, args, budget, limit, keep), script(src, budget, limit, keep)
//             evaluate_script's machinery (see runScript below)
//
// What counts, from begin until end() (the action's window), and then from
// within counted callbacks: setTimeout and the first tick of setInterval
// with a delay up to the horizon (later ones are reported while still
// scheduled, not waited for), requestAnimationFrame, fetch and the reading
// of its response body (whole or streamed), XMLHttpRequest, FileReader,
// promise-based APIs that resolve later (crypto.subtle, Blob reads,
// createImageBitmap, image decoding, IndexedDB requests and transactions),
// MessagePort.postMessage (how schedulers such as React's run work soon), a
// form submission, and a navigation the document starts (the Navigation
// API's navigate event: settle then answers "navigating"). A counted
// callback runs "in the action": what it schedules, and what the
// microtasks after it schedule until its task ends, counts too.
//
// Page time: "ran on for the horizon" is measured in the time the page
// asked for (a timer's delay, 1/60 s per animation frame, the wait of a
// stream read) as its callbacks run, and in wall time since the DOM last
// changed or a request last finished; both must reach the horizon (or the
// wall time three horizons). On a loaded machine the wait does not give up
// on work that is merely late.
//
// Hardening: everything below runs on references taken when the script
// started, called through bound functions (immune to later changes of
// Function.prototype.call), on collections with null prototypes; no
// iterator protocol, spread or array method is used after install, and
// every object handed to the engine or to CDP has no prototype to be
// hijacked (a proxy's handler looks its traps up by name).
//
// Cost: the source is the same in every document (the key is the
// process's), so V8 compiles it once per renderer and serves later
// documents from its compilation cache; the install then takes a fraction
// of a millisecond. It throws nothing where a document lacks an API
// (crypto.subtle outside a secure context): V8 words an exception's
// message by parsing the whole script again, a millisecond or more a throw.
(function (lifetime) {
  'use strict';
  // Down to eslint-enable, the install, which takes references before the
  // page's scripts run: the one part that may name the page's globals
  // (scripts/jscheck.sh holds the rest to the references).
  /* eslint-disable no-restricted-globals */
  const g = globalThis;
  let missing = ''; // what could not be wrapped or captured, for the reply
  const note = (what) => { missing = missing === '' ? what : missing + ', ' + what; };

  // --- References taken before the page's scripts run.
  const R = Reflect;
  const apply = R.apply;
  const getProto = R.getPrototypeOf;
  const getOwn = R.getOwnPropertyDescriptor;
  const define = R.defineProperty;
  const FP = Function.prototype;
  const uncurry = (f) => apply(FP.bind, FP.call, [f]);
  const ProxyC = Proxy;
  const ObjectC = Object;
  const NumberC = Number;
  const StringC = String;
  const ErrorC = Error;
  const mathMax = Math.max;
  const mathMin = Math.min;
  const mathRound = Math.round;
  const captureStack = ErrorC.captureStackTrace;
  const hasOwn = uncurry(ObjectC.prototype.hasOwnProperty);
  const strSlice = uncurry(StringC.prototype.slice);
  const charCodeAt = uncurry(StringC.prototype.charCodeAt);
  const MapC = Map;
  const mGet = uncurry(MapC.prototype.get);
  const mSet = uncurry(MapC.prototype.set);
  const mHas = uncurry(MapC.prototype.has);
  const mDel = uncurry(MapC.prototype.delete);
  const mClear = uncurry(MapC.prototype.clear);
  const mEach = uncurry(MapC.prototype.forEach);
  const mSize = uncurry(getOwn(MapC.prototype, 'size').get);
  const WeakMapC = WeakMap;
  const wmGet = uncurry(WeakMapC.prototype.get);
  const wmSet = uncurry(WeakMapC.prototype.set);
  const P = Promise;
  const pThen = uncurry(P.prototype.then);
  const nSetTimeout = g.setTimeout;
  const nClearTimeout = g.clearTimeout;
  const nRAF = g.requestAnimationFrame;
  const setT = (f, ms) => apply(nSetTimeout, g, [f, ms]);
  const clearT = (id) => apply(nClearTimeout, g, [id]);
  const perfNow = uncurry(Performance.prototype.now);
  const perf = g.performance;
  const now = () => perfNow(perf);
  const doc = g.document;
  // The document's title, read as a settle ends: a navigation's reply
  // lists it, and reading it here spares a round trip of its own.
  let titleGet = null;
  try { titleGet = uncurry(getOwn(g.Document.prototype, 'title').get); } catch (e) {}
  const titleNow = () => {
    try {
      const t = titleGet(doc);
      return typeof t === 'string' ? t : null;
    } catch (e) { return null; }
  };
  const ET = g.EventTarget && g.EventTarget.prototype;
  const addEL = uncurry(ET.addEventListener);
  const removeEL = uncurry(ET.removeEventListener);
  const once = (t, type, f) => addEL(t, type, f, { __proto__: null, once: true });
  const MO = g.MutationObserver;
  const moObserve = uncurry(MO.prototype.observe);
  const moDisconnect = uncurry(MO.prototype.disconnect);
  const stringify = JSON.stringify;
  const evalC = g.eval;
  let TE = null;
  let encodeInto = null;
  let U8 = null;
  try { TE = new g.TextEncoder(); encodeInto = uncurry(g.TextEncoder.prototype.encodeInto); U8 = g.Uint8Array; } catch (e) { note('TextEncoder'); }
  const nav = g.navigation;
  /* eslint-enable no-restricted-globals */

  // --- State of the action being followed. gen tells this action's
  // companions from those of one stopped before.
  let active = false;
  let gen = 0;
  let inAction = false; // the action's input is being delivered
  let windows = 0; // counted timer or frame callbacks between their companions
  let inCaused = false; // a counted promise reaction, XHR or message task runs
  let holds = 0; // scripts loading, as tabhive says
  const isCounting = () => active && (inAction || windows > 0 || inCaused || holds > 0);

  let horizon = 1000;
  let nextID = 1;
  const pending = new MapC(); // id → {kind, what, ms, due, net}
  let netPending = 0; // requests among pending: bounded by o.requests
  const timers = new MapC(); // the page's timer id → companions
  const frames = new MapC(); // the page's frame id → companions
  const far = new MapC(); // timers set past the horizon: id → {kind, ms, due}
  const held = new MapC(); // hold key → pending id
  let began = 0;
  let lastChange = 0;
  let lastNetEnd = 0;
  let paged = 0; // page time run by counted callbacks since the DOM last changed
  // moving is the page time of counted timer and frame callbacks that
  // changed the DOM: an animation that changes the page every frame is
  // given up once it reaches the horizon. A frame's page time here is the
  // wall time since the previous one, 1/60 s to 250 ms, so that a loaded
  // machine's late frames still end the wait in about a horizon.
  let moving = 0;
  let changed = false; // the DOM changed while a counted callback ran
  let lastFrame = 0;
  let navigating = false;
  let observer = null;
  let lifeTimer = 0;
  let wake = () => {};
  let settling = null; // resolve of the settle in progress

  const add = (kind, what, ms, net) => {
    const id = nextID++;
    mSet(pending, id, { __proto__: null, kind, what, ms, due: now() + ms, net });
    if (net) netPending++;
    return id;
  };
  const done = (id, g0) => {
    if (g0 !== gen) return;
    const p = mGet(pending, id);
    if (p === undefined) return;
    mDel(pending, id);
    if (p.net) {
      netPending--;
      lastNetEnd = now();
      paged = 0;
    }
    wake();
  };

  // Messages on a channel of our own mark the end of caused tasks: one
  // posted now is delivered in a later task, after the page's messages
  // posted before it. inCaused holds until the last one outstanding
  // arrives.
  let outstanding = 0;
  let ourPort = null;
  let mark = (pid, g0) => { outstanding++; setT(() => arrived(pid, g0), 0); };
  const arrived = (pid, g0) => {
    if (--outstanding === 0) inCaused = false;
    if (pid) { paged += 1; done(pid, g0); }
  };
  let portPost = null;
  try {
    portPost = uncurry(g.MessagePort.prototype.postMessage);
    const ch = new g.MessageChannel();
    ourPort = ch.port2;
    const ids = new MapC();
    let seq = 1;
    addEL(ch.port1, 'message', (e) => {
      const k = e.data;
      const v = mGet(ids, k);
      mDel(ids, k);
      if (v !== undefined) arrived(v.pid, v.g0);
    });
    uncurry(g.MessagePort.prototype.start)(ch.port1);
    mark = (pid, g0) => {
      outstanding++;
      const k = seq++;
      mSet(ids, k, { __proto__: null, pid, g0 });
      portPost(ourPort, k);
    };
  } catch (e) {
    note('MessageChannel');
  }
  // causedTask marks the rest of the current task as the action's: the
  // callback that calls it and the microtasks after it.
  const causedTask = () => {
    inCaused = true;
    if (outstanding === 0) mark(0, gen);
  };

  // closed ends the window of a counted timer or frame callback that ran
  // for page time p.
  const closed = (p) => {
    windows--;
    if (changed) moving += p;
    if (windows === 0) changed = false;
  };

  // --- Wrappers: proxies of the browser's functions.
  const ours = new WeakMapC(); // proxy → the function it stands for
  // fix gives an error thrown through a wrapper the stack it would have had
  // without it: the frames of the wrapper's caller.
  const fix = (e, trap) => {
    if (e !== null && typeof e === 'object' && hasOwn(e, 'stack')) {
      try { apply(captureStack, ErrorC, [e, trap]); } catch (x) {}
    }
  };
  const wrap = (obj, name, body) => {
    let d;
    try { d = obj && getOwn(obj, name); } catch (e) {}
    if (!d || typeof d.value !== 'function' || !d.writable) { note(name); return; }
    const target = d.value;
    const trap = function apply(t, self, args) {
      try { return body(t, self, args); } catch (e) { fix(e, trap); throw e; }
    };
    const px = new ProxyC(target, { __proto__: null, apply: trap });
    wmSet(ours, px, target);
    define(obj, name, { __proto__: null, value: px, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
  };
  const pass = (t, self, args) => apply(t, self, args);

  // Source text: a wrapper's is its function's. A function of another
  // realm (a same-origin frame's) is asked of that realm's own toString,
  // which knows that realm's wrappers.
  let asking = false;
  const realmFP = (f) => {
    let o = f;
    for (let i = 0; i < 16 && o !== null; i++) {
      const p = getProto(o);
      if (p === null) return null;
      if (getProto(p) === null) return o;
      o = p;
    }
    return null;
  };
  wrap(FP, 'toString', (t, self, args) => {
    const f = wmGet(ours, self);
    if (f !== undefined) return apply(t, f, args);
    if (typeof self === 'function' && !asking) {
      let other = null;
      try {
        const fp = realmFP(self);
        if (fp !== null && fp !== FP) {
          const d = getOwn(fp, 'toString');
          if (d && typeof d.value === 'function' && d.value !== FP.toString) other = d.value;
        }
      } catch (e) {}
      if (other !== null) {
        asking = true;
        try { return apply(other, self, args); } finally { asking = false; }
      }
    }
    return apply(t, self, args);
  });

  // Timers: followed by companions of the same delay, one set just before
  // the page's (it opens a window in which what runs counts) and one just
  // after (it closes the window: the page's callback and its microtasks
  // have run). The id the page gets is the browser's own.
  const describe = (ms) => (ms >= 1000 ? `${mathRound(ms) / 1000} s` : `${mathRound(ms)} ms`);
  const delayOf = (args) => {
    if (args.length < 2) return 0;
    const d = args[1];
    const ms = typeof d === 'number' ? d : NumberC(d);
    args[1] = ms; // converted once, as the browser would
    return ms > 0 ? ms : 0;
  };
  const timer = (kind) => (t, self, args) => {
    if (!isCounting() || args.length === 0) return apply(t, self, args);
    const ms = delayOf(args);
    if (ms > horizon) {
      const id = apply(t, self, args);
      mSet(far, id, { __proto__: null, kind, ms, due: now() + ms });
      return id;
    }
    const g0 = gen;
    const pid = add(kind, '', ms, false);
    const c = { __proto__: null, before: 0, after: 0, open: false, pid };
    const p = mathMax(ms, 4);
    c.before = setT(() => {
      if (g0 !== gen) return;
      c.open = true;
      windows++;
      paged += p;
    }, ms);
    let id;
    try { id = apply(t, self, args); } catch (e) { clearT(c.before); done(pid, g0); throw e; }
    c.after = setT(() => {
      if (g0 !== gen) return;
      if (c.open) { c.open = false; closed(p); }
      if (mGet(timers, id) === c) mDel(timers, id);
      done(pid, g0);
    }, ms);
    mSet(timers, id, c);
    return id;
  };
  const forget = (id) => {
    const c = mGet(timers, id);
    if (c !== undefined) {
      mDel(timers, id);
      clearT(c.before);
      clearT(c.after);
      if (c.open) { c.open = false; closed(0); }
      done(c.pid, gen);
    }
    if (mHas(far, id)) mDel(far, id);
  };
  const clear = (t, self, args) => {
    if (active && args.length > 0) forget(args[0]);
    return apply(t, self, args);
  };
  wrap(g, 'setTimeout', timer('timer'));
  wrap(g, 'setInterval', timer('interval'));
  wrap(g, 'clearTimeout', clear);
  wrap(g, 'clearInterval', clear);

  const FRAME = 1000 / 60;
  wrap(g, 'requestAnimationFrame', (t, self, args) => {
    if (!isCounting() || args.length === 0 || typeof args[0] !== 'function') return apply(t, self, args);
    const g0 = gen;
    const pid = add('frame', '', 0, false);
    const c = { __proto__: null, before: 0, after: 0, open: false, pid };
    let p = FRAME;
    c.before = apply(nRAF, g, [() => {
      if (g0 !== gen) return;
      c.open = true;
      windows++;
      paged += FRAME;
      const at = now();
      if (lastFrame > 0) p = mathMin(mathMax(at - lastFrame, FRAME), 250);
      lastFrame = at;
    }]);
    let id;
    try { id = apply(t, self, args); } catch (e) { done(pid, g0); throw e; }
    c.after = apply(nRAF, g, [() => {
      if (g0 !== gen) return;
      if (c.open) { c.open = false; closed(p); }
      if (mGet(frames, id) === c) mDel(frames, id);
      done(pid, g0);
    }]);
    mSet(frames, id, c);
    return id;
  });
  let nCAF = null;
  try { nCAF = g.cancelAnimationFrame; } catch (e) {}
  const forgetFrame = (id) => {
    const c = mGet(frames, id);
    if (c === undefined) return;
    mDel(frames, id);
    apply(nCAF, g, [c.before]);
    apply(nCAF, g, [c.after]);
    if (c.open) { c.open = false; closed(0); }
    done(c.pid, gen);
  };
  wrap(g, 'cancelAnimationFrame', (t, self, args) => {
    if (active && args.length > 0) forgetFrame(args[0]);
    return apply(t, self, args);
  });

  // Promises the action waits on: counted until they settle. The page
  // gets a promise of the same outcome; the reactions it attaches run
  // after ours, in the action.
  const follow = (p, kind, what, net, paces) => {
    const g0 = gen;
    const pid = add(kind, what, 0, net);
    const start = now();
    let resolve, reject;
    const mine = new P((a, b) => { resolve = a; reject = b; });
    const end = () => {
      if (paces && g0 === gen) paged += now() - start;
      causedTask();
      done(pid, g0);
    };
    try {
      pThen(p, (v) => { end(); resolve(v); }, (e) => { end(); reject(e); });
    } catch (e) {
      done(pid, g0);
      return p;
    }
    return mine;
  };
  const followCall = (kind, what, net, paces) => (t, self, args) => {
    const p = apply(t, self, args);
    if (!isCounting()) return p;
    return follow(p, kind, what, net, paces);
  };

  let urlOf = (x) => (typeof x === 'string' ? x : '');
  try {
    const reqURL = uncurry(getOwn(g.Request.prototype, 'url').get);
    const href = uncurry(getOwn(g.URL.prototype, 'href').get);
    urlOf = (x) => {
      if (typeof x === 'string') return x;
      try { return reqURL(x); } catch (e) {}
      try { return href(x); } catch (e) {}
      return '';
    };
  } catch (e) {}
  const short = (s) => (s.length > 100 ? strSlice(s, 0, 99) + '…' : s);
  wrap(g, 'fetch', (t, self, args) => {
    if (!isCounting()) return apply(t, self, args);
    const url = short(urlOf(args.length > 0 ? args[0] : ''));
    return follow(apply(t, self, args), 'fetch', url, true, false);
  });
  const body = ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes'];
  for (let i = 0; i < body.length; i++) {
    try { wrap(g.Response.prototype, body[i], followCall('read', '', true, false)); } catch (e) {}
  }
  // Streamed responses (a chat's answer): each read of the stream counts
  // until it resolves, and its wait is page time.
  try { wrap(g.ReadableStreamDefaultReader.prototype, 'read', followCall('stream', '', false, true)); } catch (e) { note('ReadableStreamDefaultReader'); }
  try {
    const it = getProto(apply(getOwn(g.ReadableStream.prototype, 'values').value, new g.ReadableStream(), []));
    wrap(it, 'next', followCall('stream', '', false, true));
  } catch (e) {}
  const blobReads = ['text', 'arrayBuffer', 'bytes'];
  for (let i = 0; i < blobReads.length; i++) {
    try { wrap(g.Blob.prototype, blobReads[i], followCall('task', 'Blob.' + blobReads[i] + '()', false, true)); } catch (e) {}
  }
  // Only secure contexts have crypto.subtle: absent, it is skipped without
  // a throw (see Cost in the header).
  const SC = g.SubtleCrypto;
  const subtle = ['encrypt', 'decrypt', 'sign', 'verify', 'digest', 'generateKey', 'deriveKey', 'deriveBits', 'importKey', 'exportKey', 'wrapKey', 'unwrapKey'];
  for (let i = 0; SC && i < subtle.length; i++) {
    try { wrap(SC.prototype, subtle[i], followCall('task', 'crypto.subtle.' + subtle[i] + '()', false, true)); } catch (e) {}
  }
  wrap(g, 'createImageBitmap', followCall('task', 'createImageBitmap()', false, true));
  try { wrap(g.HTMLImageElement.prototype, 'decode', followCall('task', 'an image decoding', false, true)); } catch (e) {}

  // Requests and readers that report by events: pending until their last
  // event, whose listeners run in the action (ours is added first).
  const byEvents = (kind, what, net, ends) => (t, self, args) => {
    const r = apply(t, self, args);
    if (!isCounting()) return r;
    const target = r !== undefined && r !== null && typeof r === 'object' ? r : self;
    const g0 = gen;
    const pid = add(kind, what, 0, net);
    let over = false;
    const fin = () => { if (over) return; over = true; causedTask(); done(pid, g0); };
    try { for (let i = 0; i < ends.length; i++) once(target, ends[i], fin); } catch (e) { done(pid, g0); }
    return r;
  };
  let xhrState = null;
  try { xhrState = uncurry(getOwn(g.XMLHttpRequest.prototype, 'readyState').get); } catch (e) {}
  const xhrs = new WeakMapC();
  try {
    wrap(g.XMLHttpRequest.prototype, 'open', (t, self, args) => {
      if (isCounting() && wmGet(xhrs, self) === undefined && xhrState !== null) {
        wmSet(xhrs, self, true);
        // Before the page's load listeners, which run in the same task.
        addEL(self, 'readystatechange', () => { if (active && xhrState(self) === 4) causedTask(); });
      }
      return apply(t, self, args);
    });
    wrap(g.XMLHttpRequest.prototype, 'send', (t, self, args) => {
      if (isCounting()) {
        const g0 = gen;
        const pid = add('xhr', '', 0, true);
        once(self, 'loadend', () => { causedTask(); done(pid, g0); });
      }
      return apply(t, self, args);
    });
  } catch (e) { note('XMLHttpRequest'); }
  const fileReads = ['readAsText', 'readAsArrayBuffer', 'readAsDataURL', 'readAsBinaryString'];
  for (let i = 0; i < fileReads.length; i++) {
    try { wrap(g.FileReader.prototype, fileReads[i], byEvents('task', 'a FileReader read', false, ['loadend'])); } catch (e) {}
  }
  // IndexedDB: an open request until it succeeds or fails; a transaction
  // until it completes or aborts, its requests' events (which pass through
  // it) running in the action.
  try {
    wrap(g.IDBFactory.prototype, 'open', byEvents('task', 'an IndexedDB open', false, ['success', 'error']));
    wrap(g.IDBFactory.prototype, 'deleteDatabase', byEvents('task', 'an IndexedDB deletion', false, ['success', 'error']));
    wrap(g.IDBDatabase.prototype, 'transaction', (t, self, args) => {
      const tx = apply(t, self, args);
      if (!isCounting()) return tx;
      const g0 = gen;
      const pid = add('task', 'an IndexedDB transaction', 0, false);
      let over = false;
      const fin = () => { if (over) return; over = true; causedTask(); done(pid, g0); };
      once(tx, 'complete', fin);
      once(tx, 'abort', fin);
      const inTask = () => { if (active) causedTask(); };
      addEL(tx, 'success', inTask, true);
      addEL(tx, 'error', inTask, true);
      return tx;
    });
  } catch (e) {}

  try {
    wrap(g.MessagePort.prototype, 'postMessage', (t, self, args) => {
      if (!isCounting() || self === ourPort) return apply(t, self, args);
      const g0 = gen;
      const pid = add('message', '', 0, false);
      const r = apply(t, self, args);
      inCaused = true; // the page's message is delivered before ours: in the action
      mark(pid, g0);
      return r;
    });
  } catch (e) {}

  // Navigations the document starts, and forms it submits, while the
  // action is followed.
  const onNavigate = (e) => {
    let same = false;
    try { same = e.destination.sameDocument === true; } catch (x) {}
    if (!same) { navigating = true; wake(); }
  };
  // Leaving the document (for another, or the back-forward cache) ends
  // the following: a settle in progress answers "navigating", and tabhive
  // need not stop a tracker whose document it saw replaced. Only the
  // browser's pagehide counts: isTrusted is the event's own unforgeable
  // property, which a page's dispatchEvent cannot set.
  const onHide = (e) => {
    let trusted = false;
    try { trusted = e.isTrusted === true; } catch (x) {}
    if (!trusted) return;
    if (settling !== null) settling('navigating');
    else stop();
  };
  let submission = 0;
  const onSubmit = (e) => {
    let prevented = false;
    try { prevented = e.defaultPrevented; } catch (x) {}
    if (!isCounting() || prevented || submission) return;
    const g0 = gen;
    const pid = add('submit', '', 0, false);
    submission = pid;
    // A form's submission navigates a task later, or never (one that
    // targets another window): pending until then, briefly.
    setT(() => { if (submission === pid) submission = 0; done(pid, g0); }, 100);
  };

  // --- The controller.
  const forgetAll = () => {
    mEach(timers, (c) => { clearT(c.before); clearT(c.after); });
    mEach(frames, (c) => { apply(nCAF, g, [c.before]); apply(nCAF, g, [c.after]); });
    mClear(timers);
    mClear(frames);
    mClear(far);
    mClear(pending);
    mClear(held);
  };
  const stop = () => {
    if (!active) return;
    active = false;
    gen++;
    inAction = false;
    windows = 0;
    holds = 0;
    netPending = 0;
    submission = 0;
    forgetAll();
    if (observer !== null) { moDisconnect(observer); observer = null; }
    try { if (nav) removeEL(nav, 'navigate', onNavigate); } catch (e) {}
    try { removeEL(g, 'submit', onSubmit); } catch (e) {}
    try { removeEL(g, 'pagehide', onHide, true); } catch (e) {}
    clearT(lifeTimer);
    wake = () => {};
    if (settling !== null) { const r = settling; settling = null; r('stopped'); }
  };
  const begin = (counting, h) => {
    stop();
    active = true;
    inAction = counting === true;
    horizon = h;
    began = now();
    lastChange = began;
    lastNetEnd = 0;
    paged = 0;
    moving = 0;
    changed = false;
    lastFrame = 0;
    navigating = false;
    observer = new MO(() => { lastChange = now(); paged = 0; if (windows > 0) changed = true; wake(); });
    moObserve(observer, doc, { __proto__: null, subtree: true, childList: true, attributes: true, characterData: true });
    try { if (nav) addEL(nav, 'navigate', onNavigate); } catch (e) {}
    try { addEL(g, 'submit', onSubmit); } catch (e) {}
    try { addEL(g, 'pagehide', onHide, true); } catch (e) {}
    lifeTimer = setT(stop, lifetime);
  };

  // summary is what is still scheduled, one line per kind: how many, the
  // nearest, what kind. Timers past the horizon that have since run or
  // been cleared are not.
  const summary = () => {
    const kinds = { __proto__: null };
    const order = ['timer', 'interval', 'frame', 'fetch', 'read', 'stream', 'xhr', 'message', 'submit', 'script', 'task'];
    const at = now();
    const count = (kind, ms, what) => {
      let k = kinds[kind];
      if (k === undefined) { k = { __proto__: null, n: 0, ms: -1, what: '' }; kinds[kind] = k; }
      k.n++;
      if (ms >= 0 && (k.ms < 0 || ms < k.ms)) k.ms = ms;
      if (k.what === '' && what !== '') k.what = what;
    };
    mEach(pending, (p) => { count(p.kind, p.kind === 'timer' || p.kind === 'interval' ? p.ms : -1, p.what); });
    mEach(far, (f) => { if (f.kind === 'interval' || f.due > at) count(f.kind, f.ms, ''); });
    let out = '';
    const line = (s) => { out = out === '' ? s : out + '\n' + s; };
    const plural = (n, one, many) => (n === 1 ? one : `${n} ${many}`);
    for (let i = 0; i < order.length; i++) {
      const k = kinds[order[i]];
      if (k === undefined) continue;
      const n = k.n;
      switch (order[i]) {
        case 'timer': line(n === 1 ? `a timer of ${describe(k.ms)}` : `${n} timers, the nearest of ${describe(k.ms)}`); break;
        case 'interval': line(n === 1 ? `an interval of ${describe(k.ms)}` : `${n} intervals, the shortest of ${describe(k.ms)}`); break;
        case 'frame': line(plural(n, 'an animation frame', 'animation frames')); break;
        case 'fetch': line(n === 1 ? `a fetch of ${k.what}` : `${n} fetches, such as of ${k.what}`); break;
        case 'read': line(plural(n, 'reading a fetched response', 'fetched responses being read')); break;
        case 'stream': line(plural(n, 'reading a stream', 'stream reads')); break;
        case 'xhr': line(plural(n, 'an XMLHttpRequest', 'XMLHttpRequests')); break;
        case 'message': line(plural(n, 'a posted message', 'posted messages')); break;
        case 'submit': line('a form submission'); break;
        case 'script': line(plural(n, 'a script loading', 'scripts loading')); break;
        case 'task': line(n === 1 ? k.what : `${n} calls that resolve later, such as ${k.what}`); break;
      }
    }
    return out;
  };

  const settle = (o) => new P((resolve) => {
    if (!active) { resolve({ __proto__: null, reason: 'stopped', pending: '' }); return; }
    const start = now();
    let t = 0;
    let over = false;
    const finish = (reason) => {
      if (over) return;
      over = true;
      clearT(t);
      wake = () => {};
      settling = null;
      const pending = reason === 'stopped' ? '' : summary();
      // Settled: following ends here, as tabhive would end it next.
      if (reason !== 'stopped') stop();
      resolve({ __proto__: null, reason, pending, title: titleNow() });
    };
    settling = finish;
    const check = () => {
      clearT(t);
      if (over) return;
      const at = now();
      if (navigating) return finish('navigating');
      const n = mSize(pending);
      const quiet = at - lastChange;
      const since = at - start;
      // idle: wall time without a change of the DOM or a response.
      const idle = at - mathMax(lastChange, lastNetEnd);
      const ranOn = idle >= o.horizon && (paged >= o.horizon || idle >= 3 * o.horizon);
      if (n === 0 && quiet >= o.tail && since >= o.min) return finish('settled');
      if (n > 0 && netPending === 0 && (ranOn || moving >= o.horizon)) return finish('horizon');
      if (netPending > 0 && since >= o.requests) return finish('requests');
      if (since >= o.max) return finish('max');
      let next = o.max - since;
      if (n === 0) next = mathMin(next, mathMax(o.tail - quiet, o.min - since));
      // Callbacks that run wake the check; the clock only has to catch
      // the horizons passing (while a request is pending, its end wakes
      // the check).
      if (n > 0 && netPending === 0) next = mathMin(next, idle < o.horizon ? o.horizon - idle : 3 * o.horizon - idle);
      if (netPending > 0) next = mathMin(next, o.requests - since);
      t = setT(check, mathMax(1, next));
    };
    // Woken by a change, the check runs as a task of its own: after the
    // microtasks of the task that changed something, which may schedule
    // more work or change the DOM.
    let woken = false;
    wake = () => {
      if (woken) return;
      woken = true;
      setT(() => { woken = false; check(); }, 0);
    };
    check();
  });

  // --- evaluate_script's machinery: the agent's script runs in the page,
  // under a timer of ours, and its result is serialised and bounded here,
  // so that a page's own JSON.stringify, setTimeout, Promise or
  // TextEncoder cannot stall it, feed it anything but a string, or
  // make it carry more than the limit.
  // utf8Size is the length of s in bytes of UTF-8: encoded a slice at a
  // time with the browser's encoder, which is native speed (a loop over
  // 50 million characters through bound functions took seconds).
  const SLICE = 1 << 20;
  let sizeBuf = null;
  const utf8Size = (s) => {
    if (TE === null) return utf8SizeSlow(s);
    if (sizeBuf === null) sizeBuf = new U8(3 * SLICE);
    let n = 0;
    for (let from = 0; from < s.length;) {
      let end = mathMin(s.length, from + SLICE);
      if (end < s.length) {
        const c = charCodeAt(s, end - 1);
        if (c >= 0xd800 && c < 0xdc00) end--;
      }
      n += encodeInto(TE, strSlice(s, from, end), sizeBuf).written;
      from = end;
    }
    return n;
  };
  const utf8SizeSlow = (s) => {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) { n += 4; i++; }
      else n += 3;
    }
    return n;
  };
  // bound bounds a result's JSON text to limit bytes of UTF-8; with keep
  // it is held here and read in slices (keepResult).
  const bound = (json, limit, keep) => {
    if (json === undefined) return { __proto__: null };
    if (typeof json !== 'string') throw new ErrorC('tabhive: the page\'s JSON.stringify returned no text');
    if (keep) return keepResult(json);
    if (json.length * 3 <= limit) return { __proto__: null, json };
    if (TE === null) throw new ErrorC('tabhive: the page has no TextEncoder to bound the result with');
    const r = encodeInto(TE, json, new U8(limit));
    const read = r.read;
    if (read >= json.length) return { __proto__: null, json };
    return { __proto__: null, json: strSlice(json, 0, read), size: utf8Size(json) };
  };
  const keepResult = (json) => ({
    __proto__: null,
    size: utf8Size(json),
    // chunk returns the UTF-16 code units [from, from+n), one fewer when
    // the slice would end between the two halves of a surrogate pair.
    chunk(from, n) {
      let end = mathMin(json.length, from + n);
      if (end < json.length) {
        const c = charCodeAt(json, end - 1);
        if (c >= 0xd800 && c < 0xdc00) end--;
      }
      return strSlice(json, from, end);
    },
  });
  const deadline = (budget, reject) => (budget > 0 ? setT(() => reject(new ErrorC('tabhive: script timed out')), budget) : 0);
  // finish settles the evaluation with v, a value or a promise of one.
  const outcome = (v, limit, keep, timer, resolve, reject) => {
    const ok = (x) => {
      clearT(timer);
      let json;
      try { json = apply(stringify, undefined, [x]); resolve(bound(json, limit, keep)); } catch (e) { reject(e); }
    };
    const bad = (e) => { clearT(timer); reject(e); };
    try { pThen(v, ok, bad); return; } catch (e) {}
    // Not a promise: a thenable is followed as await would, anything
    // else is the result.
    if (v !== null && (typeof v === 'object' || typeof v === 'function')) {
      let then;
      try { then = v.then; } catch (e) { bad(e); return; }
      if (typeof then === 'function') {
        pThen(new P((r) => r(v)), ok, bad);
        return;
      }
    }
    ok(v);
  };
  // run calls fn with args, and resolves with its bounded result.
  const runFn = (fn, args, budget, limit, keep) => new P((resolve, reject) => {
    const timer = deadline(budget, reject);
    let v;
    try { v = apply(fn, undefined, args); } catch (e) { clearT(timer); reject(e); return; }
    outcome(v, limit, keep, timer, resolve, reject);
  });
  // script runs classic script text through an indirect eval (its var and
  // function declarations become globals, as a classic script's; let,
  // const and class stay inside), and resolves with its completion value,
  // bounded.
  const runScript = (src, budget, limit, keep) => new P((resolve, reject) => {
    const timer = deadline(budget, reject);
    let v;
    try { v = apply(evalC, undefined, [src]); } catch (e) { clearT(timer); reject(e); return; }
    outcome(v, limit, keep, timer, resolve, reject);
  });

  const controller = {
    __proto__: null,
    begin,
    end() { inAction = false; },
    hold(key) {
      if (!active || mHas(held, key)) return;
      mSet(held, key, add('script', '', 0, true));
      holds++;
    },
    release(key) {
      const pid = mGet(held, key);
      if (pid === undefined) return;
      mDel(held, key);
      holds--;
      done(pid, gen);
    },
    settle,
    stop,
    state() { return { __proto__: null, active, observing: observer !== null, missing }; },
    run: runFn,
    script: runScript,
  };
  class Base { constructor(o) { return o; } }
  class Stamp extends Base { #__TABHIVE_KEY__ = controller; }
  try { new Stamp(doc); } catch (e) {}
  return controller;
})
