package screenshot_test

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page/screenshot"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

// client is a client of a server of its own on the shared browser.
func client(t *testing.T, cfg transport.Config) *mcp.ClientSession {
	t.Helper()
	return transporttest.OnShared(t, transporttest.Options{Config: cfg}).Connect(t)
}

// shotFixtures serves the screenshot test pages:
//
//   - /tall is 3000 CSS pixels tall, with a 200×50 "Green box" button below
//     the fold and a "Hidden box" that is not rendered after "Hide it";
//   - /noise is a 1000×1000 canvas of random pixels, whose PNG is over
//     2 MB;
//   - /dialog has a button that opens an alert;
//   - /huge is 100,000 CSS pixels tall, beyond what JPEG and WebP can encode.
func shotFixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/tall", browsertest.HTML("Tall", `<style>html { scrollbar-width: none } body { margin: 0 } button { position: absolute; border: 0; padding: 0 }</style>
<div style="height: 3000px; background: linear-gradient(#fdd, #ddf)"></div>
<button aria-label="Green box" style="top: 1500px; left: 100px; width: 200px; height: 50px; background: green"></button>
<button id=vanish aria-label="Hidden box" style="top: 10px; left: 10px; width: 20px; height: 20px"></button>
<button onclick="vanish.style.display = 'none'" style="top: 40px; left: 10px">Hide it</button>`))
	mux.Handle("/noise", browsertest.HTML("Noise", `<style>body { margin: 0 }</style><canvas id=c width=1000 height=1000 style="display: block"></canvas>
