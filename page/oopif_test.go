package page_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot"
	"github.com/tabhive/tabhive/page/devtools"
	"github.com/tabhive/tabhive/page/emulation"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/script"
)

// otherSite serves routes on a loopback address of its own (127.0.1.N):
// another site than the 127.0.0.1 of serve, so Chromium renders its pages
// in an out-of-process iframe when another site embeds them.
func otherSite(t *testing.T, routes map[string]http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.Handle(p, h)
	}
	return browsertest.ServeOwnSite(t, mux).URL
}

// innerPage is the body of a cross-site frame's page: text, a button that
// renames itself, a field, a console message and a request.
const innerPage = `<p>Inner text</p>
<button onclick="this.textContent='Inner clicked'">Inner button</button>
<input aria-label="Inner field">
<script>console.log('hello from the frame'); fetch('/inner-data');</script>`

func TestOOPIFSnapshotClickFill(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner":      browsertest.HTML("Inner", innerPage),
		"/inner-data": browsertest.HTML("data", "data"),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<p>Outer text</p><div style="height:200px"></div>
<iframe title="Cross" src="`+inner+`/inner" style="margin-left:120px" width=400 height=250></iframe><p>After</p>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	for _, want := range []string{`Iframe "Cross"`, `button "Inner button"`, `"Inner text"`} {
		if !strings.Contains(s, want) {
			t.Fatalf("snapshot lacks %s:\n%s", want, s)
		}
	}
	if strings.Index(s, "Inner text") > strings.Index(s, "After") {
		t.Errorf("the frame's nodes are not at the iframe's place:\n%s", s)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Inner button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click = %v", err)
	}
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "Inner field"), "typed in", page.InputOptions{}); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	got := snap(t, a)
	if !strings.Contains(got, `button "Inner clicked"`) {
		t.Errorf("click did not reach the button inside the frame:\n%s", got)
	}
	if !strings.Contains(got, `value="typed in"`) {
		t.Errorf("fill did not reach the field inside the frame:\n%s", got)
	}
}

// nestedFrames serves a page on 127.0.0.1 that embeds a frame of another
// site, which embeds a frame of a third site, each with innerPage's content
// renamed by level; it returns the top page's URL.
func nestedFrames(t *testing.T) string {
	t.Helper()
	level := func(name string) string {
		return strings.NewReplacer("Inner", name, "hello from the frame", "hello from "+name, "/inner-data", "/"+name+"-data").Replace(innerPage)
	}
	deep := otherSite(t, map[string]http.Handler{
		"/deep":      browsertest.HTML("Deep", level("Deep")+`<p id=late></p><script>setTimeout(() => late.textContent = 'Deep late text', 300)</script>`),
		"/Deep-data": browsertest.HTML("data", "deep data"),
	})
	mid := otherSite(t, map[string]http.Handler{
		"/mid":      browsertest.HTML("Mid", level("Mid")+`<iframe title="Deep frame" src="`+deep+`/deep" width=380 height=220></iframe>`),
		"/Mid-data": browsertest.HTML("data", "mid data"),
	})
	return serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<p>Outer text</p><div style="height:100px"></div>
<iframe title="Mid frame" src="`+mid+`/mid" style="margin-left:50px" width=450 height=500></iframe><p>After</p>`),
	}) + "/"
}

func TestOOPIFNested(t *testing.T) {
	t.Parallel()
	a := open(t, nestedFrames(t))
	s := snap(t, a)
	for _, want := range []string{`Iframe "Mid frame"`, `button "Mid button"`, `Iframe "Deep frame"`, `button "Deep button"`, `"Deep text"`} {
		if !strings.Contains(s, want) {
			t.Fatalf("snapshot lacks %s:\n%s", want, s)
		}
	}
	if !(strings.Index(s, "Mid text") < strings.Index(s, "Deep text") && strings.Index(s, "Deep text") < strings.Index(s, "After")) {
		t.Errorf("the frames' nodes are not at their iframes' places:\n%s", s)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Deep button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(deep) = %v", err)
	}
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "Deep field"), "deep typed", page.InputOptions{}); err != nil {
		t.Fatalf("Fill(deep) = %v", err)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Mid button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(mid) = %v", err)
	}
	// One form across both frames.
	if _, err := input.FillForm(ctx(t), a, []input.FormField{
		{UID: uidOf(t, s, "textbox", "Mid field"), Value: "mid form"},
		{UID: uidOf(t, s, "textbox", "Deep field"), Value: "deep form"},
	}, page.InputOptions{}); err != nil {
		t.Fatalf("FillForm(mid, deep) = %v", err)
	}
	got := snap(t, a)
	for _, want := range []string{`button "Deep clicked"`, `value="deep form"`, `button "Mid clicked"`, `value="mid form"`} {
		if !strings.Contains(got, want) {
			t.Errorf("snapshot after the actions lacks %s:\n%s", want, got)
		}
	}
}

// TestOOPIFEvaluateElement: evaluate_script with an element of an
// out-of-process iframe, nested in another, runs in that frame.
func TestOOPIFEvaluateElement(t *testing.T) {
	t.Parallel()
	a := open(t, nestedFrames(t))
	uid := uidOf(t, snap(t, a), "button", "Deep button")
	res, err := script.Evaluate(ctx(t), a, script.Script{Source: `(el) => el.tagName + ' in ' + document.title + ' at ' + location.host`, Args: []string{uid}})
	if err != nil {
		t.Fatalf("Evaluate = %v", err)
	}
	if !strings.HasPrefix(res.JSON, `"BUTTON in Deep at 127.0.1.`) {
		t.Errorf("Evaluate = %s, want it run in the deep frame", res.JSON)
	}
}

