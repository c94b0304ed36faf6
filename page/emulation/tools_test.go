package emulation_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// emulationFixtures serves /probe, a page that shows what it sees: the
// request's user agent and X-Test header (rendered by the server), and its
// color scheme, size and pixel ratio (rendered by the page, again on
// resize).
func emulationFixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/probe", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		browsertest.HTML("Probe", fmt.Sprintf(`<p>ua=%s</p><p>x-test=%s</p><p id=seen></p><button onclick="">Nothing</button><button onclick="setTimeout(() => { seen.textContent = 'late' }, 1500)">Late</button>
<script>
function show() { seen.textContent = 'dark=' + matchMedia('(prefers-color-scheme: dark)').matches + ' size=' + innerWidth + 'x' + innerHeight + ' dpr=' + devicePixelRatio }
show(); addEventListener('resize', show); matchMedia('(prefers-color-scheme: dark)').addEventListener('change', show)
</script>`, r.UserAgent(), r.Header.Get("X-Test"))).ServeHTTP(w, r)
	}))
	return browsertest.ServeOwnSite(t, mux).URL // CPU throttling slows its whole renderer process
}

func TestEmulateReplies(t *testing.T) {
	t.Parallel()
	base := emulationFixtures(t)
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/probe")
	defaultUA := uaOf(t, transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}))

	text := transporttest.Must(t, cs, "emulate", map[string]any{
		"pageId": id, "networkConditions": "Slow 4G", "cpuThrottlingRate": 2.5, "geolocation": "1.50 , 2",
		"userAgent": "Foo/1.0", "colorScheme": "dark", "viewport": "800x600x1", "extraHttpHeaders": `{"X-Test": "hello"}`,
	})
	lines := strings.Join([]string{
		"Emulating network conditions: Slow 4G",
		"Default navigation timeout set to 62500 ms",
		"Emulating geolocation: latitude=1.5, longitude=2",
		`Emulating viewport: {"deviceScaleFactor":1,"isMobile":false,"hasTouch":false,"isLandscape":false,"width":800,"height":600}`,
		"Emulating user agent: Foo/1.0",
		"Emulating CPU throttling: 2.5x slowdown",
		"Emulating color scheme: dark",
	}, "\n")
	if want := "Emulation configured successfully\n" + lines; text != want {
		t.Errorf("emulate reply:\n%s\nwant:\n%s", text, want)
	}
	// Every later page-scoped reply carries the lines; global ones do not.
	// The page redraws on its resize event, which may come a frame later.
	text = transporttest.Must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"dark=true size=800x600 dpr=1"}, "timeout": 5000})
	if want := `Element matching one of ["dark=true size=800x600 dpr=1"] found.` + "\n" + lines + "\n## Latest page snapshot\n"; !strings.HasPrefix(text, want) {
		t.Errorf("wait_for reply:\n%s\nwant prefix:\n%s", text, want)
	}
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	if !strings.HasPrefix(snap, lines+"\n## Latest page snapshot\n") {
		t.Errorf("snapshot reply does not start with the emulation lines:\n%s", snap)
	}
	text = transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "reload"})
	if want := "Successfully reloaded the page.\n" + lines + "\n## Pages\n"; !strings.HasPrefix(text, want) {
		t.Errorf("reload reply:\n%s\nwant prefix:\n%s", text, want)
	}
	snap = transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	if !strings.Contains(snap, "ua=Foo/1.0") || !strings.Contains(snap, "x-test=hello") {
		t.Errorf("the server did not get the user agent and header:\n%s", snap)
	}
	if text := transporttest.Must(t, cs, "list_pages", nil); strings.Contains(text, "Emulating") {
		t.Errorf("list_pages carries emulation lines:\n%s", text)
	}

	// An omitted setting is reset; the reply names only what is left. No
	// devicePixelRatio given: none printed, as upstream.
	text = transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "viewport": "400x300,landscape"})
	if want := "Emulation configured successfully\n" + `Emulating viewport: {"isMobile":false,"hasTouch":false,"isLandscape":true,"width":400,"height":300}`; text != want {
		t.Errorf("emulate(viewport) reply:\n%s\nwant:\n%s", text, want)
	}
	text = transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id})
	if text != "Emulation configured successfully" {
		t.Errorf("emulate() reply:\n%s", text)
	}
	transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "reload"})
	snap = transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	if !strings.HasPrefix(snap, "## Latest page snapshot\n") {
		t.Errorf("emulation lines left after a reset:\n%s", snap)
	}
	if !strings.Contains(snap, "dark=false") || uaOf(t, snap) != defaultUA {
		t.Errorf("scheme or user agent not reset:\n%s", snap)
	}
	// Headers stay until given again.
	if !strings.Contains(snap, "x-test=hello") {
		t.Errorf("extra header dropped by an emulate call that did not name it:\n%s", snap)
	}
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "extraHttpHeaders": ""})
	transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "reload"})
	if snap = transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(snap, `"x-test="`) {
		t.Errorf("extra header not cleared by an empty extraHttpHeaders:\n%s", snap)
	}
}

func uaOf(t *testing.T, snapshot string) string {
	t.Helper()
	i := strings.Index(snapshot, `"ua=`)
	if i < 0 {
		t.Fatalf("no user agent in:\n%s", snapshot)
	}
	rest := snapshot[i+len(`"ua=`):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestEmulatedCPUScalesTheWait: the waiter's horizon is 1 s × CPU. At full
// speed a click that sets a timer of 1.5 s returns at once and says the
// timer is still pending; at a rate of 4 the timer is within the horizon,
// and the click returns once its effect is on the page.
func TestEmulatedCPUScalesTheWait(t *testing.T) {
	t.Parallel()
	base := emulationFixtures(t)
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/probe")
	late := transporttest.UIDOf(t, transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Late")
	text := transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": late})
	if want := "Successfully clicked on the element\nStill pending, not waited for: a timer of 1.5 s (set by the action, and too far ahead or running on without changing the page)."; text != want {
		t.Errorf("click reply at full speed:\n%s\nwant:\n%s", text, want)
	}
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "cpuThrottlingRate": 4})
	late = transporttest.UIDOf(t, transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Late")
	text = transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": late, "includeSnapshot": true})
	if want := "Successfully clicked on the element\nEmulating CPU throttling: 4x slowdown\n"; !strings.HasPrefix(text, want) || !strings.Contains(text, `StaticText "late"`) && !strings.Contains(text, `"late"`) {
		t.Errorf("click reply at a 4x CPU slowdown:\n%s\nwant it to start %q and show the timer's effect", text, want)
	}
}

// TestEmulateBadInput: each invalid argument gets one sentence and changes
// nothing.
func TestEmulateBadInput(t *testing.T) {
	t.Parallel()
	base := emulationFixtures(t)
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/probe")
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "cpuThrottlingRate": 2, "extraHttpHeaders": `{"X-Test": "kept"}`})
	const format = "'<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'"
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"viewport": "400"}, `Invalid viewport height "". Expected format ` + format + ` with a positive integer height.`},
		{map[string]any{"viewport": "ax3"}, `Invalid viewport width "a". Expected format ` + format + ` with a positive integer width.`},
		{map[string]any{"viewport": "400.5x300"}, `Invalid viewport width "400.5". Expected format ` + format + ` with a positive integer width.`},
		{map[string]any{"viewport": "400x300x0"}, `Invalid devicePixelRatio "0". Expected a positive number.`},
		{map[string]any{"geolocation": "100,2"}, `Invalid latitude "100". Latitude must be a number between -90 and 90.`},
		{map[string]any{"geolocation": "1"}, `Invalid longitude "". Longitude must be a number between -180 and 180.`},
		{map[string]any{"geolocation": "north,south"}, `Invalid latitude "north". Latitude must be a number between -90 and 90.`},
		{map[string]any{"extraHttpHeaders": "[1]"}, `Invalid JSON for headers: Headers must be a JSON object. Pass an object such as {"X-Custom": "value"}.`},
		{map[string]any{"extraHttpHeaders": "{bad"}, `Invalid JSON for headers: invalid character 'b' looking for beginning of object key string. Pass an object such as {"X-Custom": "value"}.`},
		{map[string]any{"extraHttpHeaders": `{"X-A": 1}`}, `Invalid value for header "X-A" in extraHttpHeaders: expected a string, got 1.`},
		{map[string]any{"extraHttpHeaders": `{"bad name": "x"}`}, `Invalid header name "bad name" in extraHttpHeaders.`},
		{map[string]any{"cpuThrottlingRate": 0.5}, `Invalid argument "cpuThrottlingRate" for tool "emulate": expected a number from 1 to 20, got 0.5.`},
		{map[string]any{"cpuThrottlingRate": 21}, `Invalid argument "cpuThrottlingRate" for tool "emulate": expected a number from 1 to 20, got 21.`},
		{map[string]any{"networkConditions": "5G"}, `Invalid argument "networkConditions" for tool "emulate": "5G" is not one of "Offline", "Slow 3G", "Fast 3G", "Slow 4G", "Fast 4G".`},
		{map[string]any{"colorScheme": "blue"}, `Invalid argument "colorScheme" for tool "emulate": "blue" is not one of "dark", "light", "auto".`},
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		text, isErr := transporttest.Call(t, cs, "emulate", tt.args)
		if !isErr || text != tt.want {
			t.Errorf("emulate(%v) = %v:\n%s\nwant the error:\n%s", tt.args, isErr, text, tt.want)
		}
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"width": 0, "height": 300}, `Invalid argument "width" for tool "resize_page": expected an integer from 1 to 10000000, got 0.`},
		{map[string]any{"width": 500, "height": -1}, `Invalid argument "height" for tool "resize_page": expected an integer from 1 to 10000000, got -1.`},
		{map[string]any{"width": 500.5, "height": 300}, `Invalid argument "width" for tool "resize_page": expected an integer from 1 to 10000000, got 500.5.`},
		{map[string]any{"width": 500}, `Missing required argument "height" for tool "resize_page": Page height`},
	} {
		tt.args["pageId"] = id
		text, isErr := transporttest.Call(t, cs, "resize_page", tt.args)
		if !isErr || text != tt.want {
			t.Errorf("resize_page(%v) = %v:\n%s\nwant the error:\n%s", tt.args, isErr, text, tt.want)
		}
	}
	transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": id, "type": "reload"})
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	if want := "Emulating CPU throttling: 2x slowdown\n## Latest page snapshot\n"; !strings.HasPrefix(snap, want) {
		t.Errorf("emulation changed by rejected calls:\n%s", snap)
	}
	if !strings.Contains(snap, "x-test=kept") || !strings.Contains(snap, "dark=false") {
		t.Errorf("page state changed by rejected calls:\n%s", snap)
	}
}

