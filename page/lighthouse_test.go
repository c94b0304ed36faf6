package page_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/lighthouse"
)

// TestLighthouseBudget: an audit whose CLI outlives the budget ends with
// a *LighthouseBudgetError; the CLI is killed, the endpoint it was given
// is closed, and the page answers again. The CLI is a stand-in that
// records its arguments and hangs.
func TestLighthouseBudget(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "lighthouse")
	script := fmt.Sprintf("#!/bin/sh\necho $$ \"$@\" > %s\nexec sleep 300\n", filepath.Join(dir, "args"))
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := browsertest.Chromium(t)
	tab := b.NewTab(t)
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach, Relay: b.NewRelay})
	t.Cleanup(func() { a.Stop(nil) })
	url := serve(t, map[string]http.Handler{"/": browsertest.HTML("Audited", "<p>audited</p>")})
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: url + "/"}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// Generous: the page's own calls before the CLI starts take a while
	// on a loaded machine; the stand-in never finishes anyway.
	const budget = 5 * time.Second
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := a.Lighthouse(cctx, page.LighthouseOptions{Bin: bin, Device: lighthouse.Devices["desktop"], Dir: out, Budget: budget})
	var be *page.LighthouseBudgetError
	if !errors.As(err, &be) || be.Budget != budget {
		t.Fatalf("Lighthouse with a hung CLI = %v, want a budget error", err)
	}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatalf("the CLI did not run: %v", err)
	}
	fields := strings.Fields(string(args))
	pid, _ := strconv.Atoi(fields[0])
	if fields[1] != url+"/" || !strings.Contains(string(args), "--disable-storage-reset") {
		t.Errorf("the CLI's arguments: %s", args)
	}
	m := regexp.MustCompile(`--port=(\d+)`).FindStringSubmatch(string(args))
	if m == nil {
		t.Fatalf("no --port in %s", args)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+m[1], time.Second); err == nil {
		c.Close()
		t.Error("the endpoint still listens after the call")
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the CLI (pid %d) outlived the call", pid)
	}
	// The page answers again.
	if _, err := a.Navigate(ctx(t), page.Navigation{Kind: page.NavigateURL, URL: url + "/"}); err != nil {
		t.Errorf("the page after the audit: %v", err)
	}
}