func TestOOPIFWaitForText(t *testing.T) {
	t.Parallel()
	a := open(t, nestedFrames(t))
	res, err := axsnapshot.WaitForText(ctx(t), a, []string{"never there", "Deep late text"}, 10*time.Second)
	if err != nil {
		t.Fatalf("WaitForText = %v", err)
	}
	if res.Found != "Deep late text" || !strings.Contains(res.Snapshot, `"Deep late text"`) {
		t.Errorf("WaitForText found %q, snapshot:\n%s", res.Found, res.Snapshot)
	}
}

func TestOOPIFConsoleAndNetwork(t *testing.T) {
	t.Parallel()
	a := open(t, nestedFrames(t))
	for _, level := range []string{"Mid", "Deep"} {
		msg := "hello from " + level
		if !testwait.Poll(testwait.Timeout, func() bool {
			l, err := devtools.Of(a).ConsoleMessages(ctx(t), devtools.ConsoleFilter{})
			if err != nil {
				t.Fatalf("ConsoleMessages = %v", err)
			}
			for _, m := range l.Messages {
				if m.Text == msg {
					return true
				}
			}
			return false
		}) {
			t.Errorf("console listing lacks %q", msg)
		}
		path := "/" + level + "-data"
		var id int
		if !testwait.Poll(testwait.Timeout, func() bool {
			l, err := devtools.Of(a).NetworkRequests(ctx(t), devtools.NetworkFilter{})
			if err != nil {
				t.Fatalf("NetworkRequests = %v", err)
			}
			for _, r := range l.Requests {
				if strings.HasSuffix(r.URL, path) && r.Finished {
					id = r.ID
					return true
				}
			}
			return false
		}) {
			t.Errorf("network listing lacks a finished %s", path)
			continue
		}
		d, err := devtools.Of(a).NetworkRequest(ctx(t), id)
		if err != nil {
			t.Fatalf("NetworkRequest(%d) = %v", id, err)
		}
		if want := strings.ToLower(level) + " data"; !strings.Contains(string(d.Body), want) {
			t.Errorf("body of %s = %q, want it to contain %q", path, d.Body, want)
		}
	}
	l, err := devtools.Of(a).NetworkRequests(ctx(t), devtools.NetworkFilter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range l.Requests {
		seen[r.URL]++
		if seen[r.URL] > 1 {
			t.Errorf("request %s listed twice", r.URL)
		}
	}
}

func TestOOPIFDialog(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<button onclick="out.textContent = confirm('Sure?') ? 'Confirmed' : 'Cancelled'">Ask</button><p id=out></p>`),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<iframe title="Cross" src="`+inner+`/inner"></iframe>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	res, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Ask"), false, page.InputOptions{})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if !res.Dialog || res.State.Dialog == nil || res.State.Dialog.Message != "Sure?" {
		t.Fatalf("Click reported dialog %v, state %+v; want the frame's confirm", res.Dialog, res.State.Dialog)
	}
	st, err := a.HandleDialog(ctx(t), true, "")
	if err != nil {
		t.Fatalf("HandleDialog = %v", err)
	}
	if st.Dialog != nil {
		t.Errorf("dialog still open after HandleDialog: %+v", st.Dialog)
	}
	if !testwait.Poll(testwait.Timeout, func() bool { return strings.Contains(snap(t, a), `"Confirmed"`) }) {
		t.Errorf("the frame's confirm was not accepted:\n%s", snap(t, a))
	}
}

// TestOOPIFNavigatesCrossSite: a frame that navigates to a third site while
// the page is used shows its new document; uids of the old one are stale;
// and back on the page's own site it is walked in the page's process.
func TestOOPIFNavigatesCrossSite(t *testing.T) {
	t.Parallel()
	var base string
	third := otherSite(t, map[string]http.Handler{
		"/next": browsertest.HTML("Next", `<p>Third site</p><button onclick="this.textContent='Third clicked'">Third button</button>`),
	})
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<a href="`+third+`/next">Go on</a><button>Old button</button>`),
	})
	base = serve(t, map[string]http.Handler{
		"/":     browsertest.HTML("Outer", `<p>Outer text</p><iframe title="Cross" src="`+inner+`/inner"></iframe>`),
		"/home": browsertest.HTML("Home", `<p>Home again</p><button onclick="this.textContent='Home clicked'">Home button</button>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	old := uidOf(t, s, "button", "Old button")
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "link", "Go on"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(link) = %v", err)
	}
	var got string
	if !testwait.Poll(testwait.Timeout, func() bool { got = snap(t, a); return strings.Contains(got, `button "Third button"`) }) {
		t.Fatalf("the frame's new document is not in the snapshot:\n%s", got)
	}
	if _, err := input.Click(ctx(t), a, old, false, page.InputOptions{}); err == nil {
		t.Errorf("Click(%s) of the frame's old document succeeded, want a stale uid error", old)
	} else if ue := (*page.UIDError)(nil); !errors.As(err, &ue) {
		t.Errorf("Click(%s) of the frame's old document = %v, want a *page.UIDError", old, err)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, got, "button", "Third button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(third) = %v", err)
	}
	if got = snap(t, a); !strings.Contains(got, `button "Third clicked"`) {
		t.Errorf("click in the navigated frame did not act:\n%s", got)
	}
	// Back to the page's own site: the frame joins the page's process.
	if _, err := script.Evaluate(ctx(t), a, script.Script{Source: `() => { document.querySelector('iframe').src = '` + base + `/home' }`}); err != nil {
		t.Fatalf("Evaluate = %v", err)
	}
	if !testwait.Poll(testwait.Timeout, func() bool { got = snap(t, a); return strings.Contains(got, `button "Home button"`) }) {
		t.Fatalf("the frame's same-site document is not in the snapshot:\n%s", got)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, got, "button", "Home button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click(home) = %v", err)
	}
	if got = snap(t, a); !strings.Contains(got, `button "Home clicked"`) {
		t.Errorf("click in the frame back home did not act:\n%s", got)
	}
}

// TestOOPIFClickSettles: a click inside an out-of-process iframe waits for
// what it caused there (a slow fetch or a timer, then a DOM change), as a click in
// the page does: the snapshot it returns shows the effect.
func TestOOPIFClickSettles(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<button onclick="fetch('/slow').then(r => r.text()).then(t => out.textContent = t)">Load</button><p id=out></p>
<button onclick="setTimeout(() => out.textContent = 'Timer fired', 150)">Later</button>`),
		"/slow": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond) // the server's latency the click must wait out
			w.Write([]byte("Loaded slowly"))
		}),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<iframe title="Cross" src="`+inner+`/inner"></iframe>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	res, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Load"), false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if !strings.Contains(res.Snapshot, `"Loaded slowly"`) {
		t.Errorf("the click's snapshot lacks its effect in the frame:\n%s", res.Snapshot)
	}
	res, err = input.Click(ctx(t), a, uidOf(t, s, "button", "Later"), false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("Click = %v", err)
	}
	if !strings.Contains(res.Snapshot, `"Timer fired"`) {
		t.Errorf("the click's snapshot lacks its timer's effect in the frame:\n%s", res.Snapshot)
	}
}

