package lighthouse

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// lighthouseFixture has three accessibility failures Lighthouse finds: an
// image without alt text, a button without a name, and grey text on white.
const lighthouseFixture = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Audit fixture</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A page with known accessibility failures.">
</head><body>
<main>
<h1>Audit fixture</h1>
<img id="noalt" src="/pixel.png" width="10" height="10">
<button id="noname"></button>
<p id="faint" style="color:#ddd;background:#fff">Text too faint to read.</p>
</main>
</body></html>`

// TestLighthouseThroughBinary audits a fixture page through the binary
// with the real Lighthouse CLI: the reply lists the category scores and the
// known failures with their elements, both reports land in the sandbox,
// another tab's page, audited at the same time, appears nowhere in them,
// and the page's own emulation is back afterwards.
func TestLighthouseThroughBinary(t *testing.T) {
	if _, err := exec.LookPath("lighthouse"); err != nil {
		t.Skip("lighthouse_audit needs the Lighthouse CLI on PATH (npm install -g lighthouse@12.8.2); it is not there")
	}
	t.Parallel()
	site := serveAuditSite(t)
	work := t.TempDir()
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: tabhivetest.Command(t, "--workspace", work, "--experimental-structured-content")})

	url := site + "/audit.html"
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": url, "timeout": tabhivetest.PageLoadTimeout})
	// Another tab, which the audit must never see.
	transporttest.Must(t, cs, "new_page", map[string]any{"url": site + "/other-agents-secret.html", "timeout": tabhivetest.PageLoadTimeout})
	// The audited page emulates a viewport of its own, which Lighthouse's
	// screen emulation replaces while it runs.
	transporttest.Must(t, cs, "emulate", map[string]any{"pageId": 1, "viewport": "800x600x1"})

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pageId": 1, "mode": "timespan"}, "mode"},
		{map[string]any{"pageId": 1, "outputDirPath": "/etc/tabhive-lighthouse"}, "Access denied"},
	} {
		got, isErr := transporttest.Call(t, cs, "lighthouse_audit", tt.args)
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("lighthouse_audit %v = %v %q, want one sentence with %q", tt.args, isErr, got, tt.want)
		}
	}

	out := filepath.Join(work, "reports")
	auditBothTabs(t, cs, site, out)
	checkSnapshotAudit(t, cs, url)

	// The page emulates its own viewport again, and still answers.
	if size := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": 1, "function": "() => innerWidth + 'x' + innerHeight"}); !strings.Contains(size, `"800x600"`) {
		t.Errorf("after the audit the page's viewport is not its own 800x600:\n%s", size)
	}
	// The other tab still shows its own page.
	if pages := transporttest.Must(t, cs, "list_pages", nil); !strings.Contains(pages, "other-agents-secret.html") {
		t.Errorf("list_pages after the audit:\n%s", pages)
	}
	checkDialogRefusesAudit(t, cs, site)
}

// auditMux serves the audited fixture (/audit.html) and its image
// (/pixel.png); each test adds its own pages to it.
func auditMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/audit.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(lighthouseFixture))
	})
	mux.HandleFunc("/pixel.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pixelPNG)
	})
	return mux
}

// serveAuditSite serves the fixture, its image, another agent's page and
// a page that opens an alert, and returns the site's URL.
func serveAuditSite(t *testing.T) string {
	mux := auditMux()
	mux.HandleFunc("/other-agents-secret.html", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><title>other agent's page</title><p>private`))
	})
	mux.HandleFunc("/dialog.html", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><title>dialog</title><button onclick="alert('hello')">Alert</button>`))
	})
	return browsertest.Serve(t, mux).URL
}

// auditBothTabs audits the fixture (page 1, on a desktop, into out) and
// the other tab (page 2, on a phone, into the session's private
// directory) at the same time: both audits run, and neither sees the
// other's page.
func auditBothTabs(t *testing.T, cs *mcp.ClientSession, site, out string) {
	t.Helper()
	url := site + "/audit.html"
	var other string
	var otherErr bool
	var otherFail error
	done := make(chan struct{})
	go func() {
		defer close(done)
		other, otherErr, otherFail = tabhivetest.SlowCall(cs, "lighthouse_audit", map[string]any{"pageId": 2, "device": "mobile"})
	}()
	actx, cancel := context.WithTimeout(context.Background(), tabhivetest.SlowCallTimeout)
	defer cancel()
	res, err := cs.CallTool(actx, &mcp.CallToolParams{Name: "lighthouse_audit", Arguments: map[string]any{"pageId": 1, "device": "desktop", "outputDirPath": out}})
	if err != nil {
		t.Fatal(err)
	}
	got := transporttest.Text(res)
	if res.IsError {
		t.Fatalf("lighthouse_audit failed:\n%s", got)
	}
	<-done
	checkStructuredResult(t, res, url)
	if otherFail != nil || otherErr || !strings.Contains(other, "Device: mobile\nURL: "+site+"/other-agents-secret.html\n") {
		t.Errorf("the other tab's audit, at the same time: %v %v\n%s", otherFail, otherErr, other)
	}
	if m := regexp.MustCompile(`### Reports\n- (\S+\.json)\n- (\S+\.html)`).FindStringSubmatch(other); m == nil {
		t.Errorf("the other tab's audit names no reports:\n%s", other)
	} else {
		for _, p := range m[1:] {
			b, err := os.ReadFile(p)
			if err != nil || strings.Contains(string(b), "/audit.html") {
				t.Errorf("the other tab's report %s: %v, or it names the first tab's page", p, err)
			}
		}
	}
	checkAuditReply(t, got, url, out)
	checkReports(t, out, url)
}

