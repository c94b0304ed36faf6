package lighthouse

// The lighthouse_audit tool: its arguments, installing Lighthouse on first
// use with progress notifications, the audit, and the reports copied into
// the session's sandbox.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// Tools returns the Lighthouse tool. log is the server's: installing
// Lighthouse is the server's business, not one page's.
func Tools(log zerolog.Logger) []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "lighthouse_audit", Page: true,
			Description: "Get Lighthouse scores, failing audits, and the DOM nodes they flag for accessibility, SEO, best practices, and agentic browsing. Full reports are saved to disk. This excludes performance. For performance audits, run performance_start_trace"},
			callBudget, func(ctx context.Context, c tool.Call, a *auditArgs) error { return runAudit(ctx, c, a, log) }),
	}
}

type auditArgs struct {
	Mode          string `json:"mode" enum:"navigation,snapshot" desc:"\"navigation\" reloads & audits. \"snapshot\" analyzes current state."`
	Device        string `json:"device" enum:"desktop,mobile" desc:"Device to emulate."`
	OutputDirPath string `json:"outputDirPath" desc:"Directory for reports. If omitted, uses temporary files."`
}

// toolBudget bounds lighthouse_audit from outside: the audit's own
// budget, then restoring the page's emulation and copying the reports.
const toolBudget = AuditBudget + 2*tool.Overhead

// callBudget is toolBudget, and InstallBudget more when Lighthouse is to
// be installed first.
func callBudget(*auditArgs) time.Duration {
	if _, err := Installed(EnsureOptions{}); errors.Is(err, ErrNoCLI) {
		return toolBudget + InstallBudget
	}
	return toolBudget
}

// toolError is a sentence for the agent.
type toolError struct{ msg string }

func (e *toolError) Error() string         { return e.msg }
func (e *toolError) AgentSentence() string { return e.msg }

// noNPM and noNode say what to install when Lighthouse cannot be.
const (
	noNPM  = "lighthouse_audit installs Lighthouse on first use with npm, which is not on tabhive's PATH: install Node.js with npm (or `npm install -g lighthouse@" + Version + "` yourself), then call lighthouse_audit again."
	noNode = "lighthouse_audit runs Lighthouse with Node.js, which is not on tabhive's PATH: install Node.js 18.16 or later, then call lighthouse_audit again."
)

func runAudit(ctx context.Context, c tool.Call, a *auditArgs, log zerolog.Logger) error {
	mode, device := a.Mode, a.Device
	if mode == "" {
		mode = "navigation"
	}
	if device == "" {
		device = "desktop"
	}
	box := c.Sandbox(ctx)
	// A directory the sandbox refuses fails before anything runs.
	if a.OutputDirPath != "" {
		if _, err := box.Resolve(filepath.Join(a.OutputDirPath, "report.json")); err != nil {
			return err
		}
	}
	install, err := ensure(ctx, c, log)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "tabhive-lighthouse-")
	if err != nil {
		return fmt.Errorf("make a directory for lighthouse's reports: %w", err)
	}
	defer os.RemoveAll(dir)
	res, err := Of(c.Page()).Audit(ctx, AuditOptions{Install: install, Mode: mode, Device: Devices[device], Dir: dir})
	if err != nil {
		return auditFailed(err)
	}
	c.Reply().State(res.State)
	var paths []string
	for _, r := range []struct{ from, ext string }{{res.Output.JSONPath, ".json"}, {res.Output.HTMLPath, ".html"}} {
		p, err := saveReport(box, a.OutputDirPath, r.from, r.ext)
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	sum := Summarize(res.Output.Report)
	c.Reply().Lines(replyLines(mode, device, sum, paths)...)
	c.Reply().Data("lighthouseResult", structured(mode, device, sum, paths))
	return nil
}

// auditFailed words an audit that ran out of its budget, or that
// Lighthouse itself failed, for the agent; any other err is returned as
// it is.
func auditFailed(err error) error {
	var be *BudgetError
	if errors.As(err, &be) {
		return &toolError{fmt.Sprintf("The Lighthouse audit did not finish within its %v budget and was stopped, so no report was saved; audit a lighter page, or retry when the machine is less busy.", be.Budget)}
	}
	var ce *CLIError
	if errors.As(err, &ce) {
		reason := strings.TrimSuffix(collapseSpace(ce.Reason), ".")
		if reason == "" {
			reason = ce.Error()
		}
		return &toolError{fmt.Sprintf("Lighthouse could not audit the page (%s); check that the page loads, then call lighthouse_audit again.", reason)}
	}
	return err
}

// ensure finds Lighthouse, or installs it into tabhive's cache on first
// use, telling the client as it goes when it asked for progress.
func ensure(ctx context.Context, c tool.Call, log zerolog.Logger) (Install, error) {
	opts := EnsureOptions{}
	installing := false
	opts.Progress = func(elapsed time.Duration) {
		if !installing {
			installing = true
			log.Info().Str("version", Version).Msg("lighthouse_audit: Lighthouse is not installed; installing it with npm into tabhive's cache")
		}
		c.Notify(ctx, elapsed.Seconds(), fmt.Sprintf("Installing Lighthouse %s with npm (first use; %d s so far)", Version, int(elapsed.Seconds())))
	}
	install, err := Ensure(ctx, opts)
	switch {
	case err == nil:
		if installing {
			log.Info().Str("dir", install.Dir).Msg("lighthouse_audit: Lighthouse installed")
		}
		return install, nil
	case errors.Is(err, ErrNoNPM):
		return install, &toolError{noNPM}
	case errors.Is(err, ErrNoNode):
		return install, &toolError{noNode}
	case ctx.Err() != nil:
		return install, &toolError{fmt.Sprintf("Installing Lighthouse %s with npm did not finish within the call's budget and was stopped; call lighthouse_audit again (on a slow network, or with no access to the npm registry, run `npm install -g lighthouse@%s` yourself).", Version, Version)}
	}
	log.Warn().Err(err).Msg("lighthouse_audit: installing Lighthouse")
	return install, &toolError{fmt.Sprintf("lighthouse_audit could not install Lighthouse %s with npm (the server's log says why); run `npm install -g lighthouse@%s` on the server, then call lighthouse_audit again.", Version, Version)}
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
