package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMeasure measures what one instance holds and spends, for
// docs/SCALING.md: memory (proportional set size, so that pages shared
// between Chromium's processes count once) per MCP session, per idle tab,
// per tab on a site of its own, per busy tab; processes and file
// descriptors; CPU time per call kind, tabhive's and Chromium's apart. It
// prints one JSON object.
func runMeasure(args []string) error {
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	bin := fs.String("tabhive", "", "tabhive binary (default: built from this tree with deploy/build.sh)")
	n := fs.Int("n", 40, "sessions, and tabs, per step")
	calls := fs.Int("calls", 40, "calls per call kind")
	fs.Parse(args)
	exe, cleanup, err := buildTabhive(*bin)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	s, err := startSite()
	if err != nil {
		return err
	}
	defer s.close()
	sites, err := startSites(*n)
	if err != nil {
		return err
	}
	defer sites.close()
	in, err := startInstance(ctx, exe, "measure", "", "--max-connections", "0")
	if err != nil {
		return err
	}
	defer in.stop()
	if err := in.ready(ctx); err != nil {
		return err
	}
	url := "http://" + in.addr + "/mcp"
	pid := in.cmd.Process.Pid
	out := map[string]any{"date": time.Now().UTC().Format(time.RFC3339), "n": *n, "calls_per_kind": *calls, "load_start": loadavg()}
	settle := func() treeUsage { return settledUsage(pid, in.addr) }

	// The browser is up (the readiness probe started it), one blank tab.
	base := settle()
	out["base"] = base.json()

	// Idle MCP sessions: initialize, no page.
	sessions, err := openSessions(ctx, url, *n)
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	if err != nil {
		return err
	}
	withSessions := settle()
	out["per_session"] = usageStep(base, withSessions, *n)

	// Idle tabs on one site: a small page each, sharing a renderer.
	a := &agent{name: "m", site: s, cs: sessions[0]}
	same := make([]string, *n)
	for i := range same {
		same[i] = fmt.Sprintf("%s/s/m%d", s.url, i)
	}
	if _, err := openTabs(ctx, a, same); err != nil {
		return err
	}
	withTabs := settle()
	out["per_tab_same_site"] = usageStep(withSessions, withTabs, *n)

	// Tabs on sites of their own (127.0.0.2, .3, ...): one renderer each.
	ownURLs := make([]string, *n)
	for i := range ownURLs {
		ownURLs[i] = sites.urls[i] + "/s/o" + strconv.Itoa(i)
	}
	own, err := openTabs(ctx, a, ownURLs)
	if err != nil {
		return err
	}
	withOwn := settle()
	out["per_tab_own_site"] = usageStep(withTabs, withOwn, *n)

	if err := driveBusyTabs(ctx, sessions, own, sites.urls); err != nil {
		return err
	}
	busy := settle()
	out["per_busy_tab"] = usageStep(withOwn, busy, *n)
	out["busy_total"] = busy.json()

	c := &agent{name: "cpu", site: s, cs: sessions[len(sessions)-1]}
	if out["cpu_per_call"], err = cpuPerCall(ctx, c, pid, *calls); err != nil {
		return err
	}
	out["load_end"] = loadavg()
	line, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(line))
	return nil
}

// settledUsage reads what the instance of process pid (its HTTP address
// addr) and its Chromium hold, once the browser has had time to finish
// what the last step started (GC, tab teardown).
func settledUsage(pid int, addr string) treeUsage {
	time.Sleep(3 * time.Second)
	return measureTree(pid, addr)
}

// usageStep is what a step of per items added, from before to after, per
// item, and the totals after it.
func usageStep(before, after treeUsage, per int) map[string]any {
	return map[string]any{
		"tabhive_pss_kb":         (after.serverPss - before.serverPss) / per,
		"chromium_pss_kb":        (after.chromiumPss - before.chromiumPss) / per,
		"chromium_processes":     float64(after.chromiumProcs-before.chromiumProcs) / float64(per),
		"tabhive_fds":            float64(after.serverFds-before.serverFds) / float64(per),
		"chromium_fds":           float64(after.chromiumFds-before.chromiumFds) / float64(per),
		"tabhive_goroutines":     float64(after.goroutines-before.goroutines) / float64(per),
		"tabhive_heap_inuse_kb":  (after.heapInuse - before.heapInuse) / per,
		"browser_process_pss_kb": (after.browserPss - before.browserPss) / per,
		"browser_process_fds":    float64(after.browserFds-before.browserFds) / float64(per),
		"count":                  per,
		"total_after_chrome_mb":  after.chromiumPss / 1024,
		"total_after_server_mb":  after.serverPss / 1024,
	}
}

