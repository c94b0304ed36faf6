package recording

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/page/screencast/probe"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestScreencastFlags starts the command with the screencast flags, in
// chrome-devtools-mcp's spellings and tabhive's: the videos have the
// frame rate --screencastFps gives, are made by the ffmpeg
// --experimental-ffmpeg-path names, and may be WebM with
// --experimentalScreencast.
func TestScreencastFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// An ffmpeg that leaves a mark, then runs the real one.
	mark := filepath.Join(dir, "ffmpeg-ran")
	wrapper := filepath.Join(dir, "my-ffmpeg")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\ntouch '"+mark+"'\nexec ffmpeg \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := tabhivetest.Command(t, "--screencastFps", "5", "--experimentalScreencast", "--experimental-ffmpeg-path", wrapper, "--workspace", dir)
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second})
	srv := browsertest.Serve(t, browsertest.HTML("Ticker", `<p id=t>0</p><script>
let n = 0;
setInterval(() => {
  document.getElementById('t').textContent = ++n;
  document.body.style.background = n % 2 ? 'red' : 'blue';
  if (n === 5) document.body.append('Five ticks');
}, 100);
</script>`))
	transporttest.Must(t, cs, "new_page", map[string]any{"url": srv.URL + "/", "timeout": 60000})
	for _, tt := range []struct{ file, video, codec string }{
		{"a.webm", "a.webm", "vp9"},
		{"b", "b.mp4", "h264"},
	} {
		os.Remove(mark)
		video := filepath.Join(dir, tt.video)
		if got := transporttest.Must(t, cs, "screencast_start", map[string]any{"filePath": filepath.Join(dir, tt.file)}); !strings.Contains(got, "saved to "+video+".") {
			t.Errorf("screencast_start(%s) = %q", tt.file, got)
		}
		transporttest.Must(t, cs, "navigate_page", map[string]any{"type": "reload", "timeout": 60000})
		transporttest.Must(t, cs, "wait_for", map[string]any{"text": []string{"Five ticks"}, "timeout": 60000})
		if got := transporttest.Must(t, cs, "screencast_stop", nil); !strings.Contains(got, "saved to "+video+".") {
			t.Errorf("screencast_stop = %q", got)
		}
		info, err := probe.File(transporttest.Context(t), "", video)
		if err != nil {
			t.Fatal(err)
		}
		if info.Codec != tt.codec || info.FPS != 5 || info.Frames < 2 {
			t.Errorf("%s is %d frames of %s at %v fps, want %s at 5 fps", tt.video, info.Frames, info.Codec, info.FPS, tt.codec)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("the ffmpeg of --experimental-ffmpeg-path did not run: %v", err)
		}
	}
}
