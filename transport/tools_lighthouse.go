package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/lighthouse"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// lighthouseBudget bounds lighthouse_audit from outside: the audit's own
// budget, then restoring the page's emulation and copying the reports.
const lighthouseBudget = page.LighthouseBudget + 2*overhead

func (s *Server) lighthouseTools() []*tool {
	return []*tool{
		define(tool{name: "lighthouse_audit", page: true,
			description: "Get Lighthouse scores, failing audits, and the DOM nodes they flag for accessibility, SEO, best practices, and agentic browsing. Full reports are saved to disk. This excludes performance. For performance audits, run performance_start_trace"},
			lighthouseCallBudget, s.runLighthouse),
	}
}

type lighthouseArgs struct {
	Mode          string `json:"mode" enum:"navigation,snapshot" desc:"\"navigation\" reloads & audits. \"snapshot\" analyzes current state."`
	Device        string `json:"device" enum:"desktop,mobile" desc:"Device to emulate."`
	OutputDirPath string `json:"outputDirPath" desc:"Directory for reports. If omitted, uses temporary files."`
}

// lighthouseCallBudget is lighthouseBudget, and InstallBudget more when
// Lighthouse is to be installed first.
func lighthouseCallBudget(*lighthouseArgs) time.Duration {
	if _, err := lighthouse.Installed(lighthouse.EnsureOptions{}); errors.Is(err, lighthouse.ErrNoCLI) {
		return lighthouseBudget + lighthouse.InstallBudget
	}
	return lighthouseBudget
}

// lighthouseError is a sentence for the agent.
type lighthouseError struct{ msg string }

func (e *lighthouseError) Error() string { return e.msg }

// noNPM and noNode say what to install when Lighthouse cannot be.
const (
	noNPM  = "lighthouse_audit installs Lighthouse on first use with npm, which is not on tabhive's PATH: install Node.js with npm (or `npm install -g lighthouse@" + lighthouse.Version + "` yourself), then call lighthouse_audit again."
	noNode = "lighthouse_audit runs Lighthouse with Node.js, which is not on tabhive's PATH: install Node.js 18.16 or later, then call lighthouse_audit again."
)

func (s *Server) runLighthouse(ctx context.Context, c *call, a *lighthouseArgs) error {
	mode, device := a.Mode, a.Device
	if mode == "" {
		mode = "navigation"
	}
	if device == "" {
		device = "desktop"
	}
	box := c.sandbox(ctx)
	// A directory the sandbox refuses fails before anything runs.
	if a.OutputDirPath != "" {
		if _, err := box.Resolve(filepath.Join(a.OutputDirPath, "report.json")); err != nil {
			return err
		}
	}
	install, err := s.ensureLighthouse(ctx, c)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tabhive-lighthouse-")
	if err != nil {
		return fmt.Errorf("make a directory for lighthouse's reports: %w", err)
	}
	defer os.RemoveAll(dir)
	res, err := c.page.Lighthouse(ctx, page.LighthouseOptions{Install: install, Mode: mode, Device: lighthouse.Devices[device], Dir: dir})
	if err != nil {
		var be *page.LighthouseBudgetError
		if errors.As(err, &be) {
			return &lighthouseError{fmt.Sprintf("The Lighthouse audit did not finish within its %v budget and was stopped, so no report was saved; audit a lighter page, or retry when the machine is less busy.", be.Budget)}
		}
		var ce *lighthouse.CLIError
		if errors.As(err, &ce) {
			reason := strings.TrimSuffix(collapseSpace(ce.Reason), ".")
			if reason == "" {
				reason = ce.Error()
			}
			return &lighthouseError{fmt.Sprintf("Lighthouse could not audit the page (%s); check that the page loads, then call lighthouse_audit again.", reason)}
		}
		return err
	}
	c.r.state(res.State)
	var paths []string
	for _, r := range []struct{ from, ext string }{{res.Output.JSONPath, ".json"}, {res.Output.HTMLPath, ".html"}} {
		p, err := saveReport(box, a.OutputDirPath, r.from, r.ext)
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	sum := lighthouse.Summarize(res.Output.Report)
	renderLighthouse(c.r, mode, device, sum, paths)
	c.r.data = map[string]any{"lighthouseResult": lighthouseResult(mode, device, sum, paths)}

	return nil
}

// ensureLighthouse finds Lighthouse, or installs it into tabhive's cache
// on first use, telling the client as it goes when it asked for progress.
func (s *Server) ensureLighthouse(ctx context.Context, c *call) (lighthouse.Install, error) {
	opts := lighthouse.EnsureOptions{}
	installing := false
	opts.Progress = func(elapsed time.Duration) {
		if !installing {
			installing = true
			s.log.Info().Str("version", lighthouse.Version).Msg("lighthouse_audit: Lighthouse is not installed; installing it with npm into tabhive's cache")
		}
		if c.progressToken == nil || c.sess.ss == nil {
			return
		}
		// Best effort, and bounded: a client that cannot take a
		// notification loses it, and the install goes on.
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = c.sess.ss.NotifyProgress(nctx, &mcp.ProgressNotificationParams{ProgressToken: c.progressToken,
			Progress: elapsed.Seconds(), Message: fmt.Sprintf("Installing Lighthouse %s with npm (first use; %d s so far)", lighthouse.Version, int(elapsed.Seconds()))})
		cancel()
	}
	install, err := lighthouse.Ensure(ctx, opts)
	switch {
	case err == nil:
		if installing {
			s.log.Info().Str("dir", install.Dir).Msg("lighthouse_audit: Lighthouse installed")
		}
		return install, nil
	case errors.Is(err, lighthouse.ErrNoNPM):
		return install, &lighthouseError{noNPM}
	case errors.Is(err, lighthouse.ErrNoNode):
		return install, &lighthouseError{noNode}
	case ctx.Err() != nil:
		return install, &lighthouseError{fmt.Sprintf("Installing Lighthouse %s with npm did not finish within the call's budget and was stopped; call lighthouse_audit again (on a slow network, or with no access to the npm registry, run `npm install -g lighthouse@%s` yourself).", lighthouse.Version, lighthouse.Version)}
	}
	s.log.Warn().Err(err).Msg("lighthouse_audit: installing Lighthouse")
	return install, &lighthouseError{fmt.Sprintf("lighthouse_audit could not install Lighthouse %s with npm (the server's log says why); run `npm install -g lighthouse@%s` on the server, then call lighthouse_audit again.", lighthouse.Version, lighthouse.Version)}
}

// saveReport copies a report into the sandbox: outputDirPath/report.EXT,
// or a file of the session's private directory, as upstream names them.
func saveReport(box *sandbox.Sandbox, outputDir, from, ext string) (string, error) {
	src, err := os.Open(from)
	if err != nil {
		return "", fmt.Errorf("read lighthouse's report: %w", err)
	}
	defer src.Close()
	var f *sandbox.File
	if outputDir != "" {
		f, err = box.Create(filepath.Join(outputDir, "report"), ext)
	} else {
		f, err = box.CreateTemp("report" + ext)
	}
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("save lighthouse's report: %w", err)
	}
	return f.Name(), nil
}

