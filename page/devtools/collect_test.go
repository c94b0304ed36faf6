package devtools_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/devtools"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

var (
	open  = pagetest.Open
	ctx   = pagetest.Ctx
	serve = pagetest.Serve
)

// eventually is [testwait.Until] for a condition that says its state,
// which the failure shows.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var state string
	if !testwait.Poll(testwait.Timeout, func() (ok bool) { ok, state = cond(); return ok }) {
		t.Fatalf("timed out waiting for %s; last state:\n%s", what, state)
	}
}

func consoleList(t *testing.T, a *page.Actor, f devtools.ConsoleFilter) []collectors.Message {
	t.Helper()
	l, err := devtools.Of(a).ConsoleMessages(ctx(t), f)
	if err != nil {
		t.Fatalf("ConsoleMessages(%+v) = %v", f, err)
	}
	return l.Messages
}

func networkList(t *testing.T, a *page.Actor, f devtools.NetworkFilter) []collectors.Request {
	t.Helper()
	l, err := devtools.Of(a).NetworkRequests(ctx(t), f)
	if err != nil {
		t.Fatalf("NetworkRequests(%+v) = %v", f, err)
	}
	return l.Requests
}

func describeMessages(msgs []collectors.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%d [%s] %q (%d args)\n", m.ID, m.Type, m.Text, m.ArgCount)
	}
	return b.String()
}

func describeRequests(reqs []collectors.Request) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "%d %s %s %s [%s]\n", r.ID, r.Type, r.Method, r.URL, r.Status())
	}
	return b.String()
}

// findRequest returns the first request whose URL ends with suffix.
func findRequest(reqs []collectors.Request, suffix string) (collectors.Request, bool) {
	i := slices.IndexFunc(reqs, func(r collectors.Request) bool { return strings.HasSuffix(r.URL, suffix) })
	if i < 0 {
		return collectors.Request{}, false
	}
	return reqs[i], true
}

