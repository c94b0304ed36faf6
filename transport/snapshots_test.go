package transport_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// reference is a long reference page: sections of entries, each a heading
// and a description, and a region a button rewrites.
func reference(sections, entries int) string {
	var b strings.Builder
	b.WriteString(`<nav aria-label="Index"><a href="#s0">Start</a></nav><main>`)
	for s := range sections {
		fmt.Fprintf(&b, `<section><h2 id=s%d>Section %d</h2>`, s, s)
		for e := range entries {
			fmt.Fprintf(&b, `<h3>Entry %d.%d</h3><p>Entry %d.%d returns the thing it is given, unchanged, in every case.</p>`, s, e, s, e)
		}
		b.WriteString(`</section>`)
	}
	b.WriteString(`<div role=region aria-label=Result id=result><p>Nothing yet</p></div>
<button onclick="result.innerHTML = '<h2>Done</h2><p>Computed 42.</p>'">Compute</button>
<button onclick="if (confirm('Sure?')) result.innerHTML = '<p>Confirmed</p>'">Ask</button>
</main>`)
	return b.String()
}

// TestSnapshotFindAndClick: on a page over
// 1 MB: finding a named heading with a query and clicking it costs at
// most 8 KB of replies, and works.
func TestSnapshotFindAndClick(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Reference", reference(120, 110)+
		`<h2 id=target onclick="this.textContent='Target clicked'">Target heading</h2>`))
	cs := inMemory(t)
	id := openPage(t, cs, srv.URL+"/")
	size := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => document.documentElement.outerHTML.length"})
	if !strings.Contains(size, "```json\n1") || len(regexp.MustCompile("```json\n(\\d+)").FindStringSubmatch(size)[1]) < 7 {
		t.Fatalf("page is not over 1 MB: %s", size)
	}
	found := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "query": "Target heading"})
	uid := uidOf(t, found, "heading", "Target heading")
	clicked := must(t, cs, "click", map[string]any{"pageId": id, "uid": uid, "includeDiff": true})
	t.Logf("find %d bytes + click %d bytes", len(found), len(clicked))
	if total := len(found) + len(clicked); total > 8<<10 {
		t.Errorf("find and click cost %d bytes, over 8 KB:\n%s\n%s", total, found, clicked)
	}
	if !strings.Contains(clicked, `Target clicked`) {
		t.Errorf("click's diff lacks the change:\n%s", clicked)
	}
}

// TestSnapshotIncludeDiff: after a click that
// changes one region, includeDiff returns at most 5% of the whole
// snapshot's bytes, and the change.
func TestSnapshotIncludeDiff(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Reference", reference(10, 40)))
	cs := inMemory(t)
	id := openPage(t, cs, srv.URL+"/")
	full := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	got := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, full, "button", "Compute"), "includeDiff": true})
	for _, want := range []string{"## Changes since your previous snapshot of this page", `+ uid=`, `heading "Done"`, `"Computed 42."`, `- uid=`, `"Nothing yet"`} {
		if !strings.Contains(got, want) {
			t.Errorf("includeDiff reply lacks %q:\n%s", want, got)
		}
	}
	t.Logf("includeDiff %d bytes of a %d-byte snapshot", len(got), len(full))
	if len(got)*20 > len(full) {
		t.Errorf("includeDiff reply is %d bytes, over 5%% of the snapshot's %d", len(got), len(full))
	}
	if strings.Contains(got, "## Latest page snapshot") {
		t.Errorf("includeDiff sent a whole snapshot:\n%s", got)
	}
	// Nothing changed since: the diff says so.
	if got := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "diff": true}); !strings.Contains(got, "No changes since the previous snapshot") {
		t.Errorf("take_snapshot(diff) after no change:\n%s", got)
	}
	// A dialog: the diff comes once it is handled.
	ask := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, full, "button", "Ask")})
	if !strings.Contains(ask, "# Open dialog") {
		t.Fatalf("click(Ask) opened no dialog:\n%s", ask)
	}
	got = must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept", "includeDiff": true})
	if !strings.Contains(got, `+ uid=`) || !strings.Contains(got, `"Confirmed"`) {
		t.Errorf("handle_dialog(includeDiff) lacks the change:\n%s", got)
	}
}

// TestSnapshotDiffPerSession: the diff is against this session's previous
// snapshot, not the page's latest: another session's snapshot in between
// hides nothing.
func TestSnapshotDiffPerSession(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Two", `<p id=p>Before</p><button onclick="p.textContent='After'">Change</button>`+strings.Repeat(`<p>Unchanged text that makes the diff the smaller reply.</p>`, 30)))
	s := onShared(t, transporttest.Options{})
	a, b := s.Connect(t), s.Connect(t)
	id := openPage(t, a, srv.URL+"/")
	first := must(t, a, "take_snapshot", map[string]any{"pageId": id})
	got, isErr := call(t, b, "take_snapshot", map[string]any{"pageId": id, "diff": true})
	if !isErr || !strings.Contains(got, "This session has no previous snapshot of page") || !strings.Contains(got, "call take_snapshot without diff first") {
		t.Errorf("diff without a previous snapshot in the session = %v:\n%s", isErr, got)
	}
	must(t, b, "click", map[string]any{"pageId": id, "uid": uidOf(t, first, "button", "Change"), "includeSnapshot": true})
	got = must(t, a, "take_snapshot", map[string]any{"pageId": id, "diff": true})
	if !strings.Contains(got, `"After"`) || !strings.Contains(got, `"Before"`) {
		t.Errorf("session a's diff lacks the change session b made:\n%s", got)
	}
	if got := must(t, b, "take_snapshot", map[string]any{"pageId": id, "diff": true}); !strings.Contains(got, "No changes") {
		t.Errorf("session b's diff after its own snapshot:\n%s", got)
	}
}

