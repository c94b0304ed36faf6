package screencast_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page/screencast"
	"github.com/tabhive/tabhive/page/screencast/probe"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// tickerPage, once start() is called, counts up every 100 ms and changes
// colour as it does, so that a recording of it has frames that differ. It
// starts when told rather than at load, so that a test knows the ticks it
// waits for all came after the recording began.
const tickerPage = `<button onclick="document.title='clicked'">Press</button><p id=t>Tick 0</p><script>
let n = 0;
function start() {
  setInterval(() => {
    n++;
    document.getElementById('t').textContent = 'Tick ' + n;
    document.body.style.background = n % 2 ? 'rgb(200,40,40)' : 'rgb(40,40,200)';
    if (n === 8) document.body.append(Object.assign(document.createElement('p'), {textContent: 'Eight ticks'}));
  }, 100);
  return 'ticking';
}
</script>`

// TestScreencast records a page while other tools use it, and decodes the
// video with ffprobe: its frame rate is the configured one, it lasts as
// long as the recording did, and its frames show the page changing.
func TestMain(m *testing.M) { transporttest.Main(m) }

func TestScreencast(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{
		Workspaces: []string{dir},
		Screencast: screencast.Config{FPS: 10, Experimental: true},
	}})
	cs := srv.Connect(t)
	url := browsertest.Serve(t, browsertest.HTML("Ticker", tickerPage)).URL + "/"
	id := transporttest.OpenPage(t, cs, url)

	began := time.Now()
	got := transporttest.Must(t, cs, "screencast_start", map[string]any{"pageId": id, "filePath": filepath.Join(dir, "rec.WEBM")})
	video := filepath.Join(dir, "rec.webm")
	if want := fmt.Sprintf("Screencast recording started. The recording will be saved to %s. Use screencast_stop to stop recording.", video); !strings.Contains(got, want) {
		t.Fatalf("screencast_start =\n%s\nwant it to contain %q", got, want)
	}
	// The ticks begin now, after the recording did (at load, a page that
	// opened quickly had ticked twice before it: a 600 ms video).
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => start()"}); !strings.Contains(got, `"ticking"`) {
		t.Fatalf("start the ticks = %q", got)
	}
	// A second recording of the same page is refused, and makes no file.
	other := filepath.Join(dir, "other.mp4")
	if got, isErr := transporttest.Call(t, cs, "screencast_start", map[string]any{"pageId": id, "filePath": other}); !isErr ||
		got != "Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one." {
		t.Errorf("second screencast_start = %v %q", isErr, got)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("the refused recording made %s", other)
	}
	// The page answers other tools while it records.
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	transporttest.Must(t, cs, "click", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, snap, "button", "Press")})
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => document.title"}); !strings.Contains(got, `"clicked"`) {
		t.Errorf("evaluate_script while recording = %q", got)
	}
	if got, isErr := transporttest.Call(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"Eight ticks"}, "timeout": 60000}); isErr {
		t.Fatalf("wait_for while recording: %s; the page shows %s", got, transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => document.getElementById('t').textContent"}))
	}
	got = transporttest.Must(t, cs, "screencast_stop", map[string]any{"pageId": id})
	elapsed := time.Since(began)
	if want := fmt.Sprintf("The screencast recording has been stopped and saved to %s.", video); !strings.Contains(got, want) {
		t.Errorf("screencast_stop =\n%s\nwant it to contain %q", got, want)
	}

	info, err := probe.File(transporttest.Context(t), "", video)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "vp9" || info.FPS != 10 {
		t.Errorf("video is %s at %v fps, want vp9 at 10", info.Codec, info.FPS)
	}
	// It began before the first tick the test waited for and ended
	// before the stop's reply: at least 0.8 s (eight ticks of 100 ms),
	// at most the time between the calls, with a frame's slack.
	if info.Duration < 800*time.Millisecond || info.Duration > elapsed+200*time.Millisecond {
		t.Errorf("video lasts %v; the recording took %v and saw eight ticks", info.Duration, elapsed)
	}
	if want := int(math.Round(info.Duration.Seconds() * 10)); info.Frames < want-1 || info.Frames > want+1 {
		t.Errorf("video has %d frames over %v at 10 fps, want %d", info.Frames, info.Duration, want)
	}
	if n, err := probe.Distinct(transporttest.Context(t), "", video); err != nil || n < 3 {
		t.Errorf("video has %d distinct frames (%v), want the ticks' changes (3 or more)", n, err)
	}

	// Stopping again, and a recording on a page it no longer records,
	// are each one sentence.
	if got, isErr := transporttest.Call(t, cs, "screencast_stop", map[string]any{"pageId": id}); !isErr || got != "Error: no active screencast recording to stop." {
		t.Errorf("second screencast_stop = %v %q", isErr, got)
	}
}