func TestConsoleMessagesOfEveryLevel(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Log", `<script>
console.log('hello', 1, {a: 1});
console.debug('dbg');
console.info('fyi');
console.warn('careful');
console.error('bad');
console.table([{a: 1}]);
console.trace('traced');
console.assert(false, 'assertion');
console.count('c');
console.log(null, undefined, -0, 1e21, 0.000001, 1e-7, 10n, NaN);
for (let i = 0; i < 3; i++) console.log('again');
</script>`),
	})
	a := open(t, base+"/")
	want := []string{
		`1 [log] "hello 1 [object Object]" (3 args)`,
		`2 [debug] "dbg" (1 args)`,
		`3 [info] "fyi" (1 args)`,
		`4 [warn] "careful" (1 args)`,
		`5 [error] "bad" (1 args)`,
		`6 [table] "[array Array]" (1 args)`,
		`7 [trace] "traced" (1 args)`,
		`8 [assert] "assertion" (1 args)`,
		`9 [count] "c: 1" (1 args)`,
		`10 [log] "  0 1e+21 0.000001 1e-7 10 NaN" (8 args)`,
		`11 [log] "again" (1 args)`,
		`12 [log] "again" (1 args)`,
		`13 [log] "again" (1 args)`,
	}
	var got []collectors.Message
	eventually(t, "13 messages", func() (bool, string) {
		got = consoleList(t, a, devtools.ConsoleFilter{})
		return len(got) >= len(want), describeMessages(got)
	})
	if d := strings.TrimSpace(describeMessages(got)); d != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", d, strings.Join(want, "\n"))
	}
	if s := got[0].Stack; len(s) == 0 || s[0].Line != 1 || s[0].URL != base+"/" {
		t.Errorf("first message stack = %+v, want a frame on line 1 (0-based) of %s/", s, base)
	}

	// Filtering keeps ids.
	warn := consoleList(t, a, devtools.ConsoleFilter{Types: []string{"warn", "error"}})
	if d := describeMessages(warn); d != "4 [warn] \"careful\" (1 args)\n5 [error] \"bad\" (1 args)\n" {
		t.Errorf("warn and error only:\n%s", d)
	}

	// Details: objects read back as JSON, primitives as JavaScript prints
	// them.
	d, err := devtools.Of(a).ConsoleMessage(ctx(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := argTexts(d.Args), []string{"hello", "1", `{"a":1}`}; !slices.Equal(got, want) {
		t.Errorf("ConsoleMessage(1) args = %q, want %q", got, want)
	}
	d, err = devtools.Of(a).ConsoleMessage(ctx(t), 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := argTexts(d.Args), []string{"null", "undefined", "0", "1e+21", "0.000001", "1e-7", "10", "NaN"}; !slices.Equal(got, want) {
		t.Errorf("ConsoleMessage(10) args = %q, want %q", got, want)
	}
	if _, err := devtools.Of(a).ConsoleMessage(ctx(t), 99); !errors.Is(err, devtools.ErrNoMessage) {
		t.Errorf("ConsoleMessage(99) = %v, want ErrNoMessage", err)
	}
}

func argTexts(args []devtools.ConsoleArg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Text
		if a.Gone {
			out[i] = "<gone>"
		}
	}
	return out
}

func TestConsoleUncaughtErrors(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Throw", `<script>
function thrower() { throw new Error('boom', {cause: new TypeError('inner', {cause: 'root'})}); }
setTimeout(thrower, 0);
Promise.reject(new Error('rejected'));
setTimeout(() => { throw 'a string'; }, 0);
</script>`),
	})
	a := open(t, base+"/")
	want := map[string]bool{
		"Uncaught Error: boom":                  true,
		"Uncaught (in promise) Error: rejected": true,
		"Uncaught a string":                     true,
	}
	var got []collectors.Message
	eventually(t, "three uncaught errors", func() (bool, string) {
		got = consoleList(t, a, devtools.ConsoleFilter{StackTraces: true})
		return len(got) >= 3, describeMessages(got)
	})
	for _, m := range got {
		if m.Type != "error" || !want[m.Text] || m.ArgCount != 0 {
			t.Errorf("unexpected message %d [%s] %q (%d args)", m.ID, m.Type, m.Text, m.ArgCount)
		}
		if len(m.Stack) == 0 {
			t.Errorf("message %q has no stack", m.Text)
		}
	}
	i := slices.IndexFunc(got, func(m collectors.Message) bool { return m.Text == "Uncaught Error: boom" })
	boom := got[i]
	// Listing with stack traces read the cause chain.
	if !boom.CausesRead || len(boom.Causes) != 2 || boom.Causes[0].Text != "TypeError: inner" || boom.Causes[1].Text != "root" {
		t.Errorf("causes of boom = %+v, want TypeError: inner, then root", boom.Causes)
	}
	if len(boom.Stack) == 0 || boom.Stack[0].Function != "thrower" {
		t.Errorf("boom stack = %+v, want thrower first", boom.Stack)
	}
	if len(boom.Causes) > 0 && (len(boom.Causes[0].Stack) == 0 || boom.Causes[0].Stack[0].Function != "thrower") {
		t.Errorf("cause stack = %+v, want thrower first", boom.Causes[0].Stack)
	}
	d, err := devtools.Of(a).ConsoleMessage(ctx(t), boom.ID)
	if err != nil || len(d.Causes) != 2 {
		t.Errorf("ConsoleMessage(boom) = %+v, %v; want the cause chain", d.Causes, err)
	}
}

// A logged Error shows its own stack and causes in the details.
func TestConsoleErrorArgument(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Err", `<script>console.log(new Error('logged', {cause: new Error('why')}));</script>`),
	})
	a := open(t, base+"/")
	eventually(t, "the message", func() (bool, string) {
		msgs := consoleList(t, a, devtools.ConsoleFilter{})
		return len(msgs) == 1, describeMessages(msgs)
	})
	d, err := devtools.Of(a).ConsoleMessage(ctx(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "Error: logged" || len(d.Args) != 1 {
		t.Fatalf("ConsoleMessage(1) = %q with %d args", d.Text, len(d.Args))
	}
	arg := d.Args[0]
	if !arg.Error || arg.Text != "Error: logged" || len(arg.Stack) == 0 || len(arg.Causes) != 1 || arg.Causes[0].Text != "Error: why" {
		t.Errorf("error argument = %+v", arg)
	}
}

func TestIssuesCollected(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		// No doctype: Chrome reports a quirks-mode issue.
		"/": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><title>Quirks</title><link rel=icon href="data:,"></head><body>no doctype</body></html>`)
		}),
	})
	a := open(t, base+"/")
	var msgs []collectors.Message
	eventually(t, "the quirks mode issue", func() (bool, string) {
		msgs = consoleList(t, a, devtools.ConsoleFilter{Types: []string{"issue"}})
		return len(msgs) == 1, describeMessages(msgs)
	})
	m := msgs[0]
	if m.Text != "Page layout may be unexpected due to Quirks Mode" || m.Count != 1 || m.IssueCode != "QuirksModeIssue" {
		t.Errorf("issue = %+v", m)
	}
	if len(m.IssueDetails) != 1 || !strings.HasPrefix(m.IssueDetails[0], `data={"isLimitedQuirksMode":false,"documentNodeId":`) || strings.Contains(m.IssueDetails[0], "frameId") {
		t.Errorf("issue details = %q", m.IssueDetails)
	}
	// Listing again does not repeat it.
	if again := consoleList(t, a, devtools.ConsoleFilter{}); len(again) != 1 {
		t.Errorf("second listing:\n%s", describeMessages(again))
	}
}