// TestSnapshotParameters drives each new take_snapshot parameter, and each
// bad input's sentence, over both transports; and the default reply is the
// one it always was.
func TestSnapshotParameters(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Params", reference(3, 3)))
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := openPage(t, cs, srv.URL+"/")
		full := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
		if !strings.HasPrefix(full, "## Latest page snapshot\nuid=") || strings.Contains(full, "nodes below") {
			t.Errorf("default take_snapshot changed:\n%s", full)
		}
		main := regexp.MustCompile(`uid=(\S+) main\n`).FindStringSubmatch(full)[1]
		sub := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "uid": uidOf(t, full, "heading", "Section 1"), "depth": 0})
		if !strings.Contains(sub, "Path: uid=") || !strings.Contains(sub, `heading "Section 1"`) || strings.Contains(sub, "Section 2") {
			t.Errorf("take_snapshot(uid) =\n%s", sub)
		}
		shallow := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "depth": 1})
		if !strings.Contains(shallow, `nodes below: take_snapshot with uid "`+main+`"`) {
			t.Errorf("take_snapshot(depth 1) =\n%s", shallow)
		}
		q := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "query": "/^Entry 2\\.1$/"})
		if !strings.Contains(q, `heading "Entry 2.1"`) || strings.Contains(q, `"Entry 1.1"`) || !strings.Contains(q, "nodes not shown") {
			t.Errorf("take_snapshot(query) =\n%s", q)
		}
		vp := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "inViewport": true})
		if !strings.Contains(vp, `heading "Section 0"`) || strings.Contains(vp, `button "Ask"`) {
			t.Errorf("take_snapshot(inViewport) =\n%s", vp)
		}
		for _, tt := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"uid": "999_9"}, "uid 999_9 is not in page"},
			{map[string]any{"uid": "nope"}, `"nope" is not a uid`},
			{map[string]any{"query": "/a(/"}, `is not a valid regular expression (missing closing ) in "a("); fix it`},
			{map[string]any{"query": strings.Repeat("x", 501)}, "it is 501 characters long, over 500"},
			{map[string]any{"depth": -1}, `Invalid argument "depth" for tool "take_snapshot": expected`},
			{map[string]any{"diff": true, "query": "x"}, "diff compares whole default snapshots"},
			{map[string]any{"inViewport": true, "verbose": true}, "inViewport works on the default snapshot only"},
			{map[string]any{"diff": true, "filePath": "x.txt"}, "diff is sent in the reply, not saved"},
		} {
			tt.args["pageId"] = id
			got, isErr := call(t, cs, "take_snapshot", tt.args)
			if !isErr || !strings.Contains(got, tt.want) || strings.Count(got, "\n") > 0 {
				t.Errorf("take_snapshot(%v) = %v %q, want one sentence with %q", tt.args, isErr, got, tt.want)
			}
		}
	})
}

// TestSnapshotBound: a snapshot over Config.SnapshotMaxBytes is saved to a
// file in the session's private directory and the reply is its outline,
// for take_snapshot and for an input tool's includeSnapshot alike; the
// parts asked for with the new parameters stay under the bound and come
// whole.
func TestSnapshotBound(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Bound", reference(10, 20)+
		`<button onclick="for (let i = 0; i < 200; i++) { const p = document.createElement('p'); p.textContent = 'Added paragraph ' + i; document.body.append(p); }">Grow</button>`))
	cs := onSharedBrowser(t, transporttest.Options{Config: transport.Config{SnapshotMaxBytes: 4096}}).Connect(t)
	id := openPage(t, cs, srv.URL+"/")
	check := func(what, got string) {
		t.Helper()
		if len(got) > 16<<10 {
			t.Errorf("%s: outline reply of %d bytes", what, len(got))
		}
		for _, want := range []string{"over the 4 KB bound (--snapshot-max-bytes): saved to ", "take_snapshot's uid", `heading "Section 9" level="2"`, `navigation "Index"`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", what, want, got)
			}
		}
		m := regexp.MustCompile(`saved to (\S+\.txt)\.`).FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("%s names no file:\n%s", what, got)
		}
		data, err := os.ReadFile(m[1])
		if err != nil || !strings.Contains(string(data), `"Entry 9.19 returns the thing it is given, unchanged, in every case."`) {
			t.Errorf("%s: saved snapshot %s (%d bytes, %v) lacks the page's end", what, m[1], len(data), err)
		}
	}
	check("take_snapshot", must(t, cs, "take_snapshot", map[string]any{"pageId": id}))
	part := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "query": "Compute"})
	if !strings.Contains(part, `button "Compute"`) || strings.Contains(part, "saved to") {
		t.Errorf("a part under the bound is not sent whole:\n%s", part)
	}
	check("click with includeSnapshot", must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, part, "button", "Compute"), "includeSnapshot": true}))

	// A diff over the bound: saved too, with the page's outline.
	grow := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "query": "Grow"})
	got := must(t, cs, "click", map[string]any{"pageId": id, "uid": uidOf(t, grow, "button", "Grow"), "includeDiff": true})
	if !strings.HasPrefix(got, "Successfully clicked on the element\n## Changes since your previous snapshot of this page\nWhat changed is ") || !strings.Contains(got, `navigation "Index"`) {
		t.Errorf("a diff over the bound:\n%s", got)
	}
	m := regexp.MustCompile(`saved to (\S+\.txt)\.`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("a diff over the bound names no file:\n%s", got)
	}
	if data, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(data), `"Added paragraph 199"`) {
		t.Errorf("saved diff %s (%v) lacks the last paragraph added:\n%.300s", m[1], err, data)
	}
}

