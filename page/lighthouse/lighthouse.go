package lighthouse

// Running Lighthouse: finding it, the driver, its flags, and reading its
// report.

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoCLI is returned when the lighthouse package cannot be found.
var ErrNoCLI = errors.New("lighthouse not found")

// ErrNoNode is returned when no node binary can run the lighthouse
// package.
var ErrNoNode = errors.New("node not found")

// Install is an installed Lighthouse.
type Install struct {
	// Dir is the lighthouse package's directory (its package.json).
	Dir string
	// Node is the node binary that runs it.
	Node string
}

// Find returns the Lighthouse that the binary bin belongs to (a path, or
// a name on PATH; if empty, "lighthouse"): the package directory its
// symlink leads to, and the node beside it or on PATH. It returns an
// error wrapping [ErrNoCLI] or [ErrNoNode].
func Find(bin string) (Install, error) {
	if bin == "" {
		bin = "lighthouse"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return Install{}, fmt.Errorf("%w: %s", ErrNoCLI, bin)
	}
	dir, err := packageDir(path)
	if err != nil {
		return Install{}, err
	}
	node := filepath.Join(filepath.Dir(path), "node")
	if _, err := exec.LookPath(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			return Install{}, fmt.Errorf("%w on PATH (lighthouse is at %s)", ErrNoNode, path)
		}
	}
	return Install{Dir: dir, Node: node}, nil
}

// packageDir returns the directory of the lighthouse package whose bin is
// path: the nearest directory above its real file whose package.json
// names lighthouse.
func packageDir(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrNoCLI, path, err)
	}
	for dir := filepath.Dir(real); ; {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var p struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(b, &p) == nil && p.Name == "lighthouse" {
				return dir, nil
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("%w: %s is not in a lighthouse package", ErrNoCLI, path)
		}
		dir = up
	}
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

// Modes of an audit, as Lighthouse names them.
const (
	// Navigation reloads the page and audits the load.
	Navigation = "navigation"
	// Snapshot audits the page as it is, without reloading it.
	Snapshot = "snapshot"
)

// Options say what to audit.
type Options struct {
	Install Install
	// Endpoint is the DevTools endpoint's WebSocket URL, secret included.
	Endpoint string
	// Mode is [Navigation] (the default) or [Snapshot].
	Mode string
	// URL is the page to load and audit in navigation mode.
	URL    string
	Device Device
	// Dir is an empty private directory for the driver and the reports.
	Dir string
	// Env, if non-nil, is the driver's environment.
	Env []string
}

// Output is a finished run: the report, and the reports' files in Dir.
type Output struct {
	Report   *Report
	JSONPath string
	HTMLPath string
}

// driver is the script that runs an audit through Lighthouse's Node API.
//
//go:embed driver.mjs
var driver []byte

// job is what the driver reads on its stdin.
type job struct {
	LighthouseDir string         `json:"lighthouseDir"`
	Endpoint      string         `json:"endpoint"`
	Mode          string         `json:"mode"`
	URL           string         `json:"url"`
	Flags         map[string]any `json:"flags"`
	Dir           string         `json:"dir"`
}

// Flags returns Lighthouse's flags for o, as its CLI would make them of
// the arguments chrome-devtools-mcp passes.
func Flags(o Options) map[string]any {
	d := o.Device
	return map[string]any{
		// The agent's cookies, storage and caches are its logged-in
		// state: the audit must not clear them.
		"disableStorageReset": true,
		"onlyCategories":      Categories,
		"output":              []string{"json", "html"},
		"maxWaitForLoad":      int(MaxWaitForLoad / time.Millisecond),
		"formFactor":          d.FormFactor,
		"screenEmulation": map[string]any{
			"mobile": d.Mobile, "width": d.Width, "height": d.Height,
			"deviceScaleFactor": d.DeviceScaleFactor, "disabled": false,
		},
		"emulatedUserAgent": d.UserAgent,
		// Chrome paints no background tab, and an agent's tab is often
		// one: Lighthouse's full-page screenshot would wait for a frame
		// that never comes, until its protocol timeout fails the audit.
		// Bringing the tab to the front would send another agent's to
		// the back mid-work. The scores do not use the screenshot.
		"disableFullPageScreenshot": true,
		"logLevel":                  "silent",
	}
}

// maxStderr bounds what is kept of the driver's complaints.
const maxStderr = 8 << 10

// Run runs an audit and reads its JSON report. The driver is killed when
// ctx ends.
func Run(ctx context.Context, o Options) (*Output, error) {
	mode := o.Mode
	if mode == "" {
		mode = Navigation
	}
	script := filepath.Join(o.Dir, "tabhive-lighthouse-driver.mjs")
	if err := os.WriteFile(script, driver, 0o600); err != nil {
		return nil, fmt.Errorf("write lighthouse's driver: %w", err)
	}
	in, err := json.Marshal(job{LighthouseDir: o.Install.Dir, Endpoint: o.Endpoint, Mode: mode, URL: o.URL, Flags: Flags(o), Dir: o.Dir})
	if err != nil {
		return nil, fmt.Errorf("write lighthouse's job: %w", err)
	}
	cmd := exec.CommandContext(ctx, o.Install.Node, script)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: maxStderr}
	cmd.Stdout = nil
	// Node may leave the pipes to a child it started: stop waiting for
	// them soon after the driver itself exits or is killed.
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason := lastLine(stderr.String())
		if o.Endpoint != "" {
			// What Node says of a failed connection names the URL.
			reason = strings.ReplaceAll(reason, o.Endpoint, "the endpoint")
			if secret := o.Endpoint[strings.LastIndex(o.Endpoint, "/")+1:]; secret != "" {
				reason = strings.ReplaceAll(reason, secret, "…")
			}
		}
		return nil, &CLIError{Reason: reason, Err: err}
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
