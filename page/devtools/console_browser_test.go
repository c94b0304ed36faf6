package devtools_test

// The browser's own console messages, as chrome-devtools-mcp 1.11 lists
// them. The expected texts were read from
// chrome-devtools-mcp 1.11.0 on the same pages.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
)

// failedLoad is Chrome's message for a resource answered with a 404.
const failedLoad = "Failed to load resource: the server responded with a status of 404 (Not Found)"

// TestConsoleBrowserMessages: a page whose image, and whose fetch, get a
// 404 lists Chrome's "Failed to load resource" errors among its console
// messages, with msgids in the order they came, interleaved with the
// page's own console calls, as chrome-devtools-mcp lists them. Before,
// they were missing and every later msgid was off by their number.
func TestConsoleBrowserMessages(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/page", browsertest.HTML("Log", `<script>console.log('before')</script>`))
	base := browsertest.Serve(t, mux).URL
	cs := inMemory(t)
	id := openPage(t, cs, base+"/page")
	// The images load one after the other, from scripts: an <img> of the
	// document may fail before its scripts have logged (the preload
	// scanner fetches it ahead of the parser), in chrome-devtools-mcp too.
	// Chrome logs a failed load before the element's error event: once
	// the script has seen that event, the message is on its way.
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => new Promise(r => {
  const img = new Image();
  img.onerror = r;
  img.src = '/missing.png';
})`})
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => new Promise(r => {
  console.log('between');
  const img = new Image();
  img.onerror = r;
  img.src = '/missing-too.png';
})`})
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `() => { console.log('after') }`})
	want := "## Console messages\nShowing 1-5 of 5 (Page 1 of 1).\n" +
		"msgid=1 [log] before (1 args)\n" +
		"msgid=2 [error] " + failedLoad + " (0 args)\n" +
		"msgid=3 [log] between (1 args)\n" +
		"msgid=4 [error] " + failedLoad + " (0 args)\n" +
		"msgid=5 [log] after (1 args)"
	if got := must(t, cs, "list_console_messages", map[string]any{"pageId": id}); got != want {
		t.Errorf("list_console_messages =\n%s\nwant\n%s", got, want)
	}
	if got, want := must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": 4}), "ID: 4\nMessage: error> "+failedLoad; got != want {
		t.Errorf("get_console_message(4) =\n%s\nwant\n%s", got, want)
	}

	// A fetch that gets a 404: its message follows. Listed by type, the
	// three are folded into one, as upstream folds them after filtering.
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": `async () => (await fetch('/nope.json')).status`})
	all := until(t, cs, "list_console_messages", map[string]any{"pageId": id}, func(s string) bool {
		return strings.Contains(s, "Showing 1-6 of 6")
	})
	if want := "\nmsgid=6 [error] " + failedLoad + " (0 args)"; !strings.HasSuffix(all, want) {
		t.Errorf("list_console_messages after the fetch =\n%s\nwant the last line%s", all, want)
	}
	errs := must(t, cs, "list_console_messages", map[string]any{"pageId": id, "types": []string{"error"}})
	if want := "## Console messages\nShowing 1-1 of 1 (Page 1 of 1).\nmsgid=2 [error] " + failedLoad + " (0 args) [3 times]"; errs != want {
		t.Errorf("list_console_messages of errors =\n%s\nwant\n%s", errs, want)
	}
}