// TestOOPIFHungFrame: an out-of-process iframe whose script never yields
// is left out of the snapshot; the page's own content is still there, in
// time.
func TestOOPIFHungFrame(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<p>Hung frame</p><script>setTimeout(() => { for (;;) {} }, 200)</script>`),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<p>Outer text</p><iframe title="Cross" src="`+inner+`/inner"></iframe>`),
	})
	a := open(t, base+"/")
	if !testwait.Poll(testwait.Timeout, func() bool {
		// The loop starts 200 ms after the frame loaded: until then a
		// snapshot still shows the frame. The hung frame is given three
		// quarters of the budget; the quarter left must see the page's own
		// work home on a loaded machine too.
		c, cancel := context.WithTimeout(ctx(t), 8*time.Second)
		defer cancel()
		s, err := axsnapshot.Take(c, a, false)
		if err != nil {
			t.Fatalf("Snapshot with a hung frame = %v", err)
		}
		if !strings.Contains(s.Text, `"Outer text"`) {
			t.Fatalf("snapshot lacks the page's own text:\n%s", s.Text)
		}
		return !strings.Contains(s.Text, "Hung frame")
	}) {
		t.Errorf("the hung frame was never left out")
	}
}

// TestOOPIFEmulation: what the page emulates, its out-of-process iframes
// emulate too: those there when emulate is called and those that attach
// after.
func TestOOPIFEmulation(t *testing.T) {
	t.Parallel()
	headers := make(chan string, 16)
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<button>Probe</button><script>fetch('/probe')</script>`),
		"/probe": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case headers <- r.Header.Get("X-Test") + " " + r.UserAgent():
			default:
			}
		}),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<iframe title="Cross" src="`+inner+`/inner"></iframe>`),
	})
	a := open(t, base+"/")
	probe := func(when string) {
		t.Helper()
		s := snap(t, a)
		res, err := script.Evaluate(ctx(t), a, script.Script{
			Source: `(el) => navigator.userAgent + ' ' + matchMedia('(prefers-color-scheme: dark)').matches`,
			Args:   []string{uidOf(t, s, "button", "Probe")},
		})
		if err != nil {
			t.Fatalf("%s: Evaluate = %v", when, err)
		}
		if res.JSON != `"Test agent true"` {
			t.Errorf("%s: the frame sees %s, want the emulated agent and dark scheme", when, res.JSON)
		}
	}
	if _, err := emulation.Of(a).Emulate(ctx(t), emulation.Emulation{UserAgent: "Test agent", ColorScheme: "dark", Headers: map[string]string{"X-Test": "yes"}}); err != nil {
		t.Fatalf("Emulate = %v", err)
	}
	probe("frame there before emulate")
	for len(headers) > 0 {
		<-headers // the frame's first load, before emulate
	}
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateReload}); err != nil {
		t.Fatalf("reload = %v", err)
	}
	probe("frame attached after emulate")
	select {
	case got := <-headers:
		if got != "yes Test agent" {
			t.Errorf("the frame's request carried %q, want the extra header and the emulated agent", got)
		}
	case <-ctx(t).Done():
		t.Fatal("the frame made no request")
	}
}

