package devtools

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestTraceHoldsNoOtherSessionThroughBinary: with --isolate-sessions over
// HTTP, session A records a trace while session B's tab, on the same site,
// loads a page with a telling URL, title and script, which polls with
// fetch and timers, and navigates again: A's trace reply, its saved file
// and every insight analysed from it hold nothing of B's.
func TestTraceHoldsNoOtherSessionThroughBinary(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/mine", browsertest.HTML("Mine", `<h1>A's page</h1><script>setTimeout(() => document.body.append("late"), 50)</script>`))
	mux.Handle("/bsecret-page", browsertest.HTML("Bsecret-title", `<h1>B</h1><script>
		// bsecret-script
		setInterval(() => fetch('/bsecret-poll?bsecret-token').then(r => r.text()).then(t => document.title = 'Bsecret-title ' + t.length), 40);
		requestAnimationFrame(function f() { document.body.style.color = 'rgb(' + (Date.now() % 255) + ',0,0)'; requestAnimationFrame(f) });
	</script>`))
	mux.Handle("/bsecret-poll", browsertest.HTML("bsecret-poll", "x"))
	log := &requestLog{h: mux}
	site := browsertest.Serve(t, log).URL
	in := tabhivetest.StartHTTP(t, "--isolate-sessions")
	a, b := in.Client(nil), in.Client(nil)
	mustTrace(t, a, "navigate_page", map[string]any{"url": site + "/mine", "timeout": tabhivetest.PageLoadTimeout})
	mustTrace(t, b, "navigate_page", map[string]any{"url": "about:blank", "timeout": tabhivetest.PageLoadTimeout})

	mustTrace(t, a, "performance_start_trace", map[string]any{"reload": true, "autoStop": false})
	mustTrace(t, b, "navigate_page", map[string]any{"url": site + "/bsecret-page", "timeout": tabhivetest.PageLoadTimeout})
	select {
	case <-log.wait("/bsecret-poll?bsecret-token", 5):
	case <-transporttest.Context(t).Done():
		t.Fatal("B's page did not poll")
	}
	mustTrace(t, b, "navigate_page", map[string]any{"url": site + "/bsecret-page?again", "timeout": tabhivetest.PageLoadTimeout})
	select {
	case <-log.wait("/bsecret-poll?bsecret-token", 10):
	case <-transporttest.Context(t).Done():
		t.Fatal("B's page did not poll after its second load")
	}
	// URLs without "://": a data: document, and a fragment and history
	// entry of B's own.
	mustTrace(t, b, "navigate_page", map[string]any{"url": "data:text/html,<title>bsecret-data</title><p>bsecret-data-body", "timeout": tabhivetest.PageLoadTimeout})
	mustTrace(t, b, "navigate_page", map[string]any{"url": "about:blank#bsecret-fragment", "timeout": tabhivetest.PageLoadTimeout})
	mustTrace(t, b, "evaluate_script", map[string]any{"function": `() => { history.pushState({}, "", "#bsecret-pushed"); location.hash = "bsecret-hash"; return 1 }`})
	got := mustTrace(t, a, "performance_stop_trace", map[string]any{"filePath": "a-trace.json"})

	const secret = "bsecret"
	if i := strings.Index(strings.ToLower(got), secret); i >= 0 {
		t.Errorf("A's trace summary names B's page: …%s…", got[max(0, i-200):min(len(got), i+100)])
	}
	if !strings.Contains(got, "URL: "+site+"/mine") {
		t.Errorf("A's trace summary does not hold A's own navigation:\n%s", got)
	}
	m := savedTo.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("performance_stop_trace names no file:\n%s", got)
	}
	raw, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), site+"/mine") {
		t.Errorf("A's trace file %s does not hold A's page", m[1])
	}
	if i := strings.Index(strings.ToLower(string(raw)), secret); i >= 0 {
		t.Errorf("A's trace file holds B's page: …%s…", raw[max(0, i-300):min(len(raw), i+100)])
	}
	// Nor B's renderer process, nor its browser context by id.
	var file struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
			PID  int64  `json:"pid"`
			Args struct {
				Name string `json:"name"`
			} `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("A's trace file is not a JSON trace: %v", err)
	}
	renderers := map[int64]bool{}
	for _, e := range file.TraceEvents {
		if e.Ph == "M" && e.Name == "process_name" && e.Args.Name == "Renderer" {
			renderers[e.PID] = true
		}
	}
	if len(renderers) != 1 {
		t.Errorf("A's trace file names %d renderer processes, want A's one: %v", len(renderers), renderers)
	}
	contexts := map[string]bool{}
	for _, m := range regexp.MustCompile(`"browser_context":\s*\{"id":\s*"(\w+)"`).FindAllStringSubmatch(string(raw), -1) {
		contexts[m[1]] = true
	}
	if len(contexts) > 1 {
		t.Errorf("A's trace file names %d browser contexts: %v", len(contexts), contexts)
	}
	for _, set := range regexp.MustCompile(`(?m)^## insight set id: (\S+)$`).FindAllStringSubmatch(got, -1) {
		for _, n := range insightName.FindAllStringSubmatch(got, -1) {
			res, isErr, err := tabhivetest.SlowCall(a, "performance_analyze_insight", map[string]any{"insightSetId": set[1], "insightName": n[1]})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(strings.ToLower(res), secret) {
				t.Errorf("insight %s of %s (error %v) names B's page:\n%s", n[1], set[1], isErr, res)
			}
		}
	}
}
