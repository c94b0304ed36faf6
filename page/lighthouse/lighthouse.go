// Package lighthouse runs the Lighthouse CLI (an optional external tool,
// npm's `lighthouse`, like ffmpeg is for screencasts) against a DevTools
// endpoint and reads its report.
//
// tabhive runs no JavaScript runtime of its own: the CLI is found on PATH
// (or at a path the operator gives) and run as a child process, which is
// killed when the call's context ends. It writes its JSON and HTML
// reports into a private directory of its own; the caller copies them
// where they belong.
package lighthouse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrNoCLI is returned when the lighthouse binary cannot be found.
var ErrNoCLI = errors.New("lighthouse CLI not found")

// Find returns the path of the lighthouse binary bin (a path, or a name
// on PATH; if empty, "lighthouse"), or an error wrapping [ErrNoCLI].
func Find(bin string) (string, error) {
	if bin == "" {
		bin = "lighthouse"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrNoCLI, bin)
	}
	return path, nil
}

// Categories are the categories an audit asks for, as chrome-devtools-mcp
// does (it leaves performance to traces). A Lighthouse that lacks one
// (agentic-browsing is newer than 12.x) skips it.
var Categories = []string{"accessibility", "seo", "best-practices", "agentic-browsing"}

// Device is an emulated device: Lighthouse's form factor, screen and user
// agent, as chrome-devtools-mcp passes them.
type Device struct {
	FormFactor        string
	Mobile            bool
	Width, Height     int
	DeviceScaleFactor float64
	UserAgent         string
}

// Devices are the devices lighthouse_audit offers. The user agents are
// Lighthouse's own (its constants.userAgents), which chrome-devtools-mcp
// mirrors.
var Devices = map[string]Device{
	"desktop": {FormFactor: "desktop", Width: 1350, Height: 940, DeviceScaleFactor: 1,
		UserAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/136.0.0.0 Safari/537.36"},
	"mobile": {FormFactor: "mobile", Mobile: true, Width: 412, Height: 823, DeviceScaleFactor: 1.75,
		UserAgent: "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/136.0.0.0 Mobile Safari/537.36"},
}

// MaxWaitForLoad is how long Lighthouse waits for the page to load, as
// upstream.
const MaxWaitForLoad = 30 * time.Second

// Options say what to audit.
type Options struct {
	// Bin is the lighthouse binary (see [Find]).
	Bin string
	// Port is the DevTools endpoint's port on 127.0.0.1.
	Port int
	// URL is the page to load and audit.
	URL    string
	Device Device
	// Dir is an empty private directory for the reports.
	Dir string
	// Env, if non-nil, is the CLI's environment.
	Env []string
}

// Output is a finished run: the report, and the reports' files in Dir.
type Output struct {
	Report   *Report
	JSONPath string
	HTMLPath string
}

// Args returns the CLI's arguments for o.
func Args(o Options) []string {
	d := o.Device
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	args := []string{
		o.URL,
		"--port=" + strconv.Itoa(o.Port),
		"--hostname=127.0.0.1",
		// The agent's cookies, storage and caches are its logged-in state:
		// the audit must not clear them.
		"--disable-storage-reset",
		"--only-categories=" + strings.Join(Categories, ","),
		"--output=json", "--output=html",
		"--output-path=" + filepath.Join(o.Dir, "lighthouse"),
		"--max-wait-for-load=" + strconv.Itoa(int(MaxWaitForLoad/time.Millisecond)),
		"--form-factor=" + d.FormFactor,
		"--screenEmulation.mobile=" + strconv.FormatBool(d.Mobile),
		"--screenEmulation.width=" + strconv.Itoa(d.Width),
		"--screenEmulation.height=" + strconv.Itoa(d.Height),
		"--screenEmulation.deviceScaleFactor=" + f(d.DeviceScaleFactor),
		"--screenEmulation.disabled=false",
		"--emulatedUserAgent=" + d.UserAgent,
		// Chrome paints no background tab, and an agent's tab is often
		// one: Lighthouse's full-page screenshot would wait for a frame
		// that never comes, until its protocol timeout fails the audit.
		// Bringing the tab to the front would send another agent's to
		// the back mid-work. The scores do not use the screenshot.
		"--disable-full-page-screenshot",
		"--quiet",
	}
	return args
}

// maxStderr bounds what is kept of the CLI's complaints.
const maxStderr = 8 << 10

// Run runs the CLI and reads its JSON report. The process is killed when
// ctx ends.
func Run(ctx context.Context, o Options) (*Output, error) {
	cmd := exec.CommandContext(ctx, o.Bin, Args(o)...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: maxStderr}
	cmd.Stdout = nil
	// Node may leave the pipes to a child it started: stop waiting for
	// them soon after the CLI itself exits or is killed.
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &CLIError{Reason: lastLine(stderr.String()), Err: err}
	}
	out := &Output{
		JSONPath: filepath.Join(o.Dir, "lighthouse.report.json"),
		HTMLPath: filepath.Join(o.Dir, "lighthouse.report.html"),
	}
	b, err := os.ReadFile(out.JSONPath)
	if err != nil {
		return nil, fmt.Errorf("read lighthouse's report: %w", err)
	}
	out.Report, err = Parse(b)
	if err != nil {
		return nil, err
	}
	if e := out.Report.RuntimeError; e != nil && e.Code != "" {
		return out, &CLIError{Reason: e.Message}
	}
	return out, nil
}

// CLIError is a run the CLI itself failed: Reason is what it said.
type CLIError struct {
	Reason string
	Err    error // the exit status, if it failed
}

func (e *CLIError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("lighthouse failed: %v", e.Err)
	}
	return "lighthouse failed: " + e.Reason
}

func (e *CLIError) Unwrap() error { return e.Err }

// limited keeps the first n bytes written to it.
type limited struct {
	w *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Report is what tabhive reads of Lighthouse's JSON report (its "LHR").
type Report struct {
	LighthouseVersion string                `json:"lighthouseVersion"`
	FinalDisplayedURL string                `json:"finalDisplayedUrl"`
	Categories        map[string]*Category  `json:"categories"`
	Audits            map[string]*AuditItem `json:"audits"`
	Timing            struct {
		Total float64 `json:"total"`
	} `json:"timing"`
	RuntimeError *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"runtimeError"`
	// categoryOrder is the categories' order in the report.
	categoryOrder []string
	auditOrder    []string
}

// Category is one category's score.
type Category struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Score     *float64 `json:"score"`
	AuditRefs []struct {
		ID string `json:"id"`
	} `json:"auditRefs"`
}

// AuditItem is one audit's result.
type AuditItem struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	Score        *float64        `json:"score"`
	DisplayValue string          `json:"displayValue"`
	Details      json.RawMessage `json:"details"`
}

// Parse reads a JSON report, keeping the order of its categories and
// audits (the reply lists them as the report does).
func Parse(b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read lighthouse's report: %w", err)
	}
	var order struct {
		Categories orderedKeys `json:"categories"`
		Audits     orderedKeys `json:"audits"`
	}
	if err := json.Unmarshal(b, &order); err != nil {
		return nil, fmt.Errorf("read lighthouse's report: %w", err)
	}
	r.categoryOrder, r.auditOrder = order.Categories, order.Audits
	return &r, nil
}

// orderedKeys reads the keys of a JSON object in order.
type orderedKeys []string

func (k *orderedKeys) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: no keys
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		*k = append(*k, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}
