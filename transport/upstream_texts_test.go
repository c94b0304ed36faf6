package transport_test

// Small reply texts a tuned agent trips on. The
// expected texts were read from chrome-devtools-mcp 1.11.0 on the same
// pages.

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// TestUpstreamErrorTexts: a wait_for that times out, a script that throws
// and performance_analyze_insight with no trace read as
// chrome-devtools-mcp's replies do, saying more only where upstream's
// text drops something.
func TestUpstreamErrorTexts(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/page", browsertest.HTML("Texts", `<p>hello</p>`))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	id := openPage(t, cs, base+"/page")
	tests := []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"wait_for", map[string]any{"text": []string{"nowhere"}, "timeout": 1500}, "Error: Timed out after waiting 1500ms", true},
		{"evaluate_script", map[string]any{"function": "() => { throw new Error('boom') }"}, "Error: boom", true},
		// Upstream drops the class ("Error: tx"); its name says more.
		{"evaluate_script", map[string]any{"function": "() => { throw new TypeError('tx') }"}, "Error: TypeError: tx", true},
		// Upstream's message is empty; Chrome's own text was "Uncaught (in promise)".
		{"evaluate_script", map[string]any{"function": "() => { throw 'str' }"}, "Error: str", true},
		{"performance_analyze_insight", map[string]any{"insightSetId": "NAVIGATION_0", "insightName": "LCPBreakdown"},
			"No recorded traces found. Record a performance trace so you have Insights to analyze.\n" +
				"No trace was recorded on page PAGE: record one with performance_start_trace, or pass the pageId of a page that recorded one.", false},
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		got, isErr := call(t, cs, tt.tool, tt.args)
		got = strings.ReplaceAll(got, "page "+strconv.Itoa(id)+":", "page PAGE:")
		if got != tt.want || isErr != tt.isError {
			t.Errorf("%s(%v) = %v\n%s\nwant %v\n%s", tt.tool, tt.args, isErr, got, tt.isError, tt.want)
		}
	}
}
