package input_test

// The input tools through an MCP client: their reply text, errors and
// listing.

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser"
	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestInputToolReplies asserts the reply text of every input tool, through
// an MCP client.
func TestInputToolReplies(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/form", browsertest.HTML("Form", `<label>First <input></label><label>Last <input></label>
<label>Agree <input type=checkbox></label><label>Query <input id=q></label>
<div role=button draggable=true ondragstart="event.dataTransfer.setData('text/plain', 'x')">Item</div>
<div role=region aria-label=Zone style="height:50px" ondragover="event.preventDefault()" ondrop="event.preventDefault(); out.textContent = 'dropped'">Zone</div>
<label>File <input type=file></label><button onclick="alert('hi')">Alert</button><button>Nothing</button><p id=out></p>`))
	base := browsertest.Serve(t, mux).URL
	cs := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{
		Workspaces: []string{os.TempDir()},
		Input:      input.Config{ExperimentalVision: true},
	}}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/form")
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	f, err := os.CreateTemp("", "upload-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("hello")
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fill_form", map[string]any{"elements": []map[string]any{
			{"uid": transporttest.UIDOf(t, snap, "textbox", "First"), "value": "Ada"},
			{"uid": transporttest.UIDOf(t, snap, "checkbox", "Agree"), "value": "true"},
		}}, "Successfully filled out the form"},
		{"click", map[string]any{"uid": transporttest.UIDOf(t, snap, "textbox", "Query")}, "Successfully clicked on the element"},
		{"type_text", map[string]any{"text": "shoes"}, `Typed text "shoes"`},
		{"type_text", map[string]any{"text": "!", "submitKey": "Tab"}, `Typed text "! + Tab"`},
		{"hover", map[string]any{"uid": transporttest.UIDOf(t, snap, "button", "Item")}, "Successfully hovered over the element"},
		{"drag", map[string]any{"from_uid": transporttest.UIDOf(t, snap, "button", "Item"), "to_uid": transporttest.UIDOf(t, snap, "region", "Zone")}, "Successfully dragged an element"},
		{"upload_file", map[string]any{"uid": transporttest.UIDOf(t, snap, "button", "File"), "filePaths": []string{f.Name()}}, "File uploaded from " + f.Name() + "."},
		{"click_at", map[string]any{"x": 5, "y": 5}, "Successfully clicked at the coordinates"},
		{"click_at", map[string]any{"x": 5, "y": 5, "dblClick": true}, "Successfully double clicked at the coordinates"},
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		if got := transporttest.Must(t, cs, tt.tool, tt.args); got != tt.want {
			t.Errorf("%s reply = %q, want %q", tt.tool, got, tt.want)
		}
	}
	if got := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(got, `textbox "Query" value="shoes!"`) || !strings.Contains(got, `"dropped"`) {
		t.Errorf("page after the inputs:\n%s", got)
	}

	errs := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fill", map[string]any{"uid": transporttest.UIDOf(t, snap, "checkbox", "Agree"), "value": "maybe"},
			`Error: Checkboxes, radio boxes and toggles require "true" or "false" value, but maybe was used`},
		{"upload_file", map[string]any{"uid": transporttest.UIDOf(t, snap, "button", "Nothing"), "filePaths": []string{f.Name()}},
			"Error: Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser."},
		{"upload_file", map[string]any{"uid": transporttest.UIDOf(t, snap, "button", "File"), "filePaths": []string{filepath.Join(os.TempDir(), "no-such-file.txt")}},
			"Error: Cannot upload"},
		{"type_text", map[string]any{"text": "x", "submitKey": "Entr"},
			"Error: Unknown key"},
	}
	for _, tt := range errs {
		tt.args["pageId"] = id
		got, isErr := transporttest.Call(t, cs, tt.tool, tt.args)
		if !isErr || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s = %v %q, want an error starting %q", tt.tool, isErr, got, tt.want)
		}
	}
	got := transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, snap, "button", "Alert")})
	if !strings.HasPrefix(got, "The element was clicked and it opened a dialog.\n# Open dialog\nalert: hi.") {
		t.Errorf("click that opens an alert: %q", got)
	}
	transporttest.Must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
}

// TestClickAtNeedsVision: click_at is listed only with --experimental-vision,
// as upstream does.
func TestClickAtNeedsVision(t *testing.T) {
	t.Parallel()
	// A browser that is never started: listing tools needs none.
	sup := transporttest.Browser(t, browser.Config{ExecutablePath: "/nonexistent/chromium"})
	cs := transporttest.Start(t, transporttest.Options{Browser: sup}).Connect(t)
	res, err := cs.ListTools(transporttest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "click_at" {
			t.Error("click_at listed without ExperimentalVision")
		}
	}
}
