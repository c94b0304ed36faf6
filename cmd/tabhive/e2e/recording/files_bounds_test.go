package recording

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page/screencast/probe"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// fifoCallWait bounds a call given a FIFO as its file: refused, it returns
// as fast as the same call with a regular file (a second or two on a
// loaded machine); one that opened the FIFO to write waited for a reader
// that never came, past its budget and for ever.
const fifoCallWait = 25 * time.Second

// callWithin calls a tool and fails the test unless the reply comes within
// fifoCallWait. It returns the reply's text and whether it is an error.
func callWithin(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	cctx, cancel := context.WithTimeout(transporttest.Context(t), fifoCallWait)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): no reply within %v: %v", name, args, time.Since(start).Round(time.Millisecond), err)
	}
	return transporttest.Text(res), res.IsError
}

// TestFIFOThroughBinary: a FIFO planted in a workspace where take_snapshot,
// take_screenshot and save_pdf are told to write, or evaluate_script to
// read its source, is refused at once with a sentence saying what it is;
// the page goes on working, and SIGTERM still ends the server promptly
// (each call hung past its budget, the page stayed wedged, and
// the server once ignored SIGTERM for 12 minutes).
func TestFIFOThroughBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"snap.txt", "shot.png", "doc.pdf", "script.js"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	in := tabhivetest.StartHTTP(t, "--workspace", dir, "--drain-timeout", "0")
	cs := in.Client(nil)
	srv := browsertest.Serve(t, browsertest.HTML("Pipes", `<h1>Pipes</h1><button>Go</button>`))
	transporttest.Must(t, cs, "new_page", map[string]any{"url": srv.URL + "/", "timeout": 60000})

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"take_snapshot", map[string]any{"filePath": filepath.Join(dir, "snap.txt")}},
		{"take_screenshot", map[string]any{"filePath": filepath.Join(dir, "shot.png")}},
		{"save_pdf", map[string]any{"filePath": filepath.Join(dir, "doc.pdf")}},
		{"evaluate_script", map[string]any{"sourcePath": filepath.Join(dir, "script.js")}},
	} {
		got, isErr := callWithin(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(got, "is a named pipe (FIFO)") || !strings.Contains(got, "regular file") {
			t.Errorf("%s at a FIFO = %v %q, want an error saying it is a FIFO", c.tool, isErr, got)
		}
		t.Logf("%s: %s", c.tool, got)
		// The page answers its next call, with a file too.
		if got, isErr := callWithin(t, cs, "take_snapshot", map[string]any{"filePath": filepath.Join(dir, "after-"+c.tool+".txt")}); isErr || !strings.Contains(got, "Saved snapshot to") {
			t.Errorf("take_snapshot after %s at a FIFO = %v %q", c.tool, isErr, got)
		}
	}
	for _, name := range []string{"snap.txt", "shot.png", "doc.pdf"} {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer the FIFO: %v", name, err)
		}
	}
	start := time.Now()
	if err := in.Stop(); err != nil {
		t.Error(err)
	}
	t.Logf("exit after SIGTERM took %v", time.Since(start).Round(time.Millisecond))
}

// TestMaxSessionDiskThroughBinary: with --max-session-disk 10MB, a
// session's write that would take its files past 10 MiB is refused with a
// sentence that says what to do, and leaves no partial file; deleting a
// file gives its room back; another session has a bound of its own
// (one session wrote 1.2 GB in 72 s).
func TestMaxSessionDiskThroughBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := tabhivetest.StartHTTP(t, "--workspace", dir, "--max-session-disk", "10MB")
	a, b := in.Client(nil), in.Client(nil)
	srv := browsertest.Serve(t, browsertest.HTML("Disk", `<p>Disk</p>`))
	transporttest.Must(t, a, "new_page", map[string]any{"url": srv.URL + "/", "timeout": 60000})
	pageID := 2
	// 6 MiB of JSON (a string of 6 MiB less its quotes).
	big := map[string]any{"function": "() => 'x'.repeat(6 * 1024 * 1024 - 2)", "pageId": pageID, "timeout": 60000}
	write := func(cs *mcp.ClientSession, name string) (string, bool) {
		t.Helper()
		args := map[string]any{"filePath": filepath.Join(dir, name)}
		for k, v := range big {
			args[k] = v
		}
		return transporttest.Call(t, cs, "evaluate_script", args)
	}
	if got, isErr := write(a, "one.json"); isErr {
		t.Fatalf("the first 6 MiB: %s", got)
	}
	got, isErr := write(a, "two.json")
	if !isErr || !strings.Contains(got, "past their bound of 10 MiB (--max-session-disk") || !strings.Contains(got, "Delete files the session wrote") {
		t.Errorf("a write past the bound = %v %q, want an error naming --max-session-disk and what to do", isErr, got)
	}
	t.Logf("refused: %s", got)
	if _, err := os.Lstat(filepath.Join(dir, "two.json")); err == nil {
		t.Error("the refused write left a partial file")
	}
	if fi, err := os.Stat(filepath.Join(dir, "one.json")); err != nil || fi.Size() != 6<<20 {
		t.Errorf("the first file was touched: %v, %v", fi, err)
	}
	// Another session's files are its own to bound.
	if got, isErr := write(b, "three.json"); isErr {
		t.Errorf("another session's first 6 MiB: %s", got)
	}
	// Deleting a file gives its room back.
	if err := os.Remove(filepath.Join(dir, "one.json")); err != nil {
		t.Fatal(err)
	}
	if got, isErr := write(a, "two.json"); isErr {
		t.Errorf("after deleting a file: %s", got)
	}
}