// openSessions opens n MCP sessions to url, each initialized, with no
// page. It returns the sessions opened so far with its error, for the
// caller to close.
func openSessions(ctx context.Context, url string, n int) ([]*mcp.ClientSession, error) {
	var sessions []*mcp.ClientSession
	for i := range n {
		c := mcp.NewClient(&mcp.Implementation{Name: "measure", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return sessions, fmt.Errorf("session %d: %w", i, err)
		}
		sessions = append(sessions, cs)
	}
	return sessions, nil
}

// openTabs opens a tab on each of urls through agent a, and returns their
// page ids.
func openTabs(ctx context.Context, a *agent, urls []string) ([]int, error) {
	var tabs []int
	for _, u := range urls {
		text, err := a.call(ctx, "new_page", map[string]any{"url": u, "timeout": 60000})
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, selectedID(text))
	}
	return tabs, nil
}

// driveBusyTabs makes the tabs of own busy: each is given a 2,000-item
// page (16,000 DOM nodes) of its site (siteURLs, in the same order) and
// driven as an agent would (snapshot, script, snapshot), each by a session
// of its own among sessions[1:], one tab after the other.
func driveBusyTabs(ctx context.Context, sessions []*mcp.ClientSession, own []int, siteURLs []string) error {
	for i, id := range own {
		b := &agent{name: "b", cs: sessions[1+i%(len(sessions)-1)]}
		if _, err := b.call(ctx, "navigate_page", map[string]any{"pageId": id, "url": siteURLs[i] + "/large", "timeout": 60000}); err != nil {
			return err
		}
		for _, tool := range []string{"take_snapshot", "evaluate_script", "take_snapshot"} {
			args := map[string]any{"pageId": id}
			if tool == "evaluate_script" {
				args["function"] = "() => { document.querySelectorAll('li').forEach((li, i) => li.dataset.seen = i); return document.querySelectorAll('li').length }"
			}
			if _, err := b.call(ctx, tool, args); err != nil {
				return err
			}
		}
	}
	return nil
}

