package transport_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
)

// openHTML serves a page titled title with body, and opens it in a new
// session: the page's URL, the session and the page's id.
func openHTML(t *testing.T, title, body string) (url string, cs *mcp.ClientSession, id int) {
	t.Helper()
	url = browsertest.Serve(t, browsertest.HTML(title, body)).URL + "/"
	cs = inMemory(t)
	return url, cs, openPage(t, cs, url)
}

// quietPage schedules nothing, ever: no action on it leaves work pending.
const quietPage = `<input aria-label=Name><select aria-label=Pick><option>a</option><option>b</option></select>
<input type=checkbox aria-label=Agree><input type=file aria-label=Upload>
<button>Press</button><div id=target style="width:50px;height:50px">Drop</div>
<button onclick="alert('hi')">Alert</button><p>Quiet</p>`

// TestNoFalsePending: no reply of any tool says "Still pending" on a page
// where nothing was scheduled. Every evaluate_script reply once listed its
// own deadline timer ("a timer of 28.993 s"), which the page's setTimeout
// set while the tracker was installed.
func TestNoFalsePending(t *testing.T) {
	t.Parallel()
	url, cs, id := openHTML(t, "Quiet", quietPage)
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	name := uidOf(t, snap, "textbox", "Name")
	pick := uidOf(t, snap, "combobox", "Pick")
	agree := uidOf(t, snap, "checkbox", "Agree")
	upload := uidOf(t, snap, "button", "Upload")
	press := uidOf(t, snap, "button", "Press")
	alert := uidOf(t, snap, "button", "Alert")
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Arguments that make each tool do its work; a tool not listed is
	// called with the page's id alone (its reply may be an error, and must
	// not say "Still pending" either).
	args := map[string][]map[string]any{
		"click":           {{"uid": press}, {"uid": press, "dblClick": true}, {"uid": press, "includeSnapshot": true}},
		"click_at":        {{"x": 5, "y": 5}},
		"hover":           {{"uid": press}},
		"fill":            {{"uid": name, "value": "abc"}, {"uid": pick, "value": "b"}},
		"fill_form":       {{"elements": []map[string]any{{"uid": name, "value": "xyz"}, {"uid": agree, "value": "true"}}}},
		"press_key":       {{"key": "Tab"}, {"key": "Control+A"}},
		"type_text":       {{"text": "hello", "submitKey": "Tab"}},
		"drag":            {{"from_uid": press, "to_uid": regexp.MustCompile(`uid=(\S+) "Drop"`).FindStringSubmatch(snap)[1]}},
		"upload_file":     {{"uid": upload, "filePaths": []string{file}}},
		"evaluate_script": {{"function": "() => 1"}, {"function": "() => 1", "timeout": 5000}, {"function": "async () => { await new Promise((r) => setTimeout(r, 20)); return 2 }"}},
		"navigate_page":   {{"type": "reload"}, {"type": "url", "url": url}},
		"new_page":        {{"url": url}},
		"wait_for":        {{"text": []string{"Quiet"}}},
		"take_snapshot":   {{}},
		"take_screenshot": {{}},
		"emulate":         {{"cpuThrottlingRate": 1}},
		"resize_page":     {{"width": 800, "height": 600}},
		"list_pages":      {{}},
		"select_page":     {{}},
		"close_page":      {},
		"handle_dialog":   {{"action": "accept"}},
	}
	tools, err := cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(tool string, a map[string]any) {
		t.Helper()
		text, _ := call(t, cs, tool, a)
		if strings.Contains(text, "Still pending") || strings.Contains(text, "could not be followed") {
			t.Errorf("%s(%v) on a page that schedules nothing:\n%s", tool, a, text)
		}
		if tool == "new_page" {
			if m := regexp.MustCompile(`(?m)^(\d+): .* \[selected\]$`).FindStringSubmatch(text); m != nil {
				var n int
				fmt.Sscan(m[1], &n)
				call(t, cs, "close_page", map[string]any{"pageId": n})
			}
		}
	}
	for _, tool := range tools.Tools {
		calls, ok := args[tool.Name]
		if !ok {
			calls = []map[string]any{{}}
		}
		for _, a := range calls {
			b := map[string]any{}
			for k, v := range a {
				b[k] = v
			}
			if tool.Name != "new_page" && tool.Name != "list_pages" && tool.Name != "close_page" {
				b["pageId"] = id
			}
			check(tool.Name, b)
		}
		if tool.Name == "click" {
			// A dialog opened by the action, then handled.
			check("click", map[string]any{"pageId": id, "uid": alert})
			check("handle_dialog", map[string]any{"pageId": id, "action": "accept"})
		}
	}
}