// checkStructuredResult: with --experimental-structured-content, the
// result as upstream's lighthouseResult too.
func checkStructuredResult(t *testing.T, res *mcp.CallToolResult, url string) {
	t.Helper()
	var sc struct {
		LighthouseResult struct {
			Summary struct {
				Mode, Device, URL string
				Scores            []struct{ ID string }
				Audits            struct{ Failed, Passed int }
			}
			FailedAudits []struct {
				ID         string
				TotalNodes int
			}
			Reports []string
		}
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &sc)
	if lr := sc.LighthouseResult; lr.Summary.Mode != "navigation" || lr.Summary.URL != url || len(lr.Summary.Scores) != 3 ||
		lr.Summary.Audits.Failed != len(lr.FailedAudits) || lr.Summary.Audits.Passed == 0 || len(lr.Reports) != 2 {
		t.Errorf("structuredContent.lighthouseResult = %s", raw)
	}
}

// checkAuditReply: the fixture's audit reply lists the scores, the three
// known failures with their elements, and the reports saved in out, and
// names no other tab's page.
func checkAuditReply(t *testing.T, got, url, out string) {
	t.Helper()
	for _, want := range []string{
		"## Lighthouse audit results\nMode: navigation\nDevice: desktop\nURL: " + url + "\n### Category scores\n",
		"(seo)\n", "(best-practices)\n",
		"### Audit summary\nPassed: ",
		"### Failed audits\n",
		"- image-alt [accessibility, seo]: ",
		`img#noalt"`,
		"- button-name [accessibility]: ",
		`button#noname"`,
		"- color-contrast [accessibility]: ",
		`p#faint"`,
		"### Reports\n- " + filepath.Join(out, "report.json") + "\n- " + filepath.Join(out, "report.html"),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the reply lacks %q:\n%s", want, got)
		}
	}
	m := regexp.MustCompile(`- Accessibility: (\d+) \(accessibility\)`).FindStringSubmatch(got)
	if m == nil || m[1] == "100" || m[1] == "0" {
		t.Errorf("the accessibility score is not that of a page with three failures:\n%s", got)
	}
	if strings.Contains(got, "other-agents-secret") {
		t.Errorf("the reply names another tab's page:\n%s", got)
	}
}

