// Command snapshottokens measures what an agent pays in reply text for three
// fixed tasks on real offline documents, against any MCP
// browser server driven over stdio:
//
//   - heading: in the Rust book's one-page print view (book/print.html,
//     1.9 MB of HTML), find the heading "Refutability: Whether a Pattern
//     Might Fail to Match" and click it;
//   - details: on the standard library's reference page of Vec
//     (std/vec/struct.Vec.html, 0.94 MB, rustdoc's JavaScript app), read
//     the description of Vec::retain;
//   - region: on that page with a button that writes a summary into one
//     region, click it and read the summary.
//
// Each task is the script an agent would follow with the server's tools:
// tabhive with its take_snapshot parameters (query, depth, inViewport) and
// includeDiff; chrome-devtools-mcp with whole snapshots (its only way);
// @playwright/mcp with browser_find and browser_snapshot. The documents
// come from the Rust toolchain's offline documentation (rustup's
// share/doc/rust/html), served on a loopback port.
//
//	go build -o /tmp/tabhive ./cmd/tabhive
//	go run ./bench/snapshottokens -kind tabhive -label tabhive -- /tmp/tabhive --headless --isolated
//	go run ./bench/snapshottokens -kind cdm -label cdm -- bench/node_modules/.bin/chrome-devtools-mcp --headless --isolated ...
//	go run ./bench/snapshottokens -kind pwm -label pwm -- bench/node_modules/.bin/playwright-mcp --config ...
//
// node bench/run.mjs snapshot-tokens runs the five columns of its table
// side by side. -docs defaults to the documentation of the toolchain that
// rustc on PATH belongs to.
//
// It prints one JSON line per task: each call's tool and reply bytes, the
// total, and whether the task succeeded. -kind full takes one whole
// snapshot of each page (tabhive with --snapshot-max-bytes 0), for scale.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/bench/internal/benchmcp"
	"github.com/tabhive/tabhive/internal/mcptext"
)

const (
	bookPage = "/book/print.html"
	heading  = "Refutability: Whether a Pattern Might Fail to Match"
	refPage  = "/std/vec/struct.Vec.html"
	item     = "pub fn retain<"
	itemLink = "retain"
	// detail is a sentence of item's description, and of no other item's.
	detail  = "Retains only the elements specified by the predicate."
	summary = "This page documents"
)

// regionScript adds to the Vec page a button that writes a summary into one
// region at the top of the page: one change to one region of a real
// document.
const regionScript = `<div role="region" aria-label="Summary" id="summary"><p>No summary yet.</p></div>
<button id="summarize" onclick="document.getElementById('summary').innerHTML = '<h2>Summary</h2><p>` + summary + ` ' + document.querySelectorAll('h4').length + ' items.</p>'">Summarize this page</button>
`

type callRecord struct {
	Tool  string  `json:"tool"`
	Bytes int     `json:"bytes"`
	Ms    float64 `json:"ms"`
	Error bool    `json:"error,omitempty"`
}

type result struct {
	Label string       `json:"label"`
	Kind  string       `json:"kind"`
	Task  string       `json:"task"`
	OK    bool         `json:"ok"`
	Note  string       `json:"note,omitempty"`
	Bytes int          `json:"total_bytes"`
	Calls []callRecord `json:"calls"`
}

type session struct {
	cs    *mcp.ClientSession
	calls []callRecord
	show  bool // print each reply to stderr
	// pageID, when set, is passed to every page tool (chrome-devtools-mcp
	// 1.11 requires it).
	pageID int
}

func (s *session) call(name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if s.pageID != 0 && strings.Contains(" navigate_page take_snapshot click ", " "+name+" ") {
		with := map[string]any{"pageId": s.pageID}
		for k, v := range args {
			with[k] = v
		}
		args = with
	}
	start := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.calls = append(s.calls, callRecord{Tool: name, Ms: ms(start), Error: true})
		return "", err
	}
	text := mcptext.Of(res)
	s.calls = append(s.calls, callRecord{Tool: name, Bytes: len(text), Ms: ms(start), Error: res.IsError})
	if s.show {
		fmt.Fprintf(os.Stderr, "== %s %v (%d bytes)\n%s\n", name, args, len(text), text[:min(len(text), 4000)])
	}
	if res.IsError {
		return text, fmt.Errorf("%s: %s", name, firstLine(text))
	}
	return text, nil
}