// screencastEnded waits until screencast_start says the page's recording
// has ended on its own, and returns what it says. A recording still
// running is "already in progress"; the bounds end it within seconds (a
// minute or two at load 25 on 2 cores), and the wait gives up after five
// minutes.
func screencastEnded(t *testing.T, cs *mcp.ClientSession, pageID int, video string) string {
	t.Helper()
	var got string
	if !testwait.Poll(5*time.Minute, func() bool {
		got, _ = transporttest.Call(t, cs, "screencast_start", map[string]any{"pageId": pageID})
		if strings.Contains(got, "has ended on its own") {
			return true
		}
		if !strings.Contains(got, "already in progress") {
			t.Fatalf("screencast_start while recording = %q", got)
		}
		return false
	}) {
		size := int64(-1)
		if fi, err := os.Stat(video); err == nil {
			size = fi.Size()
		}
		t.Fatalf("the recording did not end on its own within 5 minutes (its file holds %d bytes)", size)
	}
	return got
}

// TestScreencastBoundsThroughBinary: a screencast ends on its own at
// --screencast-max-duration, and before the session's files pass
// --max-session-disk; either way the video is finished (ffprobe decodes
// it), screencast_stop says it ended and why, and with the disk bound the
// session's next large write is refused (screencasts had no
// bound of duration or size).
func TestScreencastBoundsThroughBinary(t *testing.T) {
	t.Parallel()
	t.Run("duration", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		in := tabhivetest.StartHTTP(t, "--workspace", dir, "--screencast-max-duration", "2s", "--screencast-fps", "10")
		cs := in.Client(nil)
		srv := browsertest.Serve(t, browsertest.HTML("Ticker", `<p id=t>0</p><script>
let n = 0;
setInterval(() => { document.getElementById('t').textContent = ++n; }, 100);
</script>`))
		transporttest.Must(t, cs, "new_page", map[string]any{"url": srv.URL + "/", "timeout": 60000})
		video := filepath.Join(dir, "d.mp4")
		transporttest.Must(t, cs, "screencast_start", map[string]any{"filePath": video, "pageId": 2})
		if got := screencastEnded(t, cs, 2, video); !strings.Contains(got, "--screencast-max-duration") || !strings.Contains(got, video) {
			t.Errorf("screencast_start after the bound = %q, want the bound and the video named", got)
		}
		got := transporttest.Must(t, cs, "screencast_stop", map[string]any{"pageId": 2})
		if !strings.Contains(got, "saved to "+video) || !strings.Contains(got, "It had ended on its own") || !strings.Contains(got, "it reached 2s, the longest a recording may last (--screencast-max-duration)") {
			t.Errorf("screencast_stop = %q", got)
		}
		info, err := probe.File(transporttest.Context(t), "", video)
		if err != nil {
			t.Fatal(err)
		}
		if info.Frames == 0 || info.Frames > 20 || info.Duration > 2100*time.Millisecond {
			t.Errorf("the video is %d frames, %v, want at most 20 and 2s", info.Frames, info.Duration)
		}
	})
	t.Run("disk", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		in := tabhivetest.StartHTTP(t, "--workspace", dir, "--max-session-disk", "12MB", "--screencast-fps", "10")
		cs := in.Client(nil)
		// A canvas of noise, drawn anew at each frame: a video no encoder
		// can make small.
		srv := browsertest.Serve(t, browsertest.HTML("Noise", `<canvas width=1280 height=720 style="display:block"></canvas><script>
const c = document.querySelector('canvas').getContext('2d');
const img = c.createImageData(1280, 720);
function draw() {
  const d = new Uint32Array(img.data.buffer);
  for (let i = 0; i < d.length; i++) d[i] = (Math.random() * 0xffffffff) | 0xff000000;
  c.putImageData(img, 0, 0);
  requestAnimationFrame(draw);
}
draw();
</script>`))
		transporttest.Must(t, cs, "new_page", map[string]any{"url": srv.URL + "/", "timeout": 60000})
		// 4 MiB of other files: the recording starts with 8 MiB left,
		// the least it needs, and ends 4 MiB short of the bound.
		transporttest.Must(t, cs, "evaluate_script", map[string]any{
			"function": "() => 'x'.repeat(4 * 1024 * 1024 - 2)", "filePath": filepath.Join(dir, "before.json"), "pageId": 2, "timeout": 60000})
		video := filepath.Join(dir, "n.mp4")
		transporttest.Must(t, cs, "screencast_start", map[string]any{"filePath": video, "pageId": 2})
		screencastEnded(t, cs, 2, video)
		got := transporttest.Must(t, cs, "screencast_stop", map[string]any{"pageId": 2})
		if !strings.Contains(got, "saved to "+video) || !strings.Contains(got, "neared their bound of 12 MiB (--max-session-disk)") {
			t.Errorf("screencast_stop = %q", got)
		}
		fi, err := os.Stat(video)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 8<<20 {
			t.Errorf("the video holds %d bytes, past the 8 MiB the session's 12 MiB left it", fi.Size())
		}
		info, err := probe.File(transporttest.Context(t), "", video)
		if err != nil {
			t.Fatal(err)
		}
		if info.Frames == 0 {
			t.Error("the video has no frame")
		}
		t.Logf("video: %d bytes, %d frames, %v", fi.Size(), info.Frames, info.Duration)
		// What the video left is too little for 6 MiB more.
		got, isErr := transporttest.Call(t, cs, "evaluate_script", map[string]any{
			"function": "() => 'x'.repeat(6 * 1024 * 1024)", "filePath": filepath.Join(dir, "after.json"), "pageId": 2})
		if !isErr || !strings.Contains(got, "--max-session-disk") {
			t.Errorf("6 MiB after the video = %v %q, want it refused", isErr, got)
		}
	})
}
