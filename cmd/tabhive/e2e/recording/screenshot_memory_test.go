package recording

import (
	"fmt"
	"image/png"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// noisePage is where drawNoise draws random pixels over 1280x4000 CSS
// pixels, which no image encoder compresses: a full-page PNG of it is
// about 15 MB.
const noisePage = `<!doctype html><title>Noise</title><style>html { scrollbar-width: none } body { margin: 0 } canvas { display: block }</style>`

const drawNoise = `async () => {
  for (let i = 0; i < 2; i++) {
    const c = document.createElement('canvas'); c.width = 1280; c.height = 2000; document.body.append(c);
    const g = c.getContext('2d'), img = g.createImageData(1280, 2000), d = new Uint32Array(img.data.buffer);
    for (let j = 0; j < d.length; j += 16384) crypto.getRandomValues(d.subarray(j, j + 16384));
    for (let j = 0; j < d.length; j++) d[j] |= 0xff000000;
    g.putImageData(img, 0, 0);
    await new Promise(r => setTimeout(r));
  }
  return document.documentElement.scrollHeight }`

// procKB reads a field of /proc/PID/status, in KiB.
func procKB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestLargeScreenshotMemoryThroughBinary: a full-page screenshot of about
// 15 MB is streamed from the browser to a file: it is saved whole, and
// the server's resident memory grows by less than the image, not by the
// image several times over (its base64 text, the decoded bytes, their
// copies: 125 MB for 22 MB before streaming; streamed, 6 MB for 15 MB).
// Under the race detector, whose shadow memory grows with every
// allocation, the bound is four times the image (41 MB for 15 MB
// measured), still below what holding it took without the detector.
func TestLargeScreenshotMemoryThroughBinary(t *testing.T) {
	site := browsertest.Serve(t, browsertest.HTML("Noise", noisePage)).URL
	in := tabhivetest.StartHTTP(t)
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site + "/", "timeout": 60000})
	if got := transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": drawNoise, "timeout": 120000}); !strings.Contains(got, "4000") {
		t.Fatalf("noise page: %q", got)
	}
	pid := in.Cmd.Process.Pid
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident size: %v", err)
	}
	before := procKB(t, pid, "VmRSS")
	got, isErr := transporttest.Call(t, cs, "take_screenshot", map[string]any{"fullPage": true})
	peak := procKB(t, pid, "VmHWM")
	t.Logf("full-page screenshot of noise: RSS %d MB before, peak %d MB during (+%d MB): %q", before>>10, peak>>10, (peak-before)>>10, got)
	m := regexp.MustCompile(`Saved screenshot to (\S+)\.`).FindStringSubmatch(got)
	if isErr || m == nil {
		t.Fatalf("take_screenshot = %v %q, want it saved to a file", isErr, got)
	}
	fi, err := os.Stat(m[1])
	if err != nil || fi.Size() < 10<<20 {
		t.Fatalf("saved screenshot: %v, %d bytes; want the whole image", err, fi.Size())
	}
	f, err := os.Open(m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 1280 || cfg.Height != 4000 {
		t.Errorf("saved screenshot: %+v, %v; want a 1280x4000 PNG", cfg, err)
	}
	bound := fi.Size()
	if tabhivetest.RaceEnabled {
		bound *= 4
	}
	if grew := int64(peak-before) << 10; grew > bound {
		t.Errorf("the server's resident memory grew by %d MB for a %d MB screenshot; want it streamed (less than %d MB)", grew>>20, fi.Size()>>20, bound>>20)
	}
}
