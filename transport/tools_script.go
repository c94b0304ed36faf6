package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/browser/extensions"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// scriptBudget is evaluate_script's budget when the call gives no timeout.
const scriptBudget = 30 * time.Second

// scriptTools run JavaScript in a page.
func (s *Server) scriptTools() []*tool {
	return []*tool{
		define(tool{name: "evaluate_script", description: "Evaluate JavaScript inside the target page. The source can be provided inline or loaded from a local file. Returns the response as JSON, so returned values have to be JSON-serializable. A script still running when its timeout passes is stopped and the page stays usable.", page: true, action: true},
			func(a *evaluateArgs) time.Duration { return millis(a.Timeout, scriptBudget) }, runEvaluate),
	}
}

type evaluateArgs struct {
	Function         string   `json:"function" desc:"JavaScript source to execute in the target page. Provide either this or sourcePath, but not both. The source is interpreted according to format. Example without arguments: () => document.title or async () => await fetch(\"example.com\"). Example with arguments: (el) => el.innerText"`
	SourcePath       string   `json:"sourcePath" desc:"The absolute or relative path to a JavaScript file on the MCP server's local filesystem. Provide either this or function, but not both."`
	Format           string   `json:"format" enum:"function,script" desc:"How to interpret the source. \"function\" treats it as a function declaration and supports args. \"script\" evaluates it as classic JavaScript and does not support args. Defaults to \"function\"."`
	Args             []string `json:"args" desc:"An optional list of arguments (element uids from the page content snapshot) to pass to the function."`
	FilePath         string   `json:"filePath" desc:"The absolute or relative path to a file to save the script output to, up to 256 MiB. If omitted, the output is returned inline, cut past 1 MiB (unless the server's reply limit says otherwise)."`
	DialogAction     string   `json:"dialogAction" desc:"Handle dialogs while execution. \"accept\", \"dismiss\", or string for response of window.prompt. Defaults to accept."`
	WaitForStableDOM *bool    `json:"waitForStableDom" desc:"Whether to wait for the DOM to settle. Pass false if the script only reads data. Defaults to true."`
	Timeout          *int     `json:"timeout" min:"0" max:"3600000" desc:"Maximum run time in milliseconds, after which the script is stopped. If omitted or 0, 30000. At most 300000 (5 minutes): a larger value is lowered to it."`
	ServiceWorkerID  string   `json:"serviceWorkerId" desc:"The optional service worker id to evaluate the script in. If provided, 'pageId' should be omitted. Note: 'args' (element UIDs) cannot be used when evaluating in a service worker."`
}

func runEvaluate(ctx context.Context, c *call, a *evaluateArgs) error {
	if (a.Function == "") == (a.SourcePath == "") {
		return errors.New("Specify exactly one of function or sourcePath.")
	}
	if err := c.checkWorkerTarget(a); err != nil {
		return err
	}
	source := a.Function
	if a.SourcePath != "" {
		var err error
		if source, err = readScriptFile(c.sandbox(ctx), a.SourcePath); err != nil {
			return err
		}
	}
	if a.ServiceWorkerID != "" {
		return runWorkerEvaluate(ctx, c, a, source)
	}
	script := page.Script{
		Source:        source,
		Format:        a.Format,
		Args:          a.Args,
		DialogAction:  a.DialogAction,
		SkipStableDOM: a.WaitForStableDOM != nil && !*a.WaitForStableDOM,
		MaxResult:     inlineResultLimit(c.s.replyLimit()),
		MaxOutput:     maxResultFile,
	}
	var out *sandbox.LazyFile
	if a.FilePath != "" {
		out = c.sandbox(ctx).Lazy(sandbox.LazyOptions{Path: a.FilePath})
		script.Output = out
	}
	res, err := c.page.Evaluate(ctx, script)
	if out != nil {
		err = out.Finish(err)
	}
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.budget}
		}
		if tl, ok := errorsAs[*page.ResultTooLargeError](err); ok {
			return fmt.Errorf("The script's result is %d bytes of JSON, more than the %d bytes a file may take. Return less: filter or slice the data in the script, and save it in parts if need be.", tl.Size, tl.Max)
		}
		if a.SourcePath != "" {
			return scriptFileError(a.SourcePath, err)
		}
		return err
	}
	if out != nil {
		c.r.line("Script ran on page. Output saved to %s.", out.Name())
	} else {
		// The result goes in as it is, not through a format: it may be
		// megabytes, and a copy of it is a copy too many.
		c.r.lines = append(c.r.lines, "Script ran on page and returned:", "```json", res.JSON, "```")
		if res.Cut {
			c.r.line("The result is %d bytes of JSON; only the first %d are shown. Pass filePath to save all of it to a file.", res.Size, len(res.JSON))
		}
	}
	for _, d := range res.Answered {
		c.r.lines = append(c.r.lines, answeredLine(d))
	}
	c.r.navigatedTo = res.NavigatedTo
	c.r.pending, c.r.unfollowed = res.Pending, res.Unfollowed
	c.r.state(res.State)
	return nil
}