func TestResizePage(t *testing.T) {
	t.Parallel()
	base := emulationFixtures(t)
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/probe")
	text := transporttest.Must(t, cs, "resize_page", map[string]any{"pageId": id, "width": 500, "height": 400})
	if want := fmt.Sprintf("%d: Probe (%s/probe) [selected]", id, base); !strings.HasPrefix(text, "## Pages\n") || !strings.Contains(text, want) {
		t.Errorf("resize_page reply:\n%s\nwant the page list with %q", text, want)
	}
	waitFor(t, cs, id, "size=500x400")
	// The reply of a page-scoped tool carries the emulation lines.
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "userAgent": "Foo/1.0"})
	text = transporttest.Must(t, cs, "resize_page", map[string]any{"pageId": id, "width": 640, "height": 480})
	if !strings.HasPrefix(text, "Emulating user agent: Foo/1.0\n## Pages\n") {
		t.Errorf("resize_page reply under emulation:\n%s", text)
	}
	waitFor(t, cs, id, "size=640x480")
}

// waitFor waits for text on page id; the page redraws on its resize event,
// which may come a frame after the call that caused it.
func waitFor(t *testing.T, cs *mcp.ClientSession, id int, text string) {
	t.Helper()
	if reply, isErr := transporttest.Call(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{text}, "timeout": 5000}); isErr {
		t.Errorf("page never showed %q:\n%s", text, reply)
	}
}

