package transport_test

import (
	"bytes"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// links returns the resource links of a reply.
func links(res *mcp.CallToolResult) []*mcp.ResourceLink {
	var out []*mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			out = append(out, l)
		}
	}
	return out
}

// callRes calls a tool that must succeed and returns its whole result.
func callRes(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s(%v): %v %q", name, args, err, transporttest.Text(res))
	}
	return res
}

// oneLink returns the one resource link of a reply.
func oneLink(t *testing.T, res *mcp.CallToolResult, mime string) *mcp.ResourceLink {
	t.Helper()
	l := links(res)
	if len(l) != 1 {
		t.Fatalf("reply has %d resource links, want 1: %q", len(l), transporttest.Text(res))
	}
	if l[0].MIMEType != mime || l[0].Size == nil || !strings.HasPrefix(l[0].URI, "tabhive://files/") {
		t.Errorf("link %+v, want a tabhive://files/ URI of type %s with a size", l[0], mime)
	}
	return l[0]
}

// read reads a resource as the client session cs, which sees nothing of
// the server's disk.
func read(t *testing.T, cs *mcp.ClientSession, uri string) *mcp.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(ctx(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Fatalf("resources/read %s: %+v", uri, res.Contents)
	}
	return res.Contents[0]
}

// TestFilesAsResourcesOverHTTP: what a tool saves for a session (a
// snapshot with filePath, one over --snapshot-max-bytes, a screenshot, a
// script's result, a request's and a response's bodies) is
// linked in the reply and read back through resources/read by that
// session over HTTP, text as text and images as blobs; resources/list
// lists them; another session can neither list nor read them; they go
// when the session ends.
func TestFilesAsResourcesOverHTTP(t *testing.T) {
	t.Parallel()
	site := resourcesSite(t)
	srv := onSharedBrowser(t, transporttest.Options{Config: transport.Config{SnapshotMaxBytes: 4096}, HTTP: &httpserve.Config{}})
	owner, stranger := srv.Connect(t), srv.Connect(t)
	// Sessions share pages here: the stranger opens it (and closes it
	// when the test ends, after the owner's session has gone).
	id := openPage(t, stranger, site+"/small")
	serverPath := checkSavedSnapshot(t, owner, id)
	checkSavedScreenshot(t, owner, id)
	checkSavedScriptResult(t, owner, id)
	checkSavedBodies(t, owner, id)
	checkOutlinedSnapshot(t, owner, id, site)
	checkResourcesPrivate(t, owner, stranger)

	// The files go with their session.
	if _, err := os.Stat(serverPath); err != nil {
		t.Fatalf("the saved snapshot is not at %s: %v", serverPath, err)
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	if !testwait.Poll(testwait.Timeout, func() bool {
		_, err := os.Stat(filepath.Dir(serverPath))
		return os.IsNotExist(err)
	}) {
		t.Errorf("the ended session's private directory %s is still there", filepath.Dir(serverPath))
	}
}

// resourcesSite serves the pages of TestFilesAsResourcesOverHTTP: a small
// page linking a big one, and /echo, which answers a POST with its body.
func resourcesSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/small", browsertest.HTML("Small", `<a href="/big">Go to the big page</a>`))
	var items strings.Builder
	for i := range 300 {
		fmt.Fprintf(&items, "<li>Item number %d</li>", i)
	}
	mux.Handle("/big", browsertest.HTML("Big", "<h1>Big list</h1><ul>"+items.String()+"</ul>"))
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "got %s", body)
	})
	return browsertest.Serve(t, mux).URL
}

// checkSavedSnapshot saves the snapshot of page id to a file, reads it
// back through its link and returns the file's path on the server.
func checkSavedSnapshot(t *testing.T, owner *mcp.ClientSession, id int) string {
	t.Helper()
	// A snapshot saved with filePath (relative: the private directory).
	inline := must(t, owner, "take_snapshot", map[string]any{"pageId": id})
	saved := callRes(t, owner, "take_snapshot", map[string]any{"pageId": id, "filePath": "snap.txt"})
	snapLink := oneLink(t, saved, "text/plain; charset=utf-8")
	snap := read(t, owner, snapLink.URI)
	if want := strings.TrimPrefix(inline, "## Latest page snapshot\n"); snap.Text != want || len(snap.Blob) != 0 {
		t.Errorf("resources/read of the saved snapshot = %q (blob %d bytes), want the snapshot as text: %q", snap.Text, len(snap.Blob), want)
	}
	if *snapLink.Size != int64(len(snap.Text)) || snapLink.Name != "snap.txt" {
		t.Errorf("link size %d, name %q; want %d, snap.txt", *snapLink.Size, snapLink.Name, len(snap.Text))
	}
	serverPath := strings.TrimSuffix(strings.TrimPrefix(transporttest.Text(saved), "Saved snapshot to "), ".")
	return serverPath
}