// fixtureMux serves the network fixtures shared by the network tests.
func fixtureMux(t *testing.T, routes map[string]http.Handler) string {
	t.Helper()
	all := map[string]http.Handler{
		"/json": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		}),
		"/r1": http.RedirectHandler("/r2", http.StatusFound),
		"/r2": http.RedirectHandler("/json", http.StatusMovedPermanently),
		"/bin": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0xff, 0xfe, 0x00, 0x80, 0x81})
		}),
		"/echo": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, "got %d bytes", len(body))
		}),
	}
	for p, h := range routes {
		all[p] = h
	}
	return serve(t, all)
}

func TestNetworkRequestsAndBodies(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("b", 40_000)
	base := fixtureMux(t, map[string]http.Handler{
		"/": browsertest.HTML("Net", `<script>
fetch('/json').then(r => r.text());
fetch('/r1').then(r => r.text());
fetch('http://127.0.0.1:9/nothing').catch(() => {});
fetch('/echo?small', {method: 'POST', body: JSON.stringify({hello: 'world'}), headers: {'content-type': 'application/json'}});
fetch('/echo?big', {method: 'POST', body: '`+big+`'});
fetch('/bin').then(r => r.arrayBuffer());
</script>`),
	})
	a := open(t, base+"/")
	var reqs []collectors.Request
	eventually(t, "the requests to finish", func() (bool, string) {
		reqs = networkList(t, a, devtools.NetworkFilter{})
		done := 0
		for _, r := range reqs {
			if r.Done() {
				done++
			}
		}
		return done >= 9, describeRequests(reqs) // document + 8 fetch hops
	})

	doc := reqs[0]
	if doc.ID != 1 || doc.URL != base+"/" || doc.Type != "Document" || doc.Status() != "200" {
		t.Errorf("first request = %+v, want the document", doc)
	}
	failed, ok := findRequest(reqs, "/nothing")
	if !ok || failed.Status() != "net::ERR_UNSAFE_PORT" || failed.Response != nil {
		t.Errorf("failed request = %+v, want status net::ERR_UNSAFE_PORT", failed)
	}

	// The redirect chain: one item per hop, the last knowing the others.
	var hops []collectors.Request
	for _, r := range reqs {
		if strings.HasSuffix(r.URL, "/r1") || strings.HasSuffix(r.URL, "/r2") || (strings.HasSuffix(r.URL, "/json") && len(r.RedirectChain) > 0) {
			hops = append(hops, r)
		}
	}
	if d := describeRequests(hops); len(hops) != 3 || hops[0].Status() != "302" || hops[1].Status() != "301" || hops[2].Status() != "200" {
		t.Fatalf("redirect hops:\n%s", d)
	}
	final := hops[2]
	if got := []int{final.RedirectChain[0].ID, final.RedirectChain[1].ID}; !slices.Equal(got, []int{hops[0].ID, hops[1].ID}) {
		t.Errorf("final hop chain ids = %v, want %v", got, []int{hops[0].ID, hops[1].ID})
	}
	if loc := headerValue(hops[0].Response.Headers, "location"); loc != "/r2" {
		t.Errorf("first hop location = %q, want /r2 (%q)", loc, hops[0].Response.Headers)
	}
	d, err := devtools.Of(a).NetworkRequest(ctx(t), final.ID)
	if err != nil || !d.BodyOK || string(d.Body) != `{"ok":true}` {
		t.Errorf("final hop body = %q, %v, %v", d.Body, d.BodyOK, err)
	}
	d, err = devtools.Of(a).NetworkRequest(ctx(t), hops[0].ID)
	if err != nil || d.BodyOK {
		t.Errorf("redirect hop body = %q, %v, %v; want none", d.Body, d.BodyOK, err)
	}

	// Bodies: a small POST body inline, a large one read from the page, a
	// binary response.
	small, _ := findRequest(reqs, "/echo?small")
	d, err = devtools.Of(a).NetworkRequest(ctx(t), small.ID)
	if err != nil || !d.PostDataOK || string(d.PostData) != `{"hello":"world"}` || string(d.Body) != "got 17 bytes" {
		t.Errorf("small POST = body %q (%v), response %q, %v", d.PostData, d.PostDataOK, d.Body, err)
	}
	if ct := headerValue(d.Headers, "content-type"); ct != "application/json" {
		t.Errorf("small POST content-type = %q", ct)
	}
	large, _ := findRequest(reqs, "/echo?big")
	if large.PostData != "" || !large.HasPostData {
		t.Errorf("large POST kept inline: %d bytes", len(large.PostData))
	}
	d, err = devtools.Of(a).NetworkRequest(ctx(t), large.ID)
	if err != nil || !d.PostDataOK || string(d.PostData) != big {
		t.Errorf("large POST = %d bytes (%v), %v; want %d bytes", len(d.PostData), d.PostDataOK, err, len(big))
	}
	bin, _ := findRequest(reqs, "/bin")
	d, err = devtools.Of(a).NetworkRequest(ctx(t), bin.ID)
	if err != nil || !d.BodyOK || !bytes.Equal(d.Body, []byte{0xff, 0xfe, 0x00, 0x80, 0x81}) {
		t.Errorf("binary body = %x (%v), %v", d.Body, d.BodyOK, err)
	}

	// Filters keep ids; unknown ids are errors.
	fetches := networkList(t, a, devtools.NetworkFilter{ResourceTypes: []string{"fetch"}})
	if len(fetches) != len(reqs)-1 || fetches[0].ID != 2 {
		t.Errorf("fetch requests:\n%s", describeRequests(fetches))
	}
	if _, err := devtools.Of(a).NetworkRequest(ctx(t), 999); !errors.Is(err, devtools.ErrNoRequest) {
		t.Errorf("NetworkRequest(999) = %v, want ErrNoRequest", err)
	}
}

