package lighthouse_test

import (
	"context"
	"encoding/json"
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
	"github.com/tabhive/tabhive/page/pagetest"
)

func TestMain(m *testing.M) { browsertest.Main(m) }

// TestAuditBudget: an audit whose Lighthouse outlives the budget
// ends with a *BudgetError; it is killed, the endpoint it was
// given is closed, and the page answers again. Lighthouse's node is a
// stand-in that records its arguments and stdin, and hangs; the
// endpoint's secret is on its stdin, not in its arguments.
func TestAuditBudget(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node")
	script := fmt.Sprintf("#!/bin/sh\necho $$ \"$@\" > %[1]s.tmp\ncat > %[2]s\nmv %[1]s.tmp %[1]s\nexec sleep 300\n", filepath.Join(dir, "args"), filepath.Join(dir, "stdin"))
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := browsertest.Chromium(t)
	tab := b.NewTab(t)
	a := page.Start(page.Config{ID: 1, TargetID: tab.ID, Attach: tab.Attach, Relay: b.NewRelay})
	t.Cleanup(func() { a.Stop(nil) })
	url := pagetest.Serve(t, map[string]http.Handler{"/": browsertest.HTML("Audited", "<p>audited</p>")})
	if _, err := a.Navigate(pagetest.Ctx(t), page.Navigation{Kind: page.NavigateURL, URL: url + "/"}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// Generous: the page's own calls before the CLI starts take a while
	// on a loaded machine; the stand-in never finishes anyway.
	const budget = 5 * time.Second
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := lighthouse.Of(a).Audit(cctx, lighthouse.AuditOptions{Install: lighthouse.Install{Dir: dir, Node: bin}, Device: lighthouse.Devices["desktop"], Dir: out, Budget: budget})
	var be *lighthouse.BudgetError
	if !errors.As(err, &be) || be.Budget != budget {
		t.Fatalf("Audit with a hung CLI = %v, want a budget error", err)
	}
	args, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatalf("the CLI did not run: %v", err)
	}
	fields := strings.Fields(string(args))
	pid, _ := strconv.Atoi(fields[0])
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	var job struct {
		Endpoint, URL, Mode string
		Flags               struct{ DisableStorageReset bool }
	}
	if err := json.Unmarshal(stdin, &job); err != nil || job.URL != url+"/" || job.Mode != "navigation" || !job.Flags.DisableStorageReset {
		t.Errorf("the driver's job: %v %s", err, stdin)
	}
	m := regexp.MustCompile(`^ws://127\.0\.0\.1:(\d+)/devtools/browser/([0-9a-f]{32})$`).FindStringSubmatch(job.Endpoint)
	if m == nil {
		t.Fatalf("no endpoint in the job: %s", stdin)
	}
	if strings.Contains(string(args), m[2]) {
		t.Errorf("the endpoint's secret is in the driver's arguments: %s", args)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+m[1], time.Second); err == nil {
		c.Close()
		t.Error("the endpoint still listens after the call")
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the CLI (pid %d) outlived the call", pid)
	}
	// The page answers again.
	if _, err := a.Navigate(pagetest.Ctx(t), page.Navigation{Kind: page.NavigateURL, URL: url + "/"}); err != nil {
		t.Errorf("the page after the audit: %v", err)
	}
}
