package transport_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestIsolatedSessions: with IsolateSessions each HTTP session has a
// browser context of its own, sees and touches only its pages, and its
// pages close when it ends; limits on sessions and pages answer with a
// clear error.
func TestIsolatedSessions(t *testing.T) {
	t.Parallel()
	srv := transporttest.Start(t, transporttest.Options{
		Config: transport.Config{IsolateSessions: true, MaxPagesPerSession: 2},
		HTTP:   &httpserve.Config{MaxSessions: 2},
	})
	sup, url := srv.Browser, srv.URL
	base := fixtures(t)

	a, b := srv.Connect(t), srv.Connect(t)
	listA, listB := must(t, a, "list_pages", nil), must(t, b, "list_pages", nil)
	idA, idB := lastSelected(t, listA), lastSelected(t, listB)
	if idA == idB || strings.Count(listA, "\n") != 1 || strings.Count(listB, "\n") != 1 {
		t.Fatalf("sessions do not each see one page of their own:\nA:\n%s\nB:\n%s", listA, listB)
	}
	if strings.Contains(listA, "isolatedContext") {
		t.Errorf("a session sees its own context's name:\n%s", listA)
	}
	if text, isErr := call(t, a, "take_snapshot", map[string]any{"pageId": idB}); !isErr || !strings.Contains(text, fmt.Sprintf("No page found with id %d", idB)) {
		t.Errorf("session A reached B's page: %q", text)
	}
	if text, isErr := call(t, a, "close_page", map[string]any{"pageId": idB}); !isErr || !strings.Contains(text, "No page found") {
		t.Errorf("session A closed B's page: %q", text)
	}
	if text := must(t, a, "close_page", map[string]any{"pageId": idA}); !strings.HasPrefix(text, "The last open page cannot be closed.") {
		t.Errorf("closing a session's last page: %q", text)
	}

	// Cookies do not cross sessions.
	must(t, a, "navigate_page", map[string]any{"url": base + "/nav-a", "initScript": "document.cookie = 'who=a; path=/'"})
	must(t, a, "navigate_page", map[string]any{"type": "reload"})
	must(t, b, "navigate_page", map[string]any{"url": base + "/nav-a"})
	cookieB := must(t, b, "evaluate_script", map[string]any{"function": "() => document.cookie", "waitForStableDom": false})
	cookieA := must(t, a, "evaluate_script", map[string]any{"function": "() => document.cookie", "waitForStableDom": false})
	if !strings.Contains(cookieA, "who=a") || strings.Contains(cookieB, "who=a") {
		t.Errorf("cookies: A %q, B %q", cookieA, cookieB)
	}

	// Page limit: the page the session was given counts; it may open one
	// more.
	must(t, a, "new_page", map[string]any{"url": "about:blank"})
	if text, isErr := call(t, a, "new_page", map[string]any{"url": "about:blank"}); !isErr || !strings.Contains(text, "This session already has 2 open pages, the most allowed (--max-pages-per-session).") {
		t.Errorf("second new_page: %v %q", isErr, text)
	}

	// Session limit: a third session is refused with a clear error.
	c := mcp.NewClient(&mcp.Implementation{Name: "third", Version: "0"}, nil)
	if cs, err := c.Connect(ctx(t), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		cs.Close()
		t.Error("third session accepted past --max-sessions 2")
	} else if !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("third session refused with %v", err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(msg), "the most allowed (--max-sessions)") {
		t.Errorf("refusal: %d %s", resp.StatusCode, msg)
	}

	// Ending session A closes its pages.
	before := sup.Count()
	a.Close()
	testwait.Poll(testwait.Timeout, func() bool { return sup.Count() <= before-2 })
	if got := sup.Count(); got != before-2 {
		t.Errorf("after session A ended: %d pages, want %d", got, before-2)
	}
	if text := must(t, b, "list_pages", nil); !strings.Contains(text, fmt.Sprintf("%d: ", idB)) {
		t.Errorf("session B lost its page:\n%s", text)
	}
}
