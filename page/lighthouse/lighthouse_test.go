package lighthouse

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabhive/tabhive/internal/testwait"
)

// TestRunKillsTheCLI: when the call's context ends, the driver's node and
// what it started are killed and reaped, and Run returns at once.
func TestRunKillsTheCLI(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node")
	script := "#!/bin/sh\nsleep 300 &\necho $$ $! > " + filepath.Join(dir, "pids") + "\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Install: Install{Dir: dir, Node: bin}, Endpoint: "ws://127.0.0.1:1/devtools/browser/x", URL: "http://127.0.0.1:1/", Device: Devices["desktop"], Dir: dir})
		done <- err
	}()
	var pids []int
	testwait.Until(t, "the fake CLI to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
		return len(pids) >= 2
	})
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Run after cancel = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30 s of its context ending")
	}
	for _, pid := range pids {
		// The CLI is reaped by Run; its child, killed with the group, is
		// reaped by init: wait for it to go.
		if !testwait.Poll(30*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
			t.Fatalf("process %d outlived the call", pid)
		}
	}
}

func TestFlags(t *testing.T) {
	b, _ := json.Marshal(Flags(Options{URL: "http://x/", Device: Devices["mobile"], Dir: "/d"}))
	flags := string(b)
	for _, want := range []string{
		`"disableStorageReset":true`, `"onlyCategories":["accessibility","seo","best-practices","agentic-browsing"]`,
		`"output":["json","html"]`, `"maxWaitForLoad":30000`, `"formFactor":"mobile"`,
		`"screenEmulation":{"deviceScaleFactor":1.75,"disabled":false,"height":823,"mobile":true,"width":412}`,
		`"emulatedUserAgent":"Mozilla/5.0 (Linux; Android 11;`, `"disableFullPageScreenshot":true`, `"logLevel":"silent"`,
	} {
		if !strings.Contains(flags, want) {
			t.Errorf("flags lack %s: %s", want, flags)
		}
	}
}

// TestSummarize reads scores and failed audits as upstream does: each
// element once, sub-items skipped, at most MaxNodes listed.
func TestSummarize(t *testing.T) {
	var items []string
	for i := range 12 {
		items = append(items, `{"node":{"type":"node","lhId":"n`+strconv.Itoa(i)+`","selector":"#e`+strconv.Itoa(i)+`"}}`)
	}
	report := `{"lighthouseVersion":"12.8.2","finalDisplayedUrl":"http://x/","timing":{"total":1234.5},
	"categories":{"seo":{"id":"seo","title":"SEO","score":0.5,"auditRefs":[{"id":"b"}]},
		"accessibility":{"id":"accessibility","title":"Accessibility","score":null,"auditRefs":[{"id":"b"},{"id":"a"}]}},
	"audits":{
		"a":{"id":"a","title":"A","score":1},
		"b":{"id":"b","title":"B","score":0,"description":"why","details":{"type":"table","items":[
			{"node":{"type":"node","lhId":"1","selector":"#x","snippet":"<p>"}},
			{"node":{"type":"node","lhId":"1","explanation":"fix it"}},
			{"node":{"type":"node","selector":"#y"},"subItems":{"type":"subitems","items":[{"related":{"type":"node","selector":"#ctx"}}]}}]}},
		"c":{"id":"c","title":"C","score":0.5,"displayValue":"2 found","details":{"type":"table","items":[` + strings.Join(items, ",") + `]}},
		"d":{"id":"d","title":"D","score":null}}}`
	r, err := Parse([]byte(report))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(r)
	if s.URL != "http://x/" || s.TotalTimingMS != 1234.5 || s.Passed != 1 || len(s.Failed) != 2 {
		t.Fatalf("summary = %+v", s)
	}
	if len(s.Scores) != 2 || s.Scores[0].ID != "seo" || s.Scores[1].Score != nil {
		t.Errorf("scores, in the report's order = %+v", s.Scores)
	}
	b := s.Failed[0]
	if b.ID != "b" || strings.Join(b.Categories, ",") != "seo,accessibility" || b.TotalNodes != 2 ||
		b.Nodes[0] != (Node{Selector: "#x", Snippet: "<p>", Explanation: "fix it"}) || b.Nodes[1].Selector != "#y" {
		t.Errorf("failed audit b = %+v", b)
	}
	c := s.Failed[1]
	if c.TotalNodes != 12 || len(c.Nodes) != MaxNodes || c.DisplayValue != "2 found" || c.Score != 0.5 {
		t.Errorf("failed audit c = %+v", c)
	}
}