// snapshotIDs matches the snapshot id of a uid in a reply.
var snapshotIDs = regexp.MustCompile(`(uid=|uid "|uid )(\d+)_(\d+)`)

// stableUIDs writes the snapshot ids of a reply's uids as S1, S2, ... in
// order of first appearance: they count every snapshot of the process, so
// differ from run to run, where the rest of a uid does not.
func stableUIDs(text string) string {
	names := map[string]string{}
	return snapshotIDs.ReplaceAllStringFunc(text, func(m string) string {
		p := snapshotIDs.FindStringSubmatch(m)
		name, ok := names[p[2]]
		if !ok {
			name = fmt.Sprintf("S%d", len(names)+1)
			names[p[2]] = name
		}
		return p[1] + name + "_" + p[3]
	})
}

// TestSnapshotGolden holds the replies of the new parameters byte for byte
// (testdata/replies/snapshot.txtar): the parts, the diffs, the outline.
func TestSnapshotGolden(t *testing.T) {
	t.Parallel()
	srv := browsertest.Serve(t, browsertest.HTML("Golden", reference(3, 2)))
	site := strings.TrimSuffix(srv.URL, "/")
	cs := inMemory(t)
	id := openPage(t, cs, srv.URL+"/")
	full := must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	golden := func(name string, args map[string]any, tool string) string {
		t.Helper()
		args["pageId"] = id
		got, _ := call(t, cs, tool, args)
		checkGolden(t, "snapshot", name, stableUIDs(got), site, "$SITE", fmt.Sprintf("page %d's", id), "page $PAGE's")
		return got
	}
	golden("take_snapshot query", map[string]any{"query": "/^Entry 1\\.1/"}, "take_snapshot")
	golden("take_snapshot query depth 1", map[string]any{"query": "Index", "depth": 1}, "take_snapshot")
	golden("take_snapshot depth 2", map[string]any{"depth": 2}, "take_snapshot")
	golden("take_snapshot uid", map[string]any{"uid": uidOf(t, full, "heading", "Section 2"), "depth": 0}, "take_snapshot")
	golden("take_snapshot diff without change", map[string]any{"diff": true}, "take_snapshot")
	golden("click includeDiff", map[string]any{"uid": uidOf(t, full, "button", "Compute"), "includeDiff": true}, "click")
	golden("take_snapshot unknown uid", map[string]any{"uid": "99999_1"}, "take_snapshot")
	golden("take_snapshot bad regex", map[string]any{"query": "/(/"}, "take_snapshot")
	golden("take_snapshot negative depth", map[string]any{"depth": -2}, "take_snapshot")

	bounded := onSharedBrowser(t, transporttest.Options{Config: transport.Config{SnapshotMaxBytes: 1024}}).Connect(t)
	bid := openPage(t, bounded, srv.URL+"/")
	got := must(t, bounded, "take_snapshot", map[string]any{"pageId": bid})
	got2, _ := call(t, bounded, "take_snapshot", map[string]any{"pageId": bid, "diff": true})
	m := regexp.MustCompile(`saved to (\S+\.txt)\.`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no file named:\n%s", got)
	}
	// The snapshot's size counts its uids' digits, which grow with the
	// page ids other tests have taken on the shared browser: 1.1 or 1.2 KB.
	got = regexp.MustCompile(`The snapshot is [\d.]+ KB`).ReplaceAllString(got, "The snapshot is $$SIZE KB")
	checkGolden(t, "snapshot", "take_snapshot over the bound", stableUIDs(got), m[1], "$FILE", site, "$SITE")
	checkGolden(t, "snapshot", "take_snapshot diff after an outline", stableUIDs(got2), site, "$SITE")
}