// checkWorkerTarget refuses an evaluate_script that names both a page and a
// service worker, element arguments for a worker, and, where pages are
// routed and workers offered, a call that names neither.
func (c *call) checkWorkerTarget(a *evaluateArgs) error {
	surface := c.s.cfg.Surface
	switch {
	case a.ServiceWorkerID != "" && c.pageGiven:
		return errors.New("specify either a pageId or a serviceWorkerId.")
	case a.ServiceWorkerID != "" && len(a.Args) > 0:
		return errors.New("args (element uids) cannot be used when evaluating in a service worker.")
	case a.ServiceWorkerID == "" && !c.pageGiven && surface.PageIDRouting && surface.Category("extensions"):
		return errors.New("specify either a pageId or a serviceWorkerId.")
	}
	return nil
}

// runWorkerEvaluate runs evaluate_script in an extension's service worker
// (serviceWorkerId).
func runWorkerEvaluate(ctx context.Context, c *call, a *evaluateArgs, source string) error {
	w, err := extensions.Worker(ctx, c, a.ServiceWorkerID)
	if err != nil {
		return err
	}
	limit := inlineResultLimit(c.s.replyLimit())
	if a.FilePath != "" {
		limit = maxResultFile
	}
	res, err := w.Evaluate(ctx, source, a.Format, limit)
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.budget}
		}
		return err
	}
	if a.FilePath != "" {
		path, err := c.sandbox(ctx).WriteFile(a.FilePath, []byte(res.JSON), ".json")
		if err != nil {
			return err
		}
		c.r.line("Script ran on page. Output saved to %s.", path)
		return nil
	}
	c.r.lines = append(c.r.lines, "Script ran on page and returned:", "```json", res.JSON, "```")
	if res.Cut {
		c.r.line("The result is %d bytes of JSON; only the first %d are shown. Pass filePath to save all of it to a file.", res.Size, len(res.JSON))
	}
	return nil
}

// answeredLine says how a dialog the script opened was answered, as
// dialogAction said: it is closed, and handle_dialog is not needed
// (chrome-devtools-mcp's reply says nothing of it, and its later replies
// show it as open until handle_dialog).
func answeredLine(d page.AnsweredDialog) string {
	how := "Dismissed"
	if d.Accepted {
		how = "Accepted"
	}
	with := ""
	if d.PromptText != "" {
		with = fmt.Sprintf(" with the text %q", d.PromptText)
	}
	return fmt.Sprintf("%s a dialog the script opened (%s: %s)%s, as dialogAction says.", how, d.Type, d.Message, with)
}

// inlineResultLimit is the most of a script's result evaluate_script
// returns inline, in bytes of JSON, under a reply cap of limit bytes: a
// quarter of it, 1 MiB by default. A result is data; past what an agent
// reads at once (1 MiB is a few hundred thousand tokens) it belongs in a
// file. The quarter also bounds what parallel calls hold: four calls
// returning 50 MB each grow the heap of this process (and of a client in
// it) by about 40 MB, where results as large as the reply cap took 130.
func inlineResultLimit(limit int) int { return limit / 4 }

// maxResultFile bounds what evaluate_script writes to a filePath: 256 MiB,
// enough for any result an agent can use, and a bound on the disk one call
// can fill (filePath's description says so).
const maxResultFile = 256 << 20

// scriptTimeout reports an evaluate_script stopped at its deadline.
type scriptTimeout struct{ budget time.Duration }

func (e *scriptTimeout) Error() string {
	return fmt.Sprintf("The script did not finish within the %v budget and was stopped. The page is usable again; pass a larger timeout if the script needs more time.", e.budget)
}