// TestSettleAfterFailedActions: a click that fails, and one that opens a
// dialog, leave the page as it was: the same setTimeout as at load, one
// layer of it, and the next action's reply reports nothing pending. A
// tracker used to outlive failed actions, wrapping the page's timers
// for five minutes, one more layer for each retry.
func TestSettleAfterFailedActions(t *testing.T) {
	t.Parallel()
	_, cs, id := openHTML(t, "Fails", `<button id=gone>Gone</button>
<button onclick="setTimeout(() => {}, 30); alert('hi')">Alert</button><button>Noop</button>
<script>window.atLoad = window.setTimeout;</script>`)
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	gone, alert, noop := uidOf(t, snap, "button", "Gone"), uidOf(t, snap, "button", "Alert"), uidOf(t, snap, "button", "Noop")
	must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => { document.getElementById('gone').style.display = 'none' }"})
	for range 2 {
		if reply, _ := call(t, cs, "click", map[string]any{"pageId": id, "uid": gone}); !strings.Contains(reply, "did not become interactive") {
			t.Fatalf("click on a button without a box:\n%s", reply)
		}
	}
	if reply := must(t, cs, "click", map[string]any{"pageId": id, "uid": alert}); !strings.Contains(reply, "# Open dialog") {
		t.Fatalf("click that opens an alert:\n%s", reply)
	}
	must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
	if reply := must(t, cs, "click", map[string]any{"pageId": id, "uid": noop}); strings.Contains(reply, "Still pending") {
		t.Errorf("a click that does nothing, after failed ones:\n%s", reply)
	}
	got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "waitForStableDom": false,
		"function": "() => window.setTimeout === window.atLoad"})
	if !strings.Contains(got, "true") {
		t.Errorf("after failed actions the page's setTimeout is not the one it had at load:\n%s", got)
	}
}

