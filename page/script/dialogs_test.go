package script_test

// Dialogs a script opens, as chrome-devtools-mcp 1.11 handles them.
// The expected texts were read from
// chrome-devtools-mcp 1.11.0 on the same pages.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// The tests of page/script share a browser (transporttest.OnShared), the
// tests of Evaluate included.
func TestMain(m *testing.M) { transporttest.Main(m) }

// TestScriptDialogs: a dialog a script opens, synchronously or from a timer
// the script set, is answered as dialogAction says (the script goes on
// with the answer, as in chrome-devtools-mcp), the reply says so, and
// handle_dialog, which an agent used to chrome-devtools-mcp then calls,
// succeeds instead of saying there is no dialog; the page works on.
func TestScriptDialogs(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/page", browsertest.HTML("Dialogs", `<button onclick="out.textContent = 'clicked'">Go</button><p id=out></p>`))
	base := browsertest.Serve(t, mux).URL
	cs := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{}}).Connect(t)
	id := transporttest.OpenPage(t, cs, base+"/page")

	tests := []struct {
		name, function, dialogAction string
		result, line                 string
	}{
		{"sync", `() => { alert('sync'); return 1 }`, "", "1",
			"Accepted a dialog the script opened (alert: sync), as dialogAction says."},
		{"timer", `() => { setTimeout(() => alert('timer'), 30); return 2 }`, "", "2",
			"Accepted a dialog the script opened (alert: timer), as dialogAction says."},
		{"confirm dismissed", `() => confirm('sure?')`, "dismiss", "false",
			"Dismissed a dialog the script opened (confirm: sure?), as dialogAction says."},
		{"prompt", `() => prompt('name?', 'x')`, "Bob", `"Bob"`,
			`Accepted a dialog the script opened (prompt: name?) with the text "Bob", as dialogAction says.`},
	}
	for _, tt := range tests {
		args := map[string]any{"pageId": id, "function": tt.function}
		if tt.dialogAction != "" {
			args["dialogAction"] = tt.dialogAction
		}
		text := transporttest.Must(t, cs, "evaluate_script", args)
		if want := "Script ran on page and returned:\n```json\n" + tt.result + "\n```\n" + tt.line; !strings.HasPrefix(text, want) {
			t.Errorf("%s: evaluate_script =\n%s\nwant it to start\n%s", tt.name, text, want)
		}
		if strings.Contains(text, "# Open dialog") {
			t.Errorf("%s: the answered dialog is reported as open:\n%s", tt.name, text)
		}
		action := "accept"
		if tt.dialogAction == "dismiss" {
			action = "dismiss"
		}
		if tt.name == "prompt" {
			// Answered the other way: refused, saying how to dismiss.
			got, isErr := transporttest.Call(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "dismiss"})
			want := `Error: The dialog (prompt: name?) was already accepted by evaluate_script, as its dialogAction said, and cannot be answered again. To dismiss the dialogs a script opens, pass dialogAction "dismiss" to evaluate_script.`
			if !isErr || got != want {
				t.Errorf("%s: handle_dialog dismiss = %v\n%s\nwant an error\n%s", tt.name, isErr, got, want)
			}
		}
		want := "Successfully accepted the dialog\n## Pages\n"
		if action == "dismiss" {
			want = "Successfully dismissed the dialog\n## Pages\n"
		}
		if got := transporttest.Must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": action}); !strings.HasPrefix(got, want) {
			t.Errorf("%s: handle_dialog %s =\n%s\nwant it to start\n%s", tt.name, action, got, want)
		}
		// Only once: the next finds none, as upstream's.
		if got, isErr := transporttest.Call(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": action}); !isErr || got != "Error: No open dialog found" {
			t.Errorf("%s: second handle_dialog = %v %q, want the no-dialog error", tt.name, isErr, got)
		}
	}
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, snap, "button", "Go")})
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => out.textContent"}); !strings.Contains(got, `"clicked"`) {
		t.Errorf("after the dialogs, the click did not take effect:\n%s", got)
	}
}
