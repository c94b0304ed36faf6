package transport_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport"
)

// TestFileErrorsReadAsSentences: a file a tool could not read is reported
// as one sentence with the system's reason, never with the Go call that
// failed (open, lstat, read) nor any of Chrome's or the channel's text,
// whichever tool read it.
func TestFileErrorsReadAsSentences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs := filesClient(t, transport.Config{}, []string{dir})
	id := openPage(t, cs, fixtures(t)+"/nav-a")
	missing := filepath.Join(dir, "missing")

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"evaluate_script", map[string]any{"pageId": id, "sourcePath": missing}, "Error: Unable to read script source from " + missing + ": no such file or directory."},
		{"route_requests", map[string]any{"pageId": id, "urlPattern": "/api/*", "action": "fulfill", "bodyPath": missing}, "Unable to read the body file " + missing + ": no such file or directory."},
		{"load_storage_state", map[string]any{"pageId": id, "filePath": missing}, "Unable to read the storage state file " + missing + ": no such file or directory."},
	} {
		got, isErr := call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(got, tt.want) {
			t.Errorf("%s(%v) = %v %q, want an error holding %q", tt.tool, tt.args, isErr, got, tt.want)
		}
		for _, leak := range []string{"open /", "lstat /", "read /", "stat /", "rpcc:", "cdp.", "json:", "{", "goroutine"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s(%v): the agent reads %q, which shows %q", tt.tool, tt.args, got, leak)
			}
		}
	}
}
