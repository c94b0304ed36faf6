package transporttest

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
)

// shared is the browser the tests of one binary share ([OnShared]),
// started on first use and closed by [Main].
var shared struct {
	once sync.Once
	sup  *browser.Supervisor
}

// Main runs the tests of a binary that share a browser through
// [OnShared], closes it, and fails the run if a goroutine, a Chromium
// process or a temporary profile was left behind (browsertest.Main).
// Call it from TestMain.
func Main(m *testing.M) { browsertest.Main(sharedMain{m}) }

type sharedMain struct{ m *testing.M }

func (w sharedMain) Run() int {
	code := w.m.Run()
	if shared.sup != nil {
		if err := shared.sup.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close shared supervisor:", err)
			code = 1
		}
	}
	return code
}

// OnShared is [Start] with a server of its own on the binary's shared
// browser (headless, isolated), which it starts on first use: tests of
// one capability need not each pay for a browser. It skips the test under
// -short.
func OnShared(t testing.TB, opts Options) *Server {
	t.Helper()
	exe := browsertest.Executable(t)
	shared.once.Do(func() {
		shared.sup = browser.New(browser.Config{ExecutablePath: exe, Headless: true, Isolated: true})
	})
	opts.Browser = shared.sup
	return Start(t, opts)
}

// ConnectWithTemp connects a client, in process, to a server of its own
// on the shared browser ([OnShared]), whose sandbox takes the test's
// temporary files (a workspace of os.TempDir()).
func ConnectWithTemp(t testing.TB) *mcp.ClientSession {
	t.Helper()
	return OnShared(t, Options{Config: transport.Config{Workspaces: []string{os.TempDir()}}}).Connect(t)
}