func headerValue(hs []collectors.Header, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// The request that loads a new document is sent before the navigation
// commits; it and the requests sent after it, such as one the old document
// starts just before it is replaced, belong to the new navigation.
//
// The test holds /b until it has seen, in the page's own list, a poll of
// the old document after the request for /b, and only then lets the
// navigation commit. So the page navigates itself (the old document goes
// to /b when a poll answers "go"): a navigation through the actor would
// keep the actor, and so the list, busy until it is done. (The test used to
// navigate through the actor and let /b answer once a poll reached the
// server after /b had. That poll could have been sent before /b, and the
// events of the old document sent after it could come after the commit and
// be dropped with that document: the new navigation then held /b alone,
// about once in a hundred runs on a loaded machine.)
func TestNetworkRequestBeforeNavigationLandsInNewSegment(t *testing.T) {
	t.Parallel()
	var goB atomic.Bool
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	base := fixtureMux(t, map[string]http.Handler{
		"/a": browsertest.HTML("A", `<script>
fetch('/json');
let going = false;
setInterval(async () => {
  if (await (await fetch('/poll')).text() === 'go' && !going) { going = true; location.href = '/b' }
}, 20);
</script>`),
		"/poll": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if goB.Load() {
				io.WriteString(w, "go")
			}
		}),
		"/b": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			browsertest.HTML("B", `<p>B</p>`).ServeHTTP(w, r)
		}),
	})
	t.Cleanup(free) // before the site closes: it waits for /b
	a := open(t, base+"/a")
	eventually(t, "the first poll", func() (bool, string) {
		reqs := networkList(t, a, devtools.NetworkFilter{})
		_, ok := findRequest(reqs, "/poll")
		return ok, describeRequests(reqs)
	})
	goB.Store(true)
	var late collectors.Request // a poll listed after the request for /b
	eventually(t, "a poll of the old document listed after the request for /b", func() (bool, string) {
		reqs := networkList(t, a, devtools.NetworkFilter{})
		if i := slices.IndexFunc(reqs, func(r collectors.Request) bool { return r.IsNavigation && strings.HasSuffix(r.URL, "/b") }); i >= 0 {
			if p, ok := findRequest(reqs[i+1:], "/poll"); ok {
				late = p
				return true, ""
			}
		}
		return false, describeRequests(reqs)
	})
	free()
	eventually(t, "the navigation to /b", func() (bool, string) {
		cur := networkList(t, a, devtools.NetworkFilter{})
		return len(cur) > 0 && strings.HasSuffix(cur[0].URL, "/b"), describeRequests(cur)
	})
	cur := networkList(t, a, devtools.NetworkFilter{})
	if len(cur) < 2 || !strings.HasSuffix(cur[0].URL, "/b") || !cur[0].IsNavigation {
		t.Fatalf("current navigation does not start with the navigation request of /b:\n%s", describeRequests(cur))
	}
	if i := slices.IndexFunc(cur, func(r collectors.Request) bool { return r.ID == late.ID }); i < 0 || cur[i].LoaderID == cur[0].LoaderID {
		t.Errorf("the old document's poll %d, sent after the request for /b, is not in the new navigation as the old document's:\n%s", late.ID, describeRequests(cur))
	}
	if _, ok := findRequest(cur, "/json"); ok {
		t.Errorf("the old document's first fetch is listed in the new navigation:\n%s", describeRequests(cur))
	}
	all := networkList(t, a, devtools.NetworkFilter{IncludePreserved: true})
	if !strings.HasSuffix(all[0].URL, "/a") || all[len(all)-len(cur)].ID != cur[0].ID {
		t.Errorf("preserved requests:\n%s", describeRequests(all))
	}
}