// cpuPerCall measures the CPU time per call of each call kind, tabhive's
// (process pid) and Chromium's by process type, over calls calls on one
// page of the harness's kind that agent c opens.
func cpuPerCall(ctx context.Context, c *agent, pid, calls int) (map[string]any, error) {
	text, err := c.call(ctx, "new_page", map[string]any{"url": c.site.url + "/s/cpu", "timeout": 60000})
	if err != nil {
		return nil, err
	}
	c.page = selectedID(text)
	snap, err := c.call(ctx, "take_snapshot", nil)
	if err != nil {
		return nil, err
	}
	uid := regexp.MustCompile(`uid=(\S+) button`).FindStringSubmatch(snap)[1]
	kinds := []struct {
		name string
		args func(i int) map[string]any
	}{
		{"list_pages", func(int) map[string]any { return nil }},
		{"take_snapshot", func(int) map[string]any { return nil }},
		{"click", func(int) map[string]any { return map[string]any{"uid": uid} }},
		{"evaluate_script", func(int) map[string]any { return map[string]any{"function": "() => document.title"} }},
		{"take_screenshot", func(int) map[string]any { return nil }},
		{"navigate_page", func(i int) map[string]any {
			return map[string]any{"url": fmt.Sprintf("%s/s/cpu%d", c.site.url, i%2)}
		}},
	}
	cpu := map[string]any{}
	for _, k := range kinds {
		t0, b0 := cpuTree(pid)
		start := time.Now()
		for i := range calls {
			if _, err := c.call(ctx, k.name, k.args(i)); err != nil {
				return nil, err
			}
		}
		wall := time.Since(start)
		t1, b1 := cpuTree(pid)
		per := func(d int) float64 { return round2(float64(d) * 1000 / clockTicks / float64(calls)) }
		row := map[string]any{"tabhive_cpu_ms": per(t1 - t0), "wall_ms": round2(float64(wall.Milliseconds()) / float64(calls))}
		total := 0
		for typ, v := range b1 {
			row["chromium_"+typ+"_cpu_ms"] = per(v - b0[typ])
			total += v - b0[typ]
		}
		row["chromium_cpu_ms"] = per(total)
		cpu[k.name] = row
	}
	return cpu, nil
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// selectedID returns the id of the selected page in a page list.
func selectedID(text string) int {
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]$`).FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

// treeUsage is what the instance's process tree holds at one moment.
type treeUsage struct {
	serverPss, chromiumPss    int // kB
	serverFds, chromiumFds    int
	chromiumProcs, goroutines int
	renderers                 int
	browserPss, browserFds    int // Chromium's browser process alone
	heapInuse                 int // tabhive's Go heap in use, kB
}

func (u treeUsage) json() map[string]any {
	return map[string]any{"tabhive_pss_mb": u.serverPss / 1024, "chromium_pss_mb": u.chromiumPss / 1024,
		"tabhive_fds": u.serverFds, "chromium_fds": u.chromiumFds, "chromium_processes": u.chromiumProcs,
		"renderers": u.renderers, "tabhive_goroutines": u.goroutines, "browser_process_pss_mb": u.browserPss / 1024,
		"browser_process_fds": u.browserFds, "tabhive_heap_inuse_mb": u.heapInuse / 1024}
}

// measureTree reads the tree of the tabhive process pid: its own PSS and
// descriptors, and its Chromium's, and its goroutines from /metrics.
func measureTree(pid int, addr string) treeUsage {
	var u treeUsage
	u.serverPss = pss(pid)
	u.serverFds = fds(pid)
	for _, p := range descendants(pid) {
		u.chromiumPss += pss(p)
		u.chromiumFds += fds(p)
		u.chromiumProcs++
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		switch c := string(cmd); {
		case strings.Contains(c, "--type=renderer"):
			u.renderers++
		case !strings.Contains(c, "--type=") && strings.Contains(c, "chrom"):
			u.browserPss += pss(p)
			u.browserFds += fds(p)
		}
	}
	_, body := get(context.Background(), "http://"+addr+"/metrics")
	metric := func(name string) int {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return 0
		}
		f, _ := strconv.ParseFloat(m[1], 64)
		return int(f)
	}
	u.goroutines = metric("go_goroutines")
	u.heapInuse = metric("go_memstats_heap_inuse_bytes") / 1024
	return u
}

// pss returns a process's proportional set size in kB.
func pss(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^Pss:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func fds(pid int) int {
	e, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(e)
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100

// cpuTree returns the CPU time (user and system, in clock ticks) of pid
// and of its descendants, apart. Descendants that exited are counted in
// their parents' cumulative children times only when reaped by them:
// Chromium's renderers live as long as their tabs, so a step that keeps
// its tabs counts them whole.
func cpuTree(pid int) (self int, below map[string]int) {
	self = cpuOf(pid)
	below = map[string]int{"browser": 0, "renderer": 0, "gpu": 0, "utility": 0, "other": 0}
	for _, p := range descendants(pid) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		typ := "other"
		switch c := string(cmd); {
		case strings.Contains(c, "--type=renderer"):
			typ = "renderer"
		case strings.Contains(c, "--type=gpu-process"):
			typ = "gpu"
		case strings.Contains(c, "--type=utility"):
			typ = "utility"
		case !strings.Contains(c, "--type="):
			typ = "browser"
		}
		below[typ] += cpuOf(p)
	}
	return self, below
}

func cpuOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return u + k
}

// descendants returns the processes below pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		pp, _ := strconv.Atoi(f[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q != 0; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// sites serves the site's pages on loopback addresses of their own
// (127.0.0.2, 127.0.0.3, ...): each a site of its own to Chromium, which
// gives each a renderer process.
type ownSites struct {
	urls []string
	srvs []*http.Server
}

func startSites(n int) (*ownSites, error) {
	o := &ownSites{}
	mux := http.NewServeMux()
	mux.HandleFunc("/s/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>S %[1]s</title><button onclick="n++">Count %[1]s</button><script>let n = 0</script>`, name)
	})
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		b.WriteString("<!doctype html><title>Large</title><h1>Large</h1><ul>")
		for i := range 2000 {
			fmt.Fprintf(&b, `<li><a href="#i%d">Item %d</a> <button>Open %d</button></li>`, i, i, i)
		}
		b.WriteString("</ul>")
		w.Write([]byte(b.String()))
	})
	for i := range n {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", 2+i))
		if err != nil {
			o.close()
			return nil, err
		}
		srv := &http.Server{Handler: mux}
		go srv.Serve(l) // ends when close shuts it down
		o.srvs = append(o.srvs, srv)
		o.urls = append(o.urls, "http://"+l.Addr().String())
	}
	return o, nil
}

func (o *ownSites) close() {
	for _, s := range o.srvs {
		s.Close()
	}
}
