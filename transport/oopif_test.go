package transport_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// oopifSites serves a page on 127.0.0.1 that embeds a frame of another
// site (127.0.1.N: Chromium renders it out of process), which embeds a
// frame of a third site; each frame logs, fetches, and has a button, a
// field and text. It returns the top page's URL.
func oopifSites(t *testing.T) string {
	t.Helper()
	frame := func(name, inner string) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("/frame", browsertest.HTML(name, fmt.Sprintf(`<p>%[1]s text</p>
<button onclick="this.textContent='%[1]s clicked'">%[1]s button</button>
<input aria-label="%[1]s field"><button onclick="out.textContent = confirm('%[1]s asks') ? 'Yes' : 'No'">%[1]s ask</button><p id=out></p>
<p id=late></p>%[2]s
<script>console.log('%[1]s says hi'); fetch('/data');
setTimeout(() => late.textContent = '%[1]s late text', 300)</script>`, name, inner)))
		mux.Handle("/data", browsertest.HTML("data", name+" data"))
		return mux
	}
	deep := browsertest.ServeOwnSite(t, frame("Deep", ""))
	mid := browsertest.ServeOwnSite(t, frame("Mid", `<iframe title="Deep frame" width=400 height=300 src="`+deep.URL+`/frame"></iframe>`))
	return browsertest.Serve(t, browsertest.HTML("Top", `<p>Top text</p>
<iframe title="Mid frame" width=500 height=550 src="`+mid.URL+`/frame"></iframe>`)).URL + "/"
}

// TestOutOfProcessFrames drives cross-site iframes, one nested in the
// other, through an MCP client: their nodes are in the
// snapshot, click and fill act on them, wait_for finds their text, their
// console messages and requests are listed with the page's, and a dialog
// one of them opens is handled.
func TestOutOfProcessFrames(t *testing.T) {
	t.Parallel()
	url := oopifSites(t)
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := openPage(t, cs, url)
		args := func(kv ...any) map[string]any {
			m := map[string]any{"pageId": id}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		wait := must(t, cs, "wait_for", args("text", []string{"Deep late text"}))
		if !strings.Contains(wait, `Element matching one of ["Deep late text"] found.`) {
			t.Errorf("wait_for reply:\n%s", wait)
		}
		snap := must(t, cs, "take_snapshot", args())
		for _, want := range []string{`Iframe "Mid frame"`, `"Mid text"`, `Iframe "Deep frame"`, `"Deep text"`} {
			if !strings.Contains(snap, want) {
				t.Fatalf("snapshot lacks %s:\n%s", want, snap)
			}
		}
		for _, level := range []string{"Mid", "Deep"} {
			must(t, cs, "click", args("uid", uidOf(t, snap, "button", level+" button")))
			must(t, cs, "fill", args("uid", uidOf(t, snap, "textbox", level+" field"), "value", level+" typed"))
		}
		after := must(t, cs, "take_snapshot", args())
		for _, level := range []string{"Mid", "Deep"} {
			for _, want := range []string{`button "` + level + ` clicked"`, `textbox "` + level + ` field"[^\n]* value="` + level + ` typed"`} {
				if !regexp.MustCompile(want).MatchString(after) {
					t.Errorf("snapshot after the inputs lacks %s:\n%s", want, after)
				}
			}
		}

		ask := must(t, cs, "click", args("uid", uidOf(t, after, "button", "Deep ask")))
		if !strings.Contains(ask, "confirm: Deep asks") {
			t.Errorf("click that opens the deep frame's confirm replied:\n%s", ask)
		}
		must(t, cs, "handle_dialog", args("action", "accept"))
		until(t, cs, "take_snapshot", args(), func(s string) bool { return strings.Contains(s, `"Yes"`) })

		until(t, cs, "list_console_messages", args(), func(s string) bool {
			return strings.Contains(s, "[log] Mid says hi") && strings.Contains(s, "[log] Deep says hi")
		})
		net := until(t, cs, "list_network_requests", args(), func(s string) bool {
			return strings.Count(s, "/data [200]") == 2
		})
		m := regexp.MustCompile(`reqid=(\d+) GET (\S+)/data \[200\]`).FindStringSubmatch(net)
		if m == nil {
			t.Fatalf("no /data request listed:\n%s", net)
		}
		var reqid int
		fmt.Sscan(m[1], &reqid)
		body := must(t, cs, "get_network_request", args("reqid", reqid))
		if !strings.Contains(body, " data</body>") {
			t.Errorf("get_network_request(%d) lacks the frame's response body:\n%s", reqid, body)
		}
	})
}