// detectPage runs a detection script inside a click's handler, while the
// action is followed, and in a timer it sets then: the properties a page
// can read of the functions tabhive follows, compared with the browser's
// own (a fresh iframe's, which tabhive's wrappers do not touch... unless
// they do, which the comparison with literal values catches too).
const detectPage = `<p id=out>none</p><button id=go>Detect</button><iframe id=f srcdoc="<p>frame</p>"></iframe>
<script>
const natives = {
  setTimeout: [window, 'setTimeout', 2], setInterval: [window, 'setInterval', 2],
  clearTimeout: [window, 'clearTimeout', 0], requestAnimationFrame: [window, 'requestAnimationFrame', 1],
  fetch: [window, 'fetch', 1], postMessage: [MessagePort.prototype, 'postMessage', 1],
  json: [Response.prototype, 'json', 0], read: [ReadableStreamDefaultReader.prototype, 'read', 0],
  digest: [SubtleCrypto.prototype, 'digest', 2], toString: [Function.prototype, 'toString', 0],
};
const expectLength = { setTimeout: 1, setInterval: 1, clearTimeout: 0, requestAnimationFrame: 1, fetch: 1, postMessage: 1, json: 0, read: 0, digest: 2, toString: 0 };
function detect(where) {
  const odd = [];
  const otherToString = document.getElementById('f').contentWindow.Function.prototype.toString;
  for (const [name, [owner, key]] of Object.entries(natives)) {
    const f = owner[key];
    const src = 'function ' + key + '() { [native code] }';
    if (f.name !== key) odd.push(name + '.name=' + f.name);
    if (f.length !== expectLength[name]) odd.push(name + '.length=' + f.length);
    if ('prototype' in f) odd.push(name + ' has a prototype');
    if (Object.getOwnPropertyNames(f).sort().join() !== 'length,name') odd.push(name + ' own ' + Object.getOwnPropertyNames(f));
    if (Function.prototype.toString.call(f) !== src) odd.push(name + ' toString ' + Function.prototype.toString.call(f));
    if (String(f) !== src) odd.push(name + ' String ' + String(f));
    if (otherToString.call(f) !== src) odd.push(name + ' iframe toString ' + otherToString.call(f));
  }
  try { setTimeout.call({}, () => {}); } catch (e) {
    if (e.stack.split('\n').length !== new Error().stack.split('\n').length) odd.push('stack through a wrapper: ' + e.stack);
  }
  if (new Error().stack.includes('tabhive')) odd.push(where + ' stack ' + new Error().stack);
  return odd;
}
document.getElementById('go').onclick = () => {
  const odd = detect('handler');
  setTimeout(() => {
    odd.push(...detect('timer'));
    document.getElementById('out').textContent = odd.length ? 'odd: ' + odd.join('; ') : 'clean';
  }, 30);
  // An unhandled fetch failure: "Uncaught (in promise)" as without tabhive.
  fetch('http://127.0.0.1:1/unreachable');
  // A handled one: nothing.
  fetch('http://127.0.0.1:1/handled').catch(() => {});
  // An error thrown in a timer: its stack, as the console collector
  // reports it, holds no frame of tabhive's.
  setTimeout(function thrower() { throw new Error('from a timer'); }, 10);
};
</script>`

// TestSettleUndetectable: during an action, the wrappers tabhive follows
// the page with read as the browser's own functions (name, length, no
// prototype, own properties, source text in this realm and in a frame's),
// errors thrown through them carry the caller's stack, no stack holds a
// frame of tabhive's (the page's, nor those the console collector
// reports), and a fetch failure the page leaves unhandled is reported as
// without tabhive, while a handled one is not.
func TestSettleUndetectable(t *testing.T) {
	t.Parallel()
	_, cs, id := openHTML(t, "Detect", detectPage)
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Detect")})
	if snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(snap, `"clean"`) {
		t.Errorf("the detection script run during the action found:\n%s", snap)
	}
	var list string
	testwait.Poll(testwait.Timeout, func() bool {
		list = must(t, cs, "list_console_messages", map[string]any{"pageId": id})
		return strings.Contains(list, "unreachable") && strings.Contains(list, "from a timer")
	})
	if !strings.Contains(list, "Uncaught (in promise) TypeError: Failed to fetch") {
		t.Errorf("the page's unhandled fetch failure is not reported as one:\n%s", list)
	}
	if strings.Count(list, "Failed to fetch") != 1 {
		t.Errorf("want exactly one unhandled fetch failure reported (the handled one is not):\n%s", list)
	}
	for _, line := range strings.Split(list, "\n") {
		if !strings.Contains(line, "from a timer") {
			continue
		}
		var msgID int
		fmt.Sscanf(line[strings.Index(line, "msgid=")+len("msgid="):], "%d", &msgID)
		detail := must(t, cs, "get_console_message", map[string]any{"pageId": id, "msgid": msgID})
		if strings.Contains(detail, "tabhive") || !strings.Contains(detail, "thrower") {
			t.Errorf("the stack the console collector reports for an error in a timer:\n%s", detail)
		}
	}
}

// editorPage reproduces a code editor's input: a textarea with no area
// (0×19 px), focusable, inside the editor's box, echoing what is typed.
const editorPage = `<div id=editor style="position:relative;width:400px;height:200px;border:1px solid">
<div style="position:absolute;top:40px;left:60px;width:0;height:0;overflow:hidden">
<textarea id=input aria-label="Editor input" style="position:absolute;width:0;height:19px;padding:0;border:0;outline:none;resize:none"></textarea>
</div><pre id=line>empty</pre></div>
<div style="width:0;height:0;overflow:hidden"><span id=ghost role=button aria-label=Ghost></span></div>
<script>
const input = document.getElementById('input');
input.addEventListener('input', () => { document.getElementById('line').textContent = 'typed: ' + input.value; });
input.addEventListener('focus', () => { document.title = 'focused'; });
</script>`

