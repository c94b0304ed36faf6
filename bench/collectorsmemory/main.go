// Command collectorsmemory measures an MCP browser server's resident memory
// while one of its pages logs, throws and fetches without end: the figures
// in docs/bench/collectors-memory.md.
//
//	go build -o /tmp/tabhive ./cmd/tabhive
//	go run ./bench/collectorsmemory -duration 60s -- /tmp/tabhive --headless --isolated
//
// node bench/run.mjs collectors-memory runs it for tabhive and
// chrome-devtools-mcp.
//
// The server is started over stdio; its RSS (VmRSS of its process, not
// Chrome's) is sampled every second. The page logs an object every 2 ms,
// fetches every 5 ms, throws every 100 ms and navigates to itself every
// 10 s; the driver lists the page's console and network every 5 s, as an
// agent would. It prints one line per sample and a summary: start (after
// the page opened), peak, end, and the least-squares slope in MiB/min, over
// the whole run and over the part after the collectors filled (-fill: three
// navigations of 10 s).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/internal/mcptext"
)

const endless = `<!doctype html><html><head><meta charset=utf-8><title>Endless</title><link rel=icon href="data:,"></head><body>
<p>endless traffic</p><script>
let i = 0;
setInterval(() => { i++; console.log('tick', i, {i, payload: 'x'.repeat(200), nested: {a: [1, 2, 3]}}); }, 2);
setInterval(() => { fetch('/poll?i=' + i, {method: i % 2 ? 'GET' : 'POST', body: i % 2 ? undefined : 'body ' + i}).then(r => r.text()); }, 5);
setInterval(() => { setTimeout(() => { throw new Error('boom ' + i); }); }, 100);
setTimeout(() => location.reload(), 10000);
</script></body></html>`

func main() {
	duration := flag.Duration("duration", 60*time.Second, "how long to measure")
	fill := flag.Duration("fill", 30*time.Second, "time after which the collectors are full; the steady slope is fitted after it")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: collectorsmemory [-duration 60s] -- server-command [args...]")
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, endless)
	})
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"poll":%q,"pad":%q}`, r.URL.RawQuery, strings.Repeat("y", 500))
	})
	ln, err := benchmcp.Serve(mux)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"

	ctx := context.Background()
	cs, cmd, err := benchmcp.ConnectCommandLine(ctx, "collectors-memory", io.Discard)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		text := mcptext.Of(res)
		if res.IsError {
			log.Fatalf("%s: %s", name, text)
		}
		return text
	}

	text := call("new_page", map[string]any{"url": url})
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]`).FindStringSubmatch(text)
	if m == nil {
		log.Fatalf("new_page reply names no selected page:\n%s", text)
	}
	pageID, _ := strconv.Atoi(m[1])
	pid := cmd.Process.Pid

	fmt.Printf("command: %s\npage: %s (page %d), server pid %d\n", strings.Join(flag.Args(), " "), url, pageID, pid)
	fmt.Println("t_s rss_mib console_total network_total")
	var ts, rss []float64
	start := time.Now()
	for sec := 0; time.Since(start) < *duration+time.Second/2; sec++ {
		time.Sleep(time.Until(start.Add(time.Duration(sec) * time.Second)))
		consoleTotal, networkTotal := "-", "-"
		if sec%5 == 0 {
			consoleTotal = total(call("list_console_messages", map[string]any{"pageId": pageID, "pageSize": 5, "includePreservedMessages": true}))
			networkTotal = total(call("list_network_requests", map[string]any{"pageId": pageID, "pageSize": 5, "includePreservedRequests": true}))
		}
		r := rssMiB(pid)
		ts = append(ts, time.Since(start).Seconds())
		rss = append(rss, r)
		fmt.Printf("%d %.1f %s %s\n", sec, r, consoleTotal, networkTotal)
	}
	peak := rss[0]
	for _, r := range rss {
		peak = max(peak, r)
	}
	i := 0
	for i < len(ts) && ts[i] < fill.Seconds() {
		i++
	}
	fmt.Printf("start %.1f MiB, peak %.1f MiB, end %.1f MiB, slope %.2f MiB/min over %d samples, %.2f MiB/min from %v on\n",
		rss[0], peak, rss[len(rss)-1], slope(ts, rss)*60, len(rss), slope(ts[i:], rss[i:])*60, *fill)
}

// total extracts N from "Showing a-b of N".
func total(text string) string {
	if m := regexp.MustCompile(`of (\d+) \(Page`).FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return "0"
}

// rssMiB reads VmRSS of a process, in MiB.
func rssMiB(pid int) float64 {
	rss, err := benchmcp.ProcStatus(strconv.Itoa(pid), "VmRSS")
	if err != nil {
		log.Fatal(err)
	}
	kb, _ := strconv.Atoi(strings.TrimSuffix(rss, " kB"))
	return float64(kb) / 1024
}

// slope is the least-squares slope of y over x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