<script>
const ctx = c.getContext('2d'), img = ctx.createImageData(1000, 1000), px = img.data;
for (let i = 0; i < px.length; i += 65536) crypto.getRandomValues(px.subarray(i, i + 65536));
for (let i = 3; i < px.length; i += 4) px[i] = 255;
ctx.putImageData(img, 0, 0);
</script>`))
	mux.Handle("/dialog", browsertest.HTML("Dialog", `<button onclick="alert('shot dialog')">Alert</button>`))
	mux.Handle("/huge", browsertest.HTML("Huge", `<style>html { scrollbar-width: none } body { margin: 0 }</style><div style="height: 100000px; background: linear-gradient(#fdd, #ddf)"></div>`))
	return browsertest.Serve(t, mux).URL
}

// shot is a take_screenshot reply.
type shot struct {
	text   string
	isErr  bool
	images []*mcp.ImageContent
	links  []*mcp.ResourceLink
}

func shotCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) shot {
	t.Helper()
	res, err := cs.CallTool(transporttest.Context(t), &mcp.CallToolParams{Name: "take_screenshot", Arguments: args})
	if err != nil {
		t.Fatalf("take_screenshot(%v): protocol error %v", args, err)
	}
	var r shot
	r.isErr = res.IsError
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			r.text += c.Text
		case *mcp.ImageContent:
			r.images = append(r.images, c)
		case *mcp.ResourceLink:
			r.links = append(r.links, c) // a file the call saved
		default:
			t.Errorf("take_screenshot(%v): unexpected content %T", args, c)
		}
	}
	return r
}

// shotImage calls take_screenshot, which must reply with text and one
// image of type mime, and returns the image's data.
func shotImage(t *testing.T, cs *mcp.ClientSession, args map[string]any, text, mime string) []byte {
	t.Helper()
	r := shotCall(t, cs, args)
	if r.isErr || r.text != text || len(r.images) != 1 {
		t.Fatalf("take_screenshot(%v) = %v, %q, %d image(s); want %q and one image", args, r.isErr, r.text, len(r.images), text)
	}
	if r.images[0].MIMEType != mime {
		t.Errorf("take_screenshot(%v) MIME type %q, want %q", args, r.images[0].MIMEType, mime)
	}
	return r.images[0].Data
}

// shotSize returns the pixel size of a PNG or JPEG.
func shotSize(t *testing.T, data []byte) image.Point {
	t.Helper()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	return image.Pt(cfg.Width, cfg.Height)
}

const viewportLine = "Took a screenshot of the current page's viewport."

func TestScreenshotFormats(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/tall")
	tests := []struct {
		args  map[string]any
		mime  string
		magic string
	}{
		{map[string]any{}, "image/png", "\x89PNG\r\n\x1a\n"},
		{map[string]any{"format": "png"}, "image/png", "\x89PNG\r\n\x1a\n"},
		{map[string]any{"format": "png", "quality": 10}, "image/png", "\x89PNG\r\n\x1a\n"}, // quality ignored
		{map[string]any{"format": "jpeg"}, "image/jpeg", "\xff\xd8\xff"},
		{map[string]any{"format": "jpeg", "quality": 100}, "image/jpeg", "\xff\xd8\xff"},
		{map[string]any{"format": "webp", "quality": 50.5}, "image/webp", "RIFF"},
	}
	sizes := map[string]int{}
	for _, tt := range tests {
		tt.args["pageId"] = id
		data := shotImage(t, cs, tt.args, viewportLine, tt.mime)
		if !bytes.HasPrefix(data, []byte(tt.magic)) || (tt.mime == "image/webp" && !bytes.Equal(data[8:12], []byte("WEBP"))) {
			t.Errorf("take_screenshot(%v) starts % x, want % x", tt.args, data[:min(len(data), 12)], tt.magic)
		}
		sizes[fmt.Sprintf("%v %v", tt.args["format"], tt.args["quality"])] = len(data)
	}
	if sizes["jpeg 100"] <= sizes["jpeg <nil>"] {
		t.Errorf("jpeg at quality 100 is %d bytes, at the default %d: quality not applied", sizes["jpeg 100"], sizes["jpeg <nil>"])
	}
	if sizes["png 10"] != sizes["png <nil>"] {
		t.Errorf("png with quality 10 is %d bytes, without %d: quality not ignored", sizes["png 10"], sizes["png <nil>"])
	}
}

// TestScreenshotFullPageAndElement: the full page is taller than the
// viewport, which it leaves as it was; an element is captured at its box.
func TestScreenshotFullPageAndElement(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/tall")
	viewport := shotSize(t, shotImage(t, cs, map[string]any{"pageId": id}, viewportLine, "image/png"))
	full := shotSize(t, shotImage(t, cs, map[string]any{"pageId": id, "fullPage": true}, "Took a screenshot of the full current page.", "image/png"))
	if full.Y != 3000 || full.Y <= viewport.Y || full.X != viewport.X {
		t.Errorf("full page screenshot is %v, viewport %v; want the viewport's width and 3000 high", full, viewport)
	}
	if after := shotSize(t, shotImage(t, cs, map[string]any{"pageId": id}, viewportLine, "image/png")); after != viewport {
		t.Errorf("viewport after a full page screenshot is %v, was %v", after, viewport)
	}

	uid := transporttest.UIDOf(t, transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Green box")
	el := shotSize(t, shotImage(t, cs, map[string]any{"pageId": id, "uid": uid}, `Took a screenshot of node with uid "`+uid+`".`, "image/png"))
	if el != image.Pt(200, 50) {
		t.Errorf("element screenshot is %v, want 200x50", el)
	}
}

func TestScreenshotErrors(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/tall")
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	box, hidden := transporttest.UIDOf(t, snap, "button", "Green box"), transporttest.UIDOf(t, snap, "button", "Hidden box")
	transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, snap, "button", "Hide it")})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"uid": box, "fullPage": true},
			`Error: Providing both "uid" and "fullPage" is not allowed.`},
		{map[string]any{"quality": 101},
			`Invalid argument "quality" for tool "take_screenshot": expected a number from 0 to 100, got 101.`},
		{map[string]any{"format": "gif"},
			`Invalid argument "format" for tool "take_screenshot": "gif" is not one of "png", "jpeg", "webp".`},
		{map[string]any{"fullpage": true},
			`Unknown argument for tool "take_screenshot": "fullpage". Expected arguments: "format", "quality", "uid", "fullPage", "filePath". Remove it and retry.`},
		{map[string]any{"uid": "999_1"},
			fmt.Sprintf(`Error: Element uid "999_1" not found on page %d. Take a new snapshot (take_snapshot) and use a uid from it.`, id)},
		{map[string]any{"uid": hidden},
			"Error: Element with uid " + hidden + " is not visible: it has no box on the page to take a screenshot of."},
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		if r := shotCall(t, cs, tt.args); !r.isErr || r.text != tt.want || len(r.images) != 0 {
			t.Errorf("take_screenshot(%v) = %v, %q, %d image(s)\nwant error %q", tt.args, r.isErr, r.text, len(r.images), tt.want)
		}
	}
}

// TestScreenshotFiles: filePath writes the image (extension forced to the
// format) where the sandbox allows it and nowhere else.
func TestScreenshotFiles(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/tall")

	dir, err := filepath.EvalSymlinks(t.TempDir()) // inside the OS temp dir: allowed without roots
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "shots", "page.jpeg")
	r := shotCall(t, cs, map[string]any{"pageId": id, "format": "jpeg", "filePath": filepath.Join(dir, "shots", "page.png")})
	if r.isErr || r.text != viewportLine+"\nSaved screenshot to "+want+"." || len(r.images) != 0 {
		t.Errorf("take_screenshot(filePath) = %v, %q, %d image(s); want it saved to %s", r.isErr, r.text, len(r.images), want)
	}
	if len(r.links) != 1 || !strings.HasSuffix(r.links[0].URI, "/page.jpeg") {
		t.Errorf("take_screenshot(filePath) links %s, want one to the saved file", linkURIs(r.links))
	}
	if b, err := os.ReadFile(want); err != nil || !bytes.HasPrefix(b, []byte("\xff\xd8\xff")) {
		t.Errorf("screenshot file: %d bytes, %v; want a JPEG", len(b), err)
	}

	outside := "/tabhive-nowhere/shot.png"
	r = shotCall(t, cs, map[string]any{"pageId": id, "filePath": outside})
	if wantErr := "Error: Access denied: path " + outside + " (canonical: " + outside + ") is not within any of the configured workspace roots. Use a path inside one of them, or inside "; !r.isErr || !strings.HasPrefix(r.text, wantErr) {
		t.Errorf("take_screenshot(filePath outside) = %v, %q\nwant it to start %q", r.isErr, r.text, wantErr)
	}
	if _, err := os.Stat(filepath.Dir(outside)); err == nil {
		t.Errorf("a denied screenshot made %s", filepath.Dir(outside))
	}
}

// TestBigScreenshotFiles: an image of 2 MB or more goes to a file in the
// session's private directory instead of the reply, under a fresh name
// each time, and no directory is made per screenshot; the files stay for
// the agent to read.
func TestBigScreenshotFiles(t *testing.T) {
	t.Parallel()
	cs := client(t, transport.Config{}) // the default sandbox: a private directory only
	noise := transporttest.OpenPage(t, cs, shotFixtures(t)+"/noise")
	big := regexp.MustCompile(`^Took a screenshot of the full current page\.\nSaved screenshot to (/.+/tabhive-files-\d+/session-\d+)/(screenshot-[0-9a-f]+\.png)\.$`)
	var dir, first string
	for i := range 2 {
		r := shotCall(t, cs, map[string]any{"pageId": noise, "fullPage": true})
		m := big.FindStringSubmatch(r.text)
		if r.isErr || m == nil || len(r.images) != 0 {
			t.Fatalf("take_screenshot of a big page = %v, %q, %d image(s); want it saved in the private directory", r.isErr, r.text, len(r.images))
		}
		if i == 0 {
			dir, first = m[1], m[2]
		} else if m[1] != dir || m[2] == first {
			t.Errorf("second big screenshot saved as %s/%s, want another file in %s than %s", m[1], m[2], dir, first)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("private directory %s holds %v (%v), want the two screenshots and nothing else", dir, entries, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			t.Errorf("%s/%s is not a regular file: no directory per screenshot", dir, e.Name())
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, first))
	if err != nil || len(b) < 2_000_000 {
		t.Fatalf("big screenshot file: %d bytes, %v; want 2 MB or more", len(b), err)
	}
	if size := shotSize(t, b); size.X < 1000 || size.Y < 1000 {
		t.Errorf("big screenshot is %v, want the whole 1000x1000 canvas", size)
	}
}

// TestScreenshotTooLarge: a full-page JPEG or WebP of a page taller than
// the format allows fails with a sentence and no image, where Chrome would
// return an empty image.
func TestScreenshotTooLarge(t *testing.T) {
	t.Parallel()
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, shotFixtures(t)+"/huge")
	for _, tt := range []struct{ format, want string }{
		{"jpeg", "Error: The page is 100000 pixels tall; a jpeg screenshot can be at most 65500 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid)."},
		{"webp", "Error: The page is 100000 pixels tall; a webp screenshot can be at most 16383 pixels tall. Use format png, or take a screenshot of the viewport or of one element (uid)."},
	} {
		r := shotCall(t, cs, map[string]any{"pageId": id, "fullPage": true, "format": tt.format})
		if !r.isErr || r.text != tt.want || len(r.images) != 0 {
			t.Errorf("take_screenshot(fullPage, %s) = %v, %q, %d image(s)\nwant error %q", tt.format, r.isErr, r.text, len(r.images), tt.want)
		}
	}
	// The viewport fits; the page package shows the full page in PNG.
	shotImage(t, cs, map[string]any{"pageId": id, "format": "jpeg"}, viewportLine, "image/jpeg")
}

// TestScreenshotConfig: --screenshot-format and --screenshot-quality set the
// defaults, and --screenshot-max-width/height scale images down to fit,
// keeping their aspect ratio. (A device pixel ratio above 1 is covered in
// package page, which can emulate one.)
func TestScreenshotConfig(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	plain := transporttest.ConnectWithTemp(t)
	quality := 100
	limited := client(t, transport.Config{Screenshot: screenshot.Config{Format: "jpeg", Quality: &quality, MaxWidth: 300, MaxHeight: 200}})
	id := transporttest.OpenPage(t, plain, base+"/tall")

	tools, err := limited.ListTools(transporttest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "take_screenshot" && !strings.Contains(fmt.Sprint(tool.InputSchema), `Default is "jpeg"`) {
			t.Errorf("format does not say it defaults to jpeg: %v", tool.InputSchema)
		}
	}

	// fit returns the size a capture of size p is scaled to.
	fit := func(p image.Point) image.Point {
		s := min(300/float64(p.X), 200/float64(p.Y), 1)
		return image.Pt(int(float64(p.X)*s+0.5), int(float64(p.Y)*s+0.5))
	}
	viewport := shotSize(t, shotImage(t, plain, map[string]any{"pageId": id}, viewportLine, "image/png"))
	full := shotSize(t, shotImage(t, plain, map[string]any{"pageId": id, "fullPage": true}, "Took a screenshot of the full current page.", "image/png"))
	uid := transporttest.UIDOf(t, transporttest.Must(t, limited, "take_snapshot", map[string]any{"pageId": id}), "button", "Green box")
	tests := []struct {
		args map[string]any
		text string
		mime string
		want image.Point
	}{
		{map[string]any{}, viewportLine, "image/jpeg", fit(viewport)},
		{map[string]any{"format": "png"}, viewportLine, "image/png", fit(viewport)},
		{map[string]any{"fullPage": true}, "Took a screenshot of the full current page.", "image/jpeg", fit(full)},
		{map[string]any{"uid": uid}, `Took a screenshot of node with uid "` + uid + `".`, "image/jpeg", image.Pt(200, 50)}, // fits already
	}
	for _, tt := range tests {
		tt.args["pageId"] = id
		if got := shotSize(t, shotImage(t, limited, tt.args, tt.text, tt.mime)); got != tt.want {
			t.Errorf("take_screenshot(%v) with max 300x200: %v, want %v", tt.args, got, tt.want)
		}
	}
	// The configured quality is the default: an explicit lower one is smaller.
	def := shotImage(t, limited, map[string]any{"pageId": id}, viewportLine, "image/jpeg")
	low := shotImage(t, limited, map[string]any{"pageId": id, "quality": 5}, viewportLine, "image/jpeg")
	if len(low) >= len(def) {
		t.Errorf("jpeg at quality 5 is %d bytes, at the configured 100 %d", len(low), len(def))
	}
}

// TestScreenshotDialog: with an alert open, take_screenshot fails at once
// with the dialog notice, and works again once the dialog is handled.
func TestScreenshotDialog(t *testing.T) {
	t.Parallel()
	base := shotFixtures(t)
	cs := transporttest.ConnectWithTemp(t)
	id := transporttest.OpenPage(t, cs, base+"/dialog")
	transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "Alert")})
	start := time.Now()
	r := shotCall(t, cs, map[string]any{"pageId": id})
	want := "# Open dialog\nalert: shot dialog.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (alert: shot dialog)."
	if !r.isErr || r.text != want || len(r.images) != 0 {
		t.Errorf("take_screenshot with a dialog open = %v, %q\nwant %q", r.isErr, r.text, want)
	}
	// A guard, not a measurement: a capture the dialog held would run to
	// the tool's 30 s budget; a loaded machine takes seconds for the refusal.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("take_screenshot with a dialog open took %v, want an immediate failure", took)
	}
	transporttest.Must(t, cs, "handle_dialog", map[string]any{"pageId": id, "action": "accept"})
	shotImage(t, cs, map[string]any{"pageId": id}, viewportLine, "image/png")
}

func linkURIs(links []*mcp.ResourceLink) []string {
	var out []string
	for _, l := range links {
		out = append(out, l.URI)
	}
	return out
}