// checkSavedScreenshot saves a screenshot of page id, and reads it back.
func checkSavedScreenshot(t *testing.T, owner *mcp.ClientSession, id int) {
	t.Helper()
	// A screenshot saved with filePath is a PNG blob of the page's size;
	// one returned inline writes no file and links nothing.
	plain := callRes(t, owner, "take_screenshot", map[string]any{"pageId": id})
	if len(links(plain)) != 0 {
		t.Errorf("an inline screenshot linked a file: %+v", links(plain))
	}
	shot := callRes(t, owner, "take_screenshot", map[string]any{"pageId": id, "filePath": "shot.png"})
	shotLink := oneLink(t, shot, "image/png")
	blob := read(t, owner, shotLink.URI)
	if blob.Text != "" || blob.MIMEType != "image/png" {
		t.Errorf("screenshot resource: text %q, type %q; want a PNG blob", blob.Text, blob.MIMEType)
	}
	got, _, err := image.DecodeConfig(bytes.NewReader(blob.Blob))
	if err != nil {
		t.Fatalf("the screenshot read back is not a PNG: %v", err)
	}
	var img *mcp.ImageContent
	for _, c := range plain.Content {
		if i, ok := c.(*mcp.ImageContent); ok {
			img = i
		}
	}
	want, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || got.Width != want.Width || got.Height != want.Height {
		t.Errorf("screenshot read back is %dx%d, the inline one %dx%d (%v)", got.Width, got.Height, want.Width, want.Height, err)
	}
	if *shotLink.Size != int64(len(blob.Blob)) {
		t.Errorf("link size %d, blob %d bytes", *shotLink.Size, len(blob.Blob))
	}
}

// checkSavedScriptResult saves a script's result, and reads it back.
func checkSavedScriptResult(t *testing.T, owner *mcp.ClientSession, id int) {
	t.Helper()
	// A script's result saved with filePath is JSON, read back as text.
	result := callRes(t, owner, "evaluate_script", map[string]any{"pageId": id, "filePath": "result.json",
		"function": `async () => ({sent: await (await fetch("/echo", {method: "POST", body: '{"hello":"world"}'})).text()})`})
	if got := read(t, owner, oneLink(t, result, "application/json").URI); got.Text != `{"sent":"got {\"hello\":\"world\"}"}` || len(got.Blob) != 0 {
		t.Errorf("resources/read of the script's result = %q (blob %d bytes)", got.Text, len(got.Blob))
	}
}

// checkSavedBodies saves the bodies of the page's POST to /echo, and
// reads them back.
func checkSavedBodies(t *testing.T, owner *mcp.ClientSession, id int) {
	t.Helper()
	// A request's and its response's bodies saved to files: two links.
	var reqid string
	if !testwait.Poll(testwait.Timeout, func() bool {
		m := regexp.MustCompile(`reqid=(\d+) POST \S+/echo \[200\]`).FindStringSubmatch(must(t, owner, "list_network_requests", map[string]any{"pageId": id}))
		if m != nil {
			reqid = m[1]
		}
		return m != nil
	}) {
		t.Fatal("the POST to /echo is not among the page's requests")
	}
	n, _ := strconv.Atoi(reqid)
	bodies := callRes(t, owner, "get_network_request", map[string]any{"pageId": id, "reqid": n, "requestFilePath": "req", "responseFilePath": "resp"})
	var netLinks []string
	for _, l := range links(bodies) {
		netLinks = append(netLinks, l.URI)
		got := read(t, owner, l.URI)
		var want string
		switch l.Name {
		case "req.network-request":
			want = `{"hello":"world"}`
		case "resp.network-response":
			want = `got {"hello":"world"}`
		}
		// No extension the server knows: the type comes from the bytes.
		if want == "" || got.Text != want || !strings.HasPrefix(got.MIMEType, "text/plain") {
			t.Errorf("resources/read of %s: %q (%s), want %q", l.Name, got.Text, got.MIMEType, want)
		}
	}
	if len(netLinks) != 2 {
		t.Errorf("get_network_request with two files linked %d: %q", len(netLinks), transporttest.Text(bodies))
	}
}

// checkOutlinedSnapshot takes the snapshot of the big page, which the
// server's bound outlines, and reads the whole one back.
func checkOutlinedSnapshot(t *testing.T, owner *mcp.ClientSession, id int, site string) {
	t.Helper()
	// A snapshot over --snapshot-max-bytes: the reply is its outline, the
	// whole snapshot is the linked file.
	must(t, owner, "navigate_page", map[string]any{"pageId": id, "url": site + "/big"})
	outlined := callRes(t, owner, "take_snapshot", map[string]any{"pageId": id})
	if text := transporttest.Text(outlined); !strings.Contains(text, "bound (--snapshot-max-bytes)") {
		t.Fatalf("the big page's snapshot was not outlined: %q", text)
	}
	whole := read(t, owner, oneLink(t, outlined, "text/plain; charset=utf-8").URI)
	if !strings.Contains(whole.Text, `"Item number 0"`) || !strings.Contains(whole.Text, `"Item number 299"`) {
		t.Errorf("the outlined snapshot's file lacks items: %d bytes", len(whole.Text))
	}
}

// checkResourcesPrivate lists the owner's six saved files, which the
// stranger, another session, can neither list nor read.
func checkResourcesPrivate(t *testing.T, owner, stranger *mcp.ClientSession) {
	t.Helper()
	list, err := owner.ListResources(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Resources {
		names = append(names, r.Name)
	}
	if len(list.Resources) != 6 || strings.Join(names[:5], " ") != "snap.txt shot.png result.json req.network-request resp.network-response" || !strings.HasPrefix(names[5], "snapshot-") {
		t.Errorf("resources/list = %q, want snap.txt, shot.png, result.json, the two bodies and the outlined snapshot", names)
	}

	// Another session sees none of them, and cannot read them.
	if l, err := stranger.ListResources(ctx(t), nil); err != nil || len(l.Resources) != 0 {
		t.Errorf("another session's resources/list: %v, %v; want none", l, err)
	}
	for _, r := range list.Resources {
		uri := r.URI
		if _, err := stranger.ReadResource(ctx(t), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "Resource not found") {
			t.Errorf("another session read %s: %v", uri, err)
		}
	}
}