// TestOOPIFConsoleDetails: the object arguments and the error causes of a
// message an out-of-process iframe logged are read from that frame.
func TestOOPIFConsoleDetails(t *testing.T) {
	t.Parallel()
	inner := otherSite(t, map[string]http.Handler{
		"/inner": browsertest.HTML("Inner", `<script>
console.log('frame object', {answer: 42});
console.error(new Error('outer', {cause: new Error('inner cause')}));
</script>`),
	})
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Outer", `<iframe title="Cross" src="`+inner+`/inner"></iframe>`),
	})
	a := open(t, base+"/")
	var logID, errID int
	if !testwait.Poll(testwait.Timeout, func() bool {
		l, err := devtools.Of(a).ConsoleMessages(ctx(t), devtools.ConsoleFilter{})
		if err != nil {
			t.Fatalf("ConsoleMessages = %v", err)
		}
		for _, m := range l.Messages {
			switch {
			case strings.HasPrefix(m.Text, "frame object"):
				logID = m.ID
			case m.Type == "error":
				errID = m.ID
			}
		}
		return logID != 0 && errID != 0
	}) {
		t.Fatal("the frame's messages were never listed")
	}
	d, err := devtools.Of(a).ConsoleMessage(ctx(t), logID)
	if err != nil {
		t.Fatalf("ConsoleMessage(%d) = %v", logID, err)
	}
	if len(d.Args) != 2 || d.Args[1].Text != `{"answer":42}` {
		t.Errorf("arguments of the frame's log = %+v, want its object read from the frame", d.Args)
	}
	d, err = devtools.Of(a).ConsoleMessage(ctx(t), errID)
	if err != nil {
		t.Fatalf("ConsoleMessage(%d) = %v", errID, err)
	}
	if len(d.Args) != 1 || len(d.Args[0].Causes) != 1 || !strings.Contains(d.Args[0].Causes[0].Text, "inner cause") {
		t.Errorf("arguments of the frame's error = %+v, want its cause read from the frame", d.Args)
	}
}