// Three navigations are kept, the fourth drops the oldest; ids never move.
func TestCollectorsKeepThreeNavigations(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/n/": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := strings.TrimPrefix(r.URL.Path, "/n/")
			browsertest.HTML("Nav "+n, `<script>console.log('nav `+n+`')</script>`).ServeHTTP(w, r)
		}),
	})
	a := open(t, base+"/n/1")
	for i := 2; i <= 4; i++ {
		if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: fmt.Sprintf("%s/n/%d", base, i)}); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			got := consoleList(t, a, devtools.ConsoleFilter{IncludePreserved: true})
			if d := describeMessages(got); d != "1 [log] \"nav 1\" (1 args)\n2 [log] \"nav 2\" (1 args)\n3 [log] \"nav 3\" (1 args)\n" {
				t.Errorf("after 3 navigations, preserved:\n%s", d)
			}
		}
	}
	var got []collectors.Message
	eventually(t, "the fourth page's message", func() (bool, string) {
		got = consoleList(t, a, devtools.ConsoleFilter{IncludePreserved: true})
		return len(got) > 0 && got[len(got)-1].Text == "nav 4", describeMessages(got)
	})
	if d := describeMessages(got); d != "2 [log] \"nav 2\" (1 args)\n3 [log] \"nav 3\" (1 args)\n4 [log] \"nav 4\" (1 args)\n" {
		t.Errorf("after 4 navigations, preserved:\n%s", d)
	}
	if d := describeMessages(consoleList(t, a, devtools.ConsoleFilter{})); d != "4 [log] \"nav 4\" (1 args)\n" {
		t.Errorf("current navigation:\n%s", d)
	}
	if _, err := devtools.Of(a).ConsoleMessage(ctx(t), 1); !errors.Is(err, devtools.ErrNoMessage) {
		t.Errorf("ConsoleMessage(1) after its navigation was dropped = %v, want ErrNoMessage", err)
	}
	reqs := networkList(t, a, devtools.NetworkFilter{IncludePreserved: true})
	var urls []string
	for _, r := range reqs {
		if r.Type == "Document" {
			urls = append(urls, strings.TrimPrefix(r.URL, base))
		}
	}
	if !slices.Equal(urls, []string{"/n/2", "/n/3", "/n/4"}) {
		t.Errorf("preserved documents = %q, want /n/2 /n/3 /n/4", urls)
	}
}

// Requests a page makes after its navigation finished, with no action in
// progress, are collected to the end (a poll loop, a click handler).
func TestNetworkCollectsRequestsAfterLoad(t *testing.T) {
	t.Parallel()
	base := fixtureMux(t, map[string]http.Handler{
		"/": browsertest.HTML("Later", `<script>
addEventListener('load', () => setTimeout(() => { fetch('/json'); fetch('http://127.0.0.1:9/x').catch(() => {}); }, 300));
</script>`),
	})
	a := open(t, base+"/")
	var reqs []collectors.Request
	eventually(t, "the late requests to end", func() (bool, string) {
		reqs = networkList(t, a, devtools.NetworkFilter{})
		fetched, ok1 := findRequest(reqs, "/json")
		failed, ok2 := findRequest(reqs, "/x")
		return ok1 && ok2 && fetched.Finished && failed.Failed, describeRequests(reqs)
	})
}