func ms(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// uidOf finds the uid (tabhive, chrome-devtools-mcp) of the first line
// with role (a regexp) whose name starts with name.
func uidOf(text, role, name string) string {
	m := regexp.MustCompile(`uid=(\S+) (?:` + role + `) "` + regexp.QuoteMeta(name)).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

// refOf finds the ref (@playwright/mcp) of the first line with role (a
// regexp) whose name starts with name.
func refOf(text, role, name string) string {
	m := regexp.MustCompile(`(?:` + role + `) "` + regexp.QuoteMeta(name) + `[^\n]*?\[ref=([^\]]+)\]`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

// rustDocs is the offline documentation of the toolchain that rustc on
// PATH belongs to, or "" without one.
func rustDocs() string {
	out, err := exec.Command("rustc", "--print", "sysroot").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "share", "doc", "rust", "html")
}

func main() {
	kind := flag.String("kind", "tabhive", "tabhive, cdm, pwm, or full (one whole snapshot of each page)")
	label := flag.String("label", "", "label of the run")
	docs := flag.String("docs", rustDocs(), "the Rust toolchain's offline documentation")
	only := flag.String("task", "", "run only this task")
	show := flag.Bool("show", false, "print each reply (its first 4000 bytes) to stderr")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("give the server's command after --")
	}
	if *docs == "" {
		log.Fatal("no Rust documentation: install a toolchain with rustup (its rust-docs component), or pass -docs")
	}
	base := serve(*docs)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cs, _, err := benchmcp.ConnectCommandLine(ctx, "snapshot-tokens", os.Stderr)
	cancel()
	if err != nil {
		log.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	s := &session{cs: cs, show: *show}
	if *kind == "cdm" {
		s.pageID = 1 // the page it starts with
	}
	if *kind == "pwm" {
		// Keep a base tab, as the harness's adapter does.
		s.call("browser_navigate", map[string]any{"url": base + "/index.html"})
	}

	tasks := []struct {
		name string
		run  func(s *session, kind, base string) (bool, string)
	}{
		{"heading", taskHeading},
		{"details", taskDetails},
		{"region", taskRegion},
	}
	if *kind == "full" {
		tasks = tasks[:0]
		for _, page := range []string{bookPage, refPage, "/std/vec/region.html"} {
			tasks = append(tasks, struct {
				name string
				run  func(s *session, kind, base string) (bool, string)
			}{"full " + page, func(s *session, _, base string) (bool, string) {
				if _, err := s.call("navigate_page", map[string]any{"url": base + page}); err != nil {
					return false, err.Error()
				}
				text, err := s.call("take_snapshot", map[string]any{})
				return err == nil && strings.Contains(text, "uid="), ""
			}})
		}
	}
	for _, t := range tasks {
		if *only != "" && t.name != *only {
			continue
		}
		s.calls = nil
		ok, note := t.run(s, *kind, base)
		r := result{Label: *label, Kind: *kind, Task: t.name, OK: ok, Note: note, Calls: s.calls}
		for _, c := range s.calls {
			r.Bytes += c.Bytes
		}
		line, _ := json.Marshal(r)
		fmt.Println(string(line))
	}
}

// navigate opens url in the session's page.
func navigate(s *session, kind, url string) error {
	if kind == "pwm" {
		_, err := s.call("browser_navigate", map[string]any{"url": url})
		return err
	}
	_, err := s.call("navigate_page", map[string]any{"url": url})
	return err
}

// headingRole is the role of the book's section headings in a snapshot:
// an <h2> holding only a link is the link in chrome-devtools-mcp's
// snapshots (Puppeteer's filter drops the heading) and so in tabhive's.
const headingRole = "heading|link"

// inPage skips the table of contents: the text from the first main
// landmark on.
func inPage(text string) string {
	if i := regexp.MustCompile(`uid=\S+ main\b`).FindStringIndex(text); i != nil {
		return text[i[0]:]
	}
	return text
}

func taskHeading(s *session, kind, base string) (bool, string) {
	if err := navigate(s, kind, base+bookPage); err != nil {
		return false, err.Error()
	}
	switch kind {
	case "tabhive":
		found, err := s.call("take_snapshot", map[string]any{"query": heading})
		if err != nil {
			return false, err.Error()
		}
		uid := uidOf(inPage(found), headingRole, heading)
		if uid == "" {
			return false, "heading not found"
		}
		_, err = s.call("click", map[string]any{"uid": uid})
		return err == nil, errText(err)
	case "cdm":
		snap, err := s.call("take_snapshot", map[string]any{})
		if err != nil {
			return false, err.Error()
		}
		uid := uidOf(inPage(snap), headingRole, heading)
		if uid == "" {
			return false, "heading not found"
		}
		_, err = s.call("click", map[string]any{"uid": uid})
		return err == nil, errText(err)
	default:
		found, err := s.call("browser_find", map[string]any{"text": heading})
		if err != nil {
			return false, err.Error()
		}
		ref := refOf(found, headingRole, heading)
		if ref == "" {
			return false, "heading not found"
		}
		_, err = s.call("browser_click", map[string]any{"target": ref, "element": "heading " + heading})
		return err == nil, errText(err)
	}
}

func taskDetails(s *session, kind, base string) (bool, string) {
	if err := navigate(s, kind, base+refPage); err != nil {
		return false, err.Error()
	}
	switch kind {
	case "tabhive":
		// Find the item's heading and its anchor link, follow the link (the
		// heading scrolls to the top), read what is on screen.
		found, err := s.call("take_snapshot", map[string]any{"query": item, "depth": 1})
		if err != nil {
			return false, err.Error()
		}
		at := strings.Index(found, item)
		if at < 0 {
			return false, "item not found"
		}
		link := uidOf(found[at:], "link", itemLink+`"`)
		if link == "" {
			return false, "anchor link not found"
		}
		if _, err := s.call("click", map[string]any{"uid": link}); err != nil {
			return false, err.Error()
		}
		seen, err := s.call("take_snapshot", map[string]any{"inViewport": true})
		return err == nil && strings.Contains(seen, detail), errText(err)
	case "cdm":
		snap, err := s.call("take_snapshot", map[string]any{})
		return err == nil && strings.Contains(snap, detail), errText(err)
	default:
		// Its snapshot splits the item's signature into texts and links:
		// the method's name is what an agent can find.
		found, err := s.call("browser_find", map[string]any{"text": itemLink})
		if err != nil {
			return false, err.Error()
		}
		if strings.Contains(found, detail) {
			return true, ""
		}
		// The match's path names the group that holds the item (rustdoc's
		// <details>): its subtree has the description.
		group := ""
		for _, block := range strings.Split(found, "----") {
			at := strings.Index(block, `"#method.`+itemLink+`"`)
			if at < 0 || !strings.Contains(block, "main [ref=") {
				continue
			}
			if m := regexp.MustCompile(`group \[ref=([^\]]+)\]`).FindAllStringSubmatch(block[:at], -1); m != nil {
				group = m[len(m)-1][1]
				break
			}
		}
		if group == "" {
			return false, "no group around the item in browser_find's result"
		}
		part, err := s.call("browser_snapshot", map[string]any{"target": group})
		return err == nil && strings.Contains(part, detail), errText(err)
	}
}

func taskRegion(s *session, kind, base string) (bool, string) {
	if err := navigate(s, kind, base+"/std/vec/region.html"); err != nil {
		return false, err.Error()
	}
	switch kind {
	case "tabhive":
		found, err := s.call("take_snapshot", map[string]any{"query": "Summarize this page"})
		if err != nil {
			return false, err.Error()
		}
		uid := uidOf(found, "button", "Summarize this page")
		if uid == "" {
			return false, "button not found"
		}
		diff, err := s.call("click", map[string]any{"uid": uid, "includeDiff": true})
		return err == nil && strings.Contains(diff, summary), errText(err)
	case "cdm":
		snap, err := s.call("take_snapshot", map[string]any{})
		if err != nil {
			return false, err.Error()
		}
		uid := uidOf(snap, "button", "Summarize this page")
		if uid == "" {
			return false, "button not found"
		}
		after, err := s.call("click", map[string]any{"uid": uid, "includeSnapshot": true})
		return err == nil && strings.Contains(after, summary), errText(err)
	default:
		found, err := s.call("browser_find", map[string]any{"text": "Summarize this page"})
		if err != nil {
			return false, err.Error()
		}
		ref := refOf(found, "button", "Summarize this page")
		if ref == "" {
			return false, "button not found"
		}
		after, err := s.call("browser_click", map[string]any{"target": ref, "element": "button Summarize this page"})
		if err != nil {
			return false, err.Error()
		}
		if strings.Contains(after, summary) {
			return true, ""
		}
		read, err := s.call("browser_find", map[string]any{"text": summary})
		return err == nil && strings.Contains(read, summary), errText(err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// serve serves the documentation directory, and region.html (the Vec page
// with the summary button, in its directory), on a loopback port, and
// returns its base URL.
func serve(dir string) string {
	fs, err := os.ReadFile(filepath.Join(dir, refPage))
	if err != nil {
		log.Fatal(err)
	}
	// In the main content: rustdoc's sidebar covers the top left corner.
	content := regexp.MustCompile(`<section id="main-content"[^>]*>`)
	loc := content.FindIndex(fs)
	if loc == nil {
		log.Fatal("the reference page has no main content section")
	}
	region := string(fs[:loc[1]]) + regionScript + string(fs[loc[1]:])
	mux := http.NewServeMux()
	mux.HandleFunc("/std/vec/region.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, region)
	})
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	ln, err := benchmcp.Serve(mux) // serves until the process exits
	if err != nil {
		log.Fatal(err)
	}
	return "http://" + ln.Addr().String()
}
