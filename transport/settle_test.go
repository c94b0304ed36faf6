package transport_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// zooPage is the settle zoo: each button causes its effect in its own
// way; the effect is the text "done <name>" in #out, or a navigation.
const zooPage = `<!doctype html><html><head><meta charset=utf-8><title>Zoo</title><link rel=icon href="data:,"></head><body>
<p id=out>none</p>
<form action=/landed method=post><input name=q value=x><button id=submit>submit</button></form>
<script>
const out = document.getElementById('out');
const done = (n) => { out.textContent = 'done ' + n; };
const later = (ms, f) => setTimeout(f, ms);
const busy = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
const frames = (n, f, cost = 0) => { let i = 0; const step = () => { busy(cost); ++i < n ? requestAnimationFrame(step) : f(); }; requestAnimationFrame(step); };
const slow = () => fetch('/slow').then((r) => r.text());
const cases = {
  noop: () => {},
  timer50: () => later(50, () => done('timer50')),
  timer120: () => later(120, () => done('timer120')),
  timer180: () => later(180, () => done('timer180')),
  timer300: () => later(300, () => done('timer300')),
  timer600: () => later(600, () => done('timer600')),
  timer5s: () => later(5000, () => done('timer5s')),
  fetch0: () => slow().then(() => done('fetch0')),
  fetch80: () => later(80, () => slow().then(() => done('fetch80'))),
  fetch150: () => later(150, () => slow().then(() => done('fetch150'))),
  frames10: () => frames(10, () => done('frames10')),
  frames30: () => frames(30, () => done('frames30')),
  chain: () => later(50, () => slow().then(() => later(100, () => done('chain')))),
  xhr: () => { const x = new XMLHttpRequest(); x.open('GET', '/slow'); x.onload = () => later(30, () => done('xhr')); x.send(); },
  navigate: () => later(100, () => { location.href = '/landed'; }),
  pushState: () => slow().then(() => { history.pushState({}, '', '/pushed'); done('pushState'); }),
  endless: () => { const f = () => requestAnimationFrame(f); f(); },
  interval: () => { let n = 0; setInterval(() => { n++; if (n === 1) done('interval'); }, 100); },
  message: () => { const c = new MessageChannel(); c.port1.onmessage = () => done('message'); c.port2.postMessage(0); },
  overridden: () => later(150, () => done('overridden')),
  // What a loaded machine does to a page: a response that takes longer
  // than the horizon, then a short timer; frames that take 250 ms each
  // (five of them: the wait gives up after three horizons of wall time
  // without a change, and frames under load come late too).
  slowResponse: () => fetch('/slower').then((r) => r.text()).then(() => later(50, () => done('slowResponse'))),
  heavyFrames: () => frames(5, () => done('heavyFrames'), 250),
  // A lazily loaded component: its code arrives 300 ms later.
  lazy: () => import('/lazy.js').then((m) => m.run()),
  // A chat that streams its answer over 600 ms (asked for from a timer:
  // a request sent while the click is delivered is waited for whole).
  stream: () => later(30, () => fetch('/stream').then(async (r) => {
    const reader = r.body.getReader();
    let text = '';
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      text += new TextDecoder().decode(value);
    }
    done(text);
  })),
  // Promise-based APIs that resolve later.
  crypto: () => {
    const data = new Uint8Array(256 << 10);
    let p = Promise.resolve();
    for (let i = 0; i < 40; i++) p = p.then(() => crypto.subtle.digest('SHA-256', data));
    p.then(() => done('crypto'));
  },
  idb: () => {
    const open = indexedDB.open('zoo' + Math.random(), 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s');
    open.onsuccess = () => {
      const tx = open.result.transaction('s', 'readwrite');
      for (let i = 0; i < 3000; i++) tx.objectStore('s').put('v' + i, i);
      tx.oncomplete = () => { open.result.transaction('s').objectStore('s').get(2999).onsuccess = (e) => done('idb ' + e.target.result); };
    };
  },
  blob: () => new Blob([new Uint8Array(1 << 20).fill(97)]).text().then((t) => new Blob([t, t]).arrayBuffer()).then(() => done('blob')),
  // Code that kept its own reference to setTimeout before any action.
  ownRef: () => keptTimeout(() => done('ownRef'), 200),
  // An animation that changes the DOM every frame, for ever.
  animate: () => { let n = 0; const f = () => { out.dataset.frame = n++; requestAnimationFrame(f); }; f(); },
  // Timers that are no longer scheduled when the action settles: one
  // cleared at once, one that runs while a slow response is awaited.
  cleared: () => clearTimeout(later(1500, () => done('cleared'))),
  ranFar: () => { later(1100, () => {}); fetch('/slower').then((r) => r.text()).then(() => done('ranFar')); },
  // Many timers past the horizon: summarised.
  many: () => { for (let i = 0; i < 17; i++) later(2000 + i * 1000, () => {}); },
  flood: () => { for (let i = 0; i < 20000; i++) later(60000, () => {}); },
};
for (const name of Object.keys(cases)) {
  const b = document.createElement('button');
  b.textContent = name;
  b.onclick = cases[name];
  document.body.appendChild(b);
}
const keptTimeout = setTimeout;
if (location.search === '?own-timers') {
  // A page that wraps setTimeout itself: the tracker wraps its wrapper,
  // and leaves it in place afterwards.
  const theirs = window.setTimeout;
  window.setTimeout = function (f, ms) { return theirs(f, ms); };
  window.ownTimer = window.setTimeout;
}
if (location.search === '?sabotage') {
  // What a tracker installed after the page's scripts relied on.
  delete window.MessageChannel;
  window.MutationObserver = function () { throw new TypeError('no observers here'); };
  window.Response = function () {};
}
</script></body></html>`