// TestScreencastBadInput: each refusal is one sentence and makes no file.
func TestScreencastBadInput(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	srv := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{
		Workspaces: []string{dir},
		Screencast: screencast.Config{FPS: 5, Experimental: true},
	}})
	cs := srv.Connect(t)
	url := browsertest.Serve(t, browsertest.HTML("Still", "<p>Still</p>")).URL + "/"
	id := transporttest.OpenPage(t, cs, url)
	closed := transporttest.OpenPage(t, cs, url)
	transporttest.Must(t, cs, "close_page", map[string]any{"pageId": closed})
	noFFmpeg := transporttest.OnShared(t, transporttest.Options{Config: transport.Config{
		Workspaces: []string{dir},
		Screencast: screencast.Config{FFmpeg: filepath.Join(outside, "ffmpeg")},
	}}).Connect(t)
	idNo := transporttest.OpenPage(t, noFFmpeg, url)

	for _, tt := range []struct {
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		want string
		file string
	}{
		{cs, "screencast_start", map[string]any{"pageId": id, "filePath": filepath.Join(outside, "x.mp4")}, "Error: Access denied: path " + filepath.Join(outside, "x.mp4"), filepath.Join(outside, "x.mp4")},
		{cs, "screencast_start", map[string]any{"pageId": id, "filePath": filepath.Join(dir, "x.avi")}, `Error: Unsupported screencast file extension ".avi". Supported formats: .webm, .mp4 (case-insensitive).`, filepath.Join(dir, "x.avi")},
		{cs, "screencast_start", map[string]any{"pageId": closed, "filePath": filepath.Join(dir, "closed.mp4")}, fmt.Sprintf("Error: No page found with id %d.", closed), filepath.Join(dir, "closed.mp4")},
		{cs, "screencast_stop", map[string]any{"pageId": id}, "Error: no active screencast recording to stop.", ""},
		{noFFmpeg, "screencast_start", map[string]any{"pageId": idNo, "filePath": filepath.Join(dir, "none.mp4")}, "Error: ffmpeg is required for screencast recording but was not found: --experimental-ffmpeg-path", filepath.Join(dir, "none.mp4")},
	} {
		got, isErr := transporttest.Call(t, tt.cs, tt.tool, tt.args)
		if !isErr || !strings.HasPrefix(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("%s(%v) = %v %q, want one sentence starting %q", tt.tool, tt.args, isErr, got, tt.want)
		}
		if tt.file != "" {
			if _, err := os.Stat(tt.file); err == nil {
				t.Errorf("%s(%v) made %s", tt.tool, tt.args, tt.file)
			}
		}
	}
	// The refusals changed nothing: the page records, once. Without a
	// filePath the video is a new file in the session's private directory;
	// a still page gives a video of it all the same.
	started := transporttest.Must(t, cs, "screencast_start", map[string]any{"pageId": id})
	m := regexp.MustCompile(`saved to (/\S+/screencast-[0-9a-f]+\.mp4)\. Use`).FindStringSubmatch(started)
	if m == nil {
		t.Fatalf("screencast_start without filePath = %q", started)
	}
	got := transporttest.Must(t, cs, "screencast_stop", map[string]any{"pageId": id})
	info, err := probe.File(transporttest.Context(t), "", m[1])
	if err != nil || info.Codec != "h264" || info.Frames < 1 || info.FPS != 5 {
		t.Errorf("after the refusals: %q, video %+v (%v)", got, info, err)
	}
	os.Remove(m[1])

	// A page closed while it records leaves a finished video.
	closing := transporttest.OpenPage(t, cs, url)
	transporttest.Must(t, cs, "screencast_start", map[string]any{"pageId": closing, "filePath": filepath.Join(dir, "closing.mp4")})
	transporttest.Must(t, cs, "close_page", map[string]any{"pageId": closing})
	// The page's actor finishes the file as it exits, which may be after
	// close_page has replied: wait for a whole video, a minute at most.
	if !testwait.Poll(time.Minute, func() bool {
		info, err = probe.File(transporttest.Context(t), "", filepath.Join(dir, "closing.mp4"))
		return err == nil && info.Codec == "h264" && info.Frames >= 1
	}) {
		t.Fatalf("the video of a page closed while recording: %+v (%v)", info, err)
	}
}
