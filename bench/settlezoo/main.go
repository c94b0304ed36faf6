// Command settlezoo measures what an MCP browser server's click waits for: for
// each case of the zoo, a click on a button whose effect lands in
// its own way, then a snapshot at once; the case is "seen" when the
// snapshot shows the effect. It also times clicks that cause nothing.
// Drive any server that speaks chrome-devtools-mcp's tools over stdio:
//
//	go build -o /tmp/tabhive ./cmd/tabhive
//	go run ./bench/settlezoo -label tabhive -- /tmp/tabhive --headless --isolated
//	go run ./bench/settlezoo -label cdm -- bench/node_modules/.bin/chrome-devtools-mcp --headless --isolated ...
//
// node bench/run.mjs settle-zoo runs it for two builds of tabhive and
// chrome-devtools-mcp, side by side.
//
// It prints one JSON line: per case, seen or not, the click's latency (as
// the MCP client sees it) and whether the reply named pending work; and
// the no-op clicks' median and p95.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/internal/mcptext"
)

const zoo = `<!doctype html><html><head><meta charset=utf-8><title>Zoo</title><link rel=icon href="data:,"></head><body>
<p id=out>none</p>
<script>
const out = document.getElementById('out');
const done = (n) => { out.textContent = 'done ' + n; };
const later = (ms, f) => setTimeout(f, ms);
const frames = (n, f) => { let i = 0; const step = () => (++i < n ? requestAnimationFrame(step) : f()); requestAnimationFrame(step); };
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
};
for (const name of Object.keys(cases)) {
  const b = document.createElement('button');
  b.textContent = name;
  b.onclick = cases[name];
  document.body.appendChild(b);
}
</script></body></html>`

// order is the zoo's rows, as docs/BENCHMARKS.md's table gives them.
var order = []string{"timer50", "timer120", "timer180", "timer300", "timer600", "fetch0", "fetch80", "fetch150", "frames10", "frames30", "chain", "timer5s"}

type row struct {
	Case    string  `json:"case"`
	Seen    bool    `json:"seen"`
	Ms      float64 `json:"ms"`
	Pending bool    `json:"pending_reported"`
}

func main() {
	label := flag.String("label", "", "label of the run")
	noops := flag.Int("noops", 20, "clicks that cause nothing, timed")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: settlezoo [-label L] -- SERVER ARGS...")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "slow")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, zoo)
	})
	ln, err := benchmcp.Serve(mux)
	if err != nil {
		log.Fatal(err)
	}
	site := "http://" + ln.Addr().String() + "/"

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cs, _, err := benchmcp.ConnectCommandLine(ctx, "settle_zoo", os.Stderr)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	// chrome-devtools-mcp 1.11 wants every page tool to name its page;
	// tabhive takes the same pageId, optionally.
	var pageID any
	call := func(name string, args map[string]any) string {
		if args == nil {
			args = map[string]any{} // chrome-devtools-mcp refuses null arguments
		}
		if pageID != nil && name != "new_page" {
			args["pageId"] = pageID
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		return mcptext.Of(res)
	}
	button := func(name string) string {
		snap := call("take_snapshot", nil)
		m := regexp.MustCompile(`uid=(\S+) button "` + name + `"`).FindStringSubmatch(snap)
		if m == nil {
			log.Fatalf("no button %q in:\n%s", name, snap)
		}
		return m[1]
	}
	click := func(name string) (string, time.Duration) {
		uid := button(name)
		start := time.Now()
		reply := call("click", map[string]any{"uid": uid})
		return reply, time.Since(start)
	}
	pages := call("new_page", map[string]any{"url": site})
	m := regexp.MustCompile(`(?m)^(\d+): .*` + regexp.QuoteMeta(site) + `\)? \[selected\]`).FindStringSubmatch(pages)
	if m == nil {
		log.Fatalf("no selected page %s in the new_page reply:\n%s", site, pages)
	}
	id, _ := strconv.Atoi(m[1])
	pageID = id
	var rows []row
	for _, name := range order {
		call("navigate_page", map[string]any{"type": "url", "url": site})
		reply, took := click(name)
		snap := call("take_snapshot", nil)
		rows = append(rows, row{
			Case:    name,
			Seen:    strings.Contains(snap, `"done `+name+`"`),
			Ms:      float64(took.Microseconds()) / 1000,
			Pending: strings.Contains(reply, "pending"),
		})
	}
	call("navigate_page", map[string]any{"type": "url", "url": site})
	var lat []float64
	for i := 0; i < *noops; i++ {
		_, took := click("noop")
		lat = append(lat, float64(took.Microseconds())/1000)
	}
	slices.Sort(lat)
	out, _ := json.Marshal(map[string]any{
		"label": *label, "date": time.Now().Format(time.RFC3339), "zoo": rows,
		"noop_p50_ms": lat[len(lat)/2], "noop_p95_ms": lat[len(lat)*95/100], "noop_n": len(lat),
	})
	fmt.Println(string(out))
}