func zooSite(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "slow")
	})
	mux.HandleFunc("/slower", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1300 * time.Millisecond)
		fmt.Fprint(w, "slower")
	})
	mux.HandleFunc("/lazy.js", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `export function run() { document.getElementById('out').textContent = 'done lazy'; }`)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i, part := range []string{"st", "re", "a", "m"} {
			if i > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			fmt.Fprint(w, part)
			w.(http.Flusher).Flush()
		}
	})
	mux.Handle("/landed", browsertest.HTML("Landed", `<p>landed</p>`))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, zooPage)
	})
	return browsertest.Serve(t, mux).URL
}

// TestSettleZoo: after each kind of action, the snapshot taken at once
// shows its effect, and the action returned within its bound; what is set
// too far ahead, or runs on without changing the page, is reported as
// pending instead of waited for, summarised, and only while it is still
// scheduled.
func TestSettleZoo(t *testing.T) {
	t.Parallel()
	base := zooSite(t)
	cs := inMemory(t)
	for _, tc := range []struct {
		button  string
		page    string // "" for the zoo's own
		want    string // in the snapshot after the click
		pending string // in the click's reply
		within  time.Duration
		// maxReply, if set, bounds the click's reply, in bytes.
		maxReply int
	}{
		{button: "noop", want: `"none"`, within: 2 * time.Second},
		{button: "timer50", want: `"done timer50"`, within: 3 * time.Second},
		{button: "timer120", want: `"done timer120"`, within: 3 * time.Second},
		{button: "timer180", want: `"done timer180"`, within: 3 * time.Second},
		{button: "timer300", want: `"done timer300"`, within: 3 * time.Second},
		{button: "timer600", want: `"done timer600"`, within: 3 * time.Second},
		{button: "timer5s", want: `"none"`, pending: "a timer of 5 s", within: 3 * time.Second},
		{button: "fetch0", want: `"done fetch0"`, within: 4 * time.Second},
		{button: "fetch80", want: `"done fetch80"`, within: 4 * time.Second},
		{button: "fetch150", want: `"done fetch150"`, within: 4 * time.Second},
		{button: "frames10", want: `"done frames10"`, within: 4 * time.Second},
		{button: "frames30", want: `"done frames30"`, within: 4 * time.Second},
		{button: "chain", want: `"done chain"`, within: 4 * time.Second},
		{button: "xhr", want: `"done xhr"`, within: 4 * time.Second},
		{button: "navigate", want: `"landed"`, within: 5 * time.Second},
		{button: "submit", want: `"landed"`, within: 5 * time.Second},
		{button: "pushState", want: `"done pushState"`, within: 4 * time.Second},
		{button: "endless", want: `"none"`, pending: "an animation frame", within: 4 * time.Second},
		{button: "interval", want: `"done interval"`, within: 3 * time.Second},
		{button: "message", want: `"done message"`, within: 3 * time.Second},
		{button: "overridden", page: "?own-timers", want: `"done overridden"`, within: 3 * time.Second},
		// Late is not endless: waited for, though the DOM is quiet for
		// more than the horizon of wall time.
		{button: "slowResponse", want: `"done slowResponse"`, within: 5 * time.Second},
		{button: "heavyFrames", want: `"done heavyFrames"`, within: 5 * time.Second},
		// What the settle used to miss: a module imported on demand, a
		// streamed response, promise-based APIs, a reference to
		// setTimeout kept before the tracker came.
		{button: "lazy", want: `"done lazy"`, within: 4 * time.Second},
		{button: "stream", want: `"done stream"`, within: 4 * time.Second},
		{button: "crypto", want: `"done crypto"`, within: 8 * time.Second},
		{button: "idb", want: `"done idb v2999"`, within: 5 * time.Second},
		{button: "blob", want: `"done blob"`, within: 5 * time.Second},
		{button: "ownRef", want: `"done ownRef"`, within: 3 * time.Second},
		// An endless animation that changes the page every frame returns
		// after about a horizon, with the pending line; it used to hold
		// the click for the whole 3 s cap.
		{button: "animate", want: `"none"`, pending: "an animation frame", within: 2900 * time.Millisecond},
		// A page that deleted or replaced what the tracker relies on:
		// the tracker took its own before the page's scripts ran.
		{button: "timer120", page: "?sabotage", want: `"done timer120"`, within: 3 * time.Second},
		// Only what is still scheduled is reported.
		{button: "cleared", want: `"none"`, within: 3 * time.Second},
		{button: "ranFar", want: `"done ranFar"`, within: 5 * time.Second},
		{button: "many", want: `"none"`, pending: "17 timers, the nearest of 2 s", within: 3 * time.Second},
		{button: "flood", want: `"none"`, pending: "20000 timers, the nearest of 60 s", within: 15 * time.Second, maxReply: 1 << 10},
	} {
		t.Run(tc.button, func(t *testing.T) {
			id := openPage(t, cs, base+"/"+tc.page)
			// In front: a tab behind another test's gets animation frames
			// late in headless Chromium, and these cases count frames.
			must(t, cs, "select_page", map[string]any{"pageId": id, "bringToFront": true})
			before := time.Now()
			uid := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", tc.button)
			// What the machine costs a call now, beside the bounds the
			// settle keeps: tens of milliseconds when quiet, seconds at a
			// load of 30 on 2 cores, where a click on a 180 ms timer took
			// 3.18 s.
			slack := 2 * time.Since(before)
			start := time.Now()
			reply := must(t, cs, "click", map[string]any{"pageId": id, "uid": uid})
			took := time.Since(start)
			snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
			if !strings.Contains(snap, tc.want) {
				t.Errorf("snapshot after the click (took %v) lacks %s:\n%s", took, tc.want, snap)
			}
			if took > tc.within+slack {
				t.Errorf("click took %v, want at most %v (%v and %v for the machine's load, twice what the snapshot before it took)", took, tc.within+slack, tc.within, slack)
			}
			if tc.pending == "" && strings.Contains(reply, "Still pending") || tc.pending != "" && !strings.Contains(reply, "Still pending, not waited for: "+tc.pending+" (") {
				t.Errorf("click reply (want pending %q):\n%s", tc.pending, reply)
			}
			if strings.Contains(reply, "could not be followed") {
				t.Errorf("click reply says the page could not be followed:\n%s", reply)
			}
			if tc.maxReply > 0 && len(reply) > tc.maxReply {
				t.Errorf("click reply is %d bytes, want at most %d:\n%.2000s", len(reply), tc.maxReply, reply)
			}
			if tc.page == "?own-timers" {
				// The page's own wrapper is back in place, the tracker gone.
				got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "waitForStableDom": false, "function": "() => window.setTimeout === window.ownTimer && Function.prototype.toString.call(Function.prototype.toString)"})
				if !strings.Contains(got, "[native code]") {
					t.Errorf("after the click the page's setTimeout or toString is not its own: %s", got)
				}
			}
			t.Logf("%s: %v", tc.button, took.Round(time.Millisecond))
		})
	}
}

