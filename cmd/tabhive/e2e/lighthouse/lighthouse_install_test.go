package lighthouse

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// lighthouseOnPath returns the Lighthouse on PATH, its links followed, and
// the node that runs it; without one the test is skipped, saying why it
// needs it.
func lighthouseOnPath(t *testing.T, why string) (lighthouse, node string) {
	t.Helper()
	lh, err := exec.LookPath("lighthouse")
	if err != nil {
		t.Skip(why + "; it is not there")
	}
	if lighthouse, err = filepath.EvalSymlinks(lh); err != nil {
		t.Fatal(err)
	}
	if node, err = exec.LookPath("node"); err != nil {
		t.Fatal(err)
	}
	return lighthouse, node
}

// TestLighthouseInstallThroughBinary: with no
// lighthouse on PATH, lighthouse_audit installs lighthouse@12.8.2 with npm
// into tabhive's cache ($XDG_CACHE_HOME/tabhive/lighthouse-12.8.2), telling
// the client with progress notifications, and audits with it; two calls
// at once install it once, and later calls use the install. npm is a
// stand-in that records its arguments and "installs" the Lighthouse of
// .ci (a link to its package), so that the audits are real.
func TestLighthouseInstallThroughBinary(t *testing.T) {
	real, node := lighthouseOnPath(t, "this test links the Lighthouse on PATH (npm install -g lighthouse@12.8.2) into its install")
	t.Parallel()
	pkg := filepath.Dir(filepath.Dir(real)) // lighthouse/cli/index.js
	bin, cache := t.TempDir(), t.TempDir()
	args, release := filepath.Join(bin, "npm-args"), filepath.Join(bin, "release")
	npm := fmt.Sprintf(`#!/bin/sh
echo "$@" >> %[1]q
prefix=
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done
while [ ! -e %[2]q ]; do sleep 0.05; done
mkdir -p "$prefix/node_modules/.bin"
ln -s %[3]q "$prefix/node_modules/lighthouse"
ln -s ../lighthouse/cli/index.js "$prefix/node_modules/.bin/lighthouse"
`, args, release, pkg)
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(node, filepath.Join(bin, "node")); err != nil {
		t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, "lighthouse")); err == nil {
			t.Skipf("%s has a lighthouse of its own", dir)
		}
	}

	site := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(lighthouseFixture))
	})).URL
	cmd := tabhivetest.Command(t)
	cmd.Env = append(cmd.Env, "PATH="+path, "XDG_CACHE_HOME="+cache)
	var mu sync.Mutex
	var progress []string
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	})
	cs := transporttest.DialClient(t, c, &mcp.CommandTransport{Command: cmd}, nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/", "timeout": tabhivetest.PageLoadTimeout})
	transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/", "timeout": tabhivetest.PageLoadTimeout})

	// Two audits at once, while npm is held back until it has started.
	type result struct {
		text  string
		isErr bool
		err   error
	}
	results := make(chan result, 2)
	for _, id := range []int{1, 2} {
		go func() {
			cctx, cancel := context.WithTimeout(context.Background(), tabhivetest.SlowCallTimeout)
			defer cancel()
			p := &mcp.CallToolParams{Name: "lighthouse_audit", Arguments: map[string]any{"pageId": id, "mode": "snapshot"}}
			p.SetProgressToken(fmt.Sprintf("install-%d", id))
			res, err := cs.CallTool(cctx, p)
			if err != nil {
				results <- result{err: err}
				return
			}
			results <- result{text: transporttest.Text(res), isErr: res.IsError}
		}()
	}
	testwait.Until(t, "npm to be run", func() bool { _, err := os.Stat(args); return err == nil })
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := <-results
		if r.err != nil || r.isErr || !strings.Contains(r.text, "Mode: snapshot") || !strings.Contains(r.text, "image-alt") {
			t.Errorf("lighthouse_audit with Lighthouse installed on first use: %v %v\n%s", r.err, r.isErr, r.text)
		}
	}
	// Later calls use the install.
	if got := transporttest.Must(t, cs, "lighthouse_audit", map[string]any{"pageId": 1, "mode": "snapshot"}); !strings.Contains(got, "Mode: snapshot") {
		t.Errorf("a later lighthouse_audit: %s", got)
	}

	b, _ := os.ReadFile(args)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	installed := filepath.Join(cache, "tabhive", "lighthouse-12.8.2")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "install --prefix "+installed+".partial-") || !strings.HasSuffix(lines[0], " lighthouse@12.8.2") {
		t.Errorf("npm ran %d times, with %q; want once, install --prefix %s.partial-... lighthouse@12.8.2", len(lines), b, installed)
	}
	if _, err := os.Stat(filepath.Join(installed, "node_modules", ".bin", "lighthouse")); err != nil {
		t.Errorf("the install is not in the cache: %v", err)
	}
	if partial, _ := filepath.Glob(installed + ".partial-*"); len(partial) > 0 {
		t.Errorf("an install directory was left behind: %v", partial)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 || !strings.Contains(progress[0], "Installing Lighthouse 12.8.2 with npm") {
		t.Errorf("progress notifications while installing: %q", progress)
	}
}