// TestEmulationSchemas: the arguments are upstream's.
func TestEmulationSchemas(t *testing.T) {
	t.Parallel()
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	res, err := cs.ListTools(transporttest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"emulate":     "colorScheme cpuThrottlingRate extraHttpHeaders forcedColors geolocation networkConditions pageId prefersContrast prefersReducedMotion userAgent viewport",
		"resize_page": "height pageId width",
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		schema := tool.InputSchema.(map[string]any)
		var names []string
		for name := range schema["properties"].(map[string]any) {
			names = append(names, name)
		}
		slices.Sort(names)
		if got := strings.Join(names, " "); got != w {
			t.Errorf("%s arguments = %s, want %s", tool.Name, got, w)
		}
		if tool.Name == "resize_page" && fmt.Sprint(schema["required"]) != "[width height]" {
			t.Errorf("resize_page required = %v", schema["required"])
		}
		if tool.Name == "emulate" {
			props := schema["properties"].(map[string]any)
			if got := fmt.Sprint(props["networkConditions"].(map[string]any)["enum"]); got != "[Offline Slow 3G Fast 3G Slow 4G Fast 4G]" {
				t.Errorf("networkConditions enum = %s", got)
			}
			if got := props["geolocation"].(map[string]any)["description"]; got != "Geolocation (`<latitude>,<longitude>`) to emulate. Latitude between -90 and 90. Longitude between -180 and 180. Omit to clear the geolocation override." {
				t.Errorf("geolocation description = %q", got)
			}
			if got := props["forcedColors"].(map[string]any)["description"]; got != "Emulate the `forced-colors` CSS media feature. Omit or set to \"auto\" to reset to the default." {
				t.Errorf("forcedColors description = %q", got)
			}
		}
	}
	for name := range want {
		t.Errorf("no %s tool", name)
	}
}

// TestEmulatedNetworkStretchesTheBudget: under Slow 3G a navigation may
// take 100 s by default (10 s × 10); a page that answers after 21 s, past
// the unemulated 20 s budget, still loads.
func TestEmulatedNetworkStretchesTheBudget(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/", browsertest.HTML("Start", `<p>start</p>`))
	mux.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(21 * time.Second) // the latency under test: past the unemulated budget
		browsertest.HTML("Slow", `<p>slow page</p>`).ServeHTTP(w, r)
	}))
	base := browsertest.Serve(t, mux).URL
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/")
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": id, "networkConditions": "Slow 3G"})
	start := time.Now()
	// timeout 0: the default, which the emulation stretches (the test
	// helpers give a navigation that names none a longer one).
	text, isErr := transporttest.Call(t, cs, "navigate_page", map[string]any{"pageId": id, "url": base + "/slow", "timeout": 0})
	if isErr || !strings.HasPrefix(text, "Successfully navigated to "+base+"/slow.") {
		t.Errorf("navigate_page under Slow 3G after %v:\n%s", time.Since(start), text)
	}
}