// TestSettleLeavesNoTrace: outside an action the page sees its own
// functions, with native toString, and no property of ours.
func TestSettleLeavesNoTrace(t *testing.T) {
	t.Parallel()
	base := zooSite(t)
	cs := inMemory(t)
	id := openPage(t, cs, base+"/")
	const probe = `() => JSON.stringify({
		st: Function.prototype.toString.call(setTimeout),
		raf: String(requestAnimationFrame),
		fetch: String(fetch),
		post: String(MessagePort.prototype.postMessage),
		own: Object.getOwnPropertyNames(window).filter((n) => n.toLowerCase().includes('tabhive')),
		syms: Object.getOwnPropertySymbols(window).length,
	})`
	before := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": probe, "waitForStableDom": false})
	for _, b := range []string{"timer50", "fetch0", "frames10", "message"} {
		uid := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", b)
		must(t, cs, "click", map[string]any{"pageId": id, "uid": uid})
	}
	after := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": probe, "waitForStableDom": false})
	if before != after {
		t.Errorf("the page sees a difference after actions:\nbefore: %s\nafter:  %s", before, after)
	}
	if !strings.Contains(after, `function setTimeout() { [native code] }`) || strings.Contains(after, "tabhive") {
		t.Errorf("page functions not its own, or a trace left: %s", after)
	}
}