// TestClickZeroAreaInput: a focusable element with no area, as a code
// editor's input, is focused and clicked at its place at once, and typing
// then reaches it; an element without area that cannot take focus fails
// at once with a sentence that says so. Both used to wait the whole
// actionability timeout (5 s) and fail with "did not become interactive".
func TestClickZeroAreaInput(t *testing.T) {
	t.Parallel()
	_, cs, id := openHTML(t, "Editor", editorPage)
	snap := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	// Each click must answer before a deadline short of the 5 s it used
	// to wait (the event; 4 s is room for a loaded machine).
	quick, cancel := context.WithTimeout(ctx(t), 4*time.Second)
	defer cancel()
	mustIn(t, quick, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "textbox", "Editor input")})
	must(t, cs, "type_text", map[string]any{"pageId": id, "text": "let x"})
	if got := must(t, cs, "take_snapshot", map[string]any{"pageId": id}); !strings.Contains(got, `"typed: let x"`) {
		t.Errorf("typing after clicking the editor's input did not reach it:\n%s", got)
	}
	quick, cancel = context.WithTimeout(ctx(t), 4*time.Second)
	defer cancel()
	reply, _ := callIn(t, quick, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, snap, "button", "Ghost")})
	if !strings.Contains(reply, "has no area") {
		t.Errorf("click on an element without area that cannot take focus:\n%s", reply)
	}
}

// stringifyPage replaces what evaluate_script's wrapper used to rely on:
// JSON.stringify returns an object holding 20 MB, setTimeout throws.
const stringifyPage = `<p>page</p><script>
const big = 'x'.repeat(20 << 20);
JSON.stringify = () => ({ length: 0, big });
window.setTimeout = () => { throw new Error('no timers here'); };
window.Promise = function () { throw new Error('no promises here'); };
window.TextEncoder = function () { throw new Error('no encoders here'); };
</script>`

// TestEvaluatePageBuiltins: a page's own JSON.stringify, setTimeout,
// Promise and TextEncoder change nothing to evaluate_script, whose
// machinery was taken before the page's scripts ran: its results are
// serialised and bounded by the browser's own. The calls used to fail
// with a Go decoding error, after the page's JSON.stringify had sent
// 20 MB through the server, and every call failed once setTimeout was
// replaced.
func TestEvaluatePageBuiltins(t *testing.T) {
	t.Parallel()
	_, cs, id := openHTML(t, "Builtins", stringifyPage)
	for _, tc := range []struct{ args map[string]any }{
		{map[string]any{"function": "() => ({ one: 1 })"}},
		{map[string]any{"function": "async () => ({ one: 1 })"}},
		{map[string]any{"function": "() => ({ one: 1 })", "timeout": 5000}},
		{map[string]any{"function": "({ one: 1 })", "format": "script"}},
	} {
		tc.args["pageId"] = id
		reply, _ := call(t, cs, "evaluate_script", tc.args)
		if !strings.Contains(reply, `{"one":1}`) || len(reply) > 1<<10 {
			t.Errorf("evaluate_script(%v) on a page that replaced its built-ins:\n%.2000s", tc.args, reply)
		}
		if strings.Contains(reply, "json:") || strings.Contains(reply, "unmarshal") {
			t.Errorf("a Go decoding error reached the agent:\n%.2000s", reply)
		}
	}
	// A long result is still cut in the page, with the browser's encoder.
	reply := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => 'é'.repeat(3 << 20)"})
	if !strings.Contains(reply, "only the first") || len(reply) > 5<<20 {
		t.Errorf("a long result on that page: %d bytes, %.300s", len(reply), reply)
	}
}