// checkReports: report.json and report.html in out are the fixture's
// audit, and name no other tab's page.
func checkReports(t *testing.T, out, url string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lhr struct {
		FinalDisplayedURL string                     `json:"finalDisplayedUrl"`
		Categories        map[string]json.RawMessage `json:"categories"`
		Audits            map[string]struct {
			Score *float64 `json:"score"`
		} `json:"audits"`
	}
	if err := json.Unmarshal(raw, &lhr); err != nil {
		t.Fatalf("report.json does not parse: %v", err)
	}
	if lhr.FinalDisplayedURL != url || lhr.Categories["accessibility"] == nil {
		t.Errorf("report.json: url %q, categories %v", lhr.FinalDisplayedURL, len(lhr.Categories))
	}
	if a := lhr.Audits["image-alt"]; a.Score == nil || *a.Score != 0 {
		t.Errorf("report.json: image-alt did not fail")
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), "<html") {
		t.Errorf("report.html: %v, has <html: %v", err, strings.Contains(string(html), "<html"))
	}
	for name, b := range map[string][]byte{"report.json": raw, "report.html": html} {
		if strings.Contains(string(b), "other-agents-secret") {
			t.Errorf("%s names another tab's page", name)
		}
	}
}

// checkSnapshotAudit: snapshot mode audits the page as it is, without
// reloading it: what a script left in the page is still there afterwards.
func checkSnapshotAudit(t *testing.T, cs *mcp.ClientSession, url string) {
	t.Helper()
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": 1, "function": "() => { window.__notReloaded = 'kept'; document.title = 'Changed by the agent' }"})
	snap := transporttest.Must(t, cs, "lighthouse_audit", map[string]any{"pageId": 1, "mode": "snapshot"})
	for _, want := range []string{"Mode: snapshot\nDevice: desktop\nURL: " + url + "\n", "- image-alt [accessibility, seo]: ", `button#noname"`, "### Reports\n- "} {
		if !strings.Contains(snap, want) {
			t.Errorf("the snapshot audit's reply lacks %q:\n%s", want, snap)
		}
	}
	if kept := transporttest.Must(t, cs, "evaluate_script", map[string]any{"pageId": 1, "function": "() => window.__notReloaded + ' ' + document.title"}); !strings.Contains(kept, "kept Changed by the agent") {
		t.Errorf("after a snapshot audit the page was reloaded: %s", kept)
	}
}

// checkDialogRefusesAudit: a page with a dialog open is not audited: the
// usual sentence.
func checkDialogRefusesAudit(t *testing.T, cs *mcp.ClientSession, site string) {
	t.Helper()
	transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": 2, "url": site + "/dialog.html", "timeout": tabhivetest.PageLoadTimeout})
	button := regexp.MustCompile(`uid=(\S+) button "Alert"`).FindStringSubmatch(transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": 2}))
	if button == nil {
		t.Fatal("no button in the snapshot")
	}
	if got := transporttest.Must(t, cs, "click", map[string]any{"pageId": 2, "uid": button[1]}); !strings.Contains(got, "# Open dialog") {
		t.Fatalf("click on the alert button: %q", got)
	}
	if got, isErr := transporttest.Call(t, cs, "lighthouse_audit", map[string]any{"pageId": 2}); !isErr || !strings.Contains(got, "dialog") || strings.Count(got, "\n") > 3 {
		t.Errorf("lighthouse_audit with a dialog open = %v %q", isErr, got)
	}
}

// TestLighthouseWithoutCLI: without Lighthouse, nor npm to install it,
// on PATH the tool stays listed and answers one sentence saying what to
// install.
func TestLighthouseWithoutCLI(t *testing.T) {
	t.Parallel()
	site := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><title>x</title><p>x`))
	})).URL
	cmd := tabhivetest.Command(t)
	cmd.Env = append(cmd.Env, "PATH="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	cs := transporttest.Dial(t, &mcp.CommandTransport{Command: cmd})
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": site, "timeout": tabhivetest.PageLoadTimeout})
	got, isErr := transporttest.Call(t, cs, "lighthouse_audit", nil)
	if !isErr || !strings.Contains(got, "install Node.js with npm") || !strings.Contains(got, "npm install -g lighthouse@12.8.2") || strings.Contains(got, "\n") {
		t.Errorf("lighthouse_audit without the CLI = %v %q", isErr, got)
	}
}

// pixelPNG is a 1x1 white PNG.
var pixelPNG = func() []byte {
	img := image.NewGray(image.Rect(0, 0, 1, 1))
	img.Pix[0] = 0xff
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}()