// renderLighthouse writes the reply as chrome-devtools-mcp formats it.
func renderLighthouse(r *reply, mode, device string, s lighthouse.Summary, reports []string) {
	r.line("## Lighthouse audit results")
	r.line("Mode: %s", mode)
	r.line("Device: %s", device)
	r.line("URL: %s", s.URL)
	r.line("### Category scores")
	for _, c := range s.Scores {
		score := "n/a"
		if c.Score != nil {
			score = strconv.Itoa(int(math.Floor(*c.Score*100 + 0.5)))
		}
		r.line("- %s: %s (%s)", c.Title, score, c.ID)
	}
	r.line("### Audit summary")
	r.line("Passed: %d", s.Passed)
	r.line("Failed: %d", len(s.Failed))
	r.line("Total timing: %sms", strconv.FormatFloat(s.TotalTimingMS, 'f', -1, 64))
	if len(s.Failed) > 0 {
		r.line("### Failed audits")
		for _, f := range s.Failed {
			cats, display := "", ""
			if len(f.Categories) > 0 {
				cats = " [" + strings.Join(f.Categories, ", ") + "]"
			}
			if f.DisplayValue != "" {
				display = " (" + f.DisplayValue + ")"
			}
			r.line("- %s%s: %s%s (score: %s)", f.ID, cats, f.Title, display, strconv.FormatFloat(f.Score, 'f', -1, 64))
			if f.Description != "" {
				r.line("  %s", collapseSpace(f.Description))
			}
			if f.TotalNodes > 0 {
				shown := ""
				if f.TotalNodes > len(f.Nodes) {
					shown = fmt.Sprintf(", showing %d", len(f.Nodes))
				}
				r.line("  Nodes (%d%s):", f.TotalNodes, shown)
			}
			for _, n := range f.Nodes {
				var parts []string
				if n.Selector != "" {
					parts = append(parts, "selector="+jsQuote(n.Selector))
				}
				if n.NodeLabel != "" {
					parts = append(parts, "label="+jsQuote(collapseSpace(n.NodeLabel)))
				}
				if n.Snippet != "" {
					parts = append(parts, "snippet="+jsQuote(collapseSpace(n.Snippet)))
				}
				r.line("  - %s", strings.Join(parts, " "))
				if n.Explanation != "" {
					r.line("    %s", collapseSpace(n.Explanation))
				}
			}
		}
	}
	r.line("### Reports")
	for _, p := range reports {
		r.line("- %s", p)
	}
}

// lighthouseResult is the reply's structuredContent, in upstream's shape.
func lighthouseResult(mode, device string, s lighthouse.Summary, reports []string) map[string]any {
	scores := []map[string]any{}
	for _, c := range s.Scores {
		scores = append(scores, map[string]any{"id": c.ID, "title": c.Title, "score": c.Score})
	}
	failed := []map[string]any{}
	for _, f := range s.Failed {
		nodes := []map[string]any{}
		for _, n := range f.Nodes {
			node := map[string]any{}
			for k, v := range map[string]string{"selector": n.Selector, "snippet": n.Snippet, "nodeLabel": n.NodeLabel, "explanation": n.Explanation} {
				if v != "" {
					node[k] = v
				}
			}
			nodes = append(nodes, node)
		}
		a := map[string]any{"id": f.ID, "title": f.Title, "score": f.Score, "categories": append([]string{}, f.Categories...),
			"nodes": nodes, "totalNodes": f.TotalNodes}
		if f.Description != "" {
			a["description"] = f.Description
		}
		if f.DisplayValue != "" {
			a["displayValue"] = f.DisplayValue
		}
		failed = append(failed, a)
	}
	return map[string]any{
		"summary": map[string]any{
			"mode": mode, "device": device, "url": s.URL, "scores": scores,
			"audits": map[string]any{"failed": len(s.Failed), "passed": s.Passed},
			"timing": map[string]any{"total": s.TotalTimingMS},
		},
		"failedAudits": failed,
		"reports":      reports,
	}
}

// collapseSpace turns each run of white space into one space and trims
// the ends, as upstream's collapseWhitespace.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsQuote quotes s nearly as JavaScript's JSON.stringify does: it leaves
// <, > and & as they are, but encoding/json escapes U+2028 and U+2029,
// which JSON.stringify (and jsfmt.Quote) would not. Kept so that the
// audit's reply reads as it always has.
func jsQuote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
