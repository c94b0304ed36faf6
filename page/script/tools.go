package script

// The capability's MCP tools: evaluate_script (in a page, or in an
// extension's service worker), with chrome-devtools-mcp's name, arguments
// and reply text, and --slim's evaluate.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/tabhive/tabhive/browser/extensions"
	"github.com/tabhive/tabhive/browser/urlpolicy"
	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// budget is evaluate_script's budget when the call gives no timeout.
const budget = 30 * time.Second

// Tools returns evaluate_script and --slim's evaluate (the transport lists
// each only where it belongs); the slim one checks policy, the server's
// URL and script policy, before it runs.
func Tools(policy *urlpolicy.Policy) []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "evaluate_script", Description: "Evaluate JavaScript inside the target page. The source can be provided inline or loaded from a local file. Returns the response as JSON, so returned values have to be JSON-serializable. A script still running when its timeout passes is stopped and the page stays usable.", Page: true, Action: true},
			func(a *evaluateArgs) time.Duration { return tool.Millis(a.Timeout, budget) }, runEvaluate),
		slimTool(policy),
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

func runEvaluate(ctx context.Context, c tool.Call, a *evaluateArgs) error {
	if (a.Function == "") == (a.SourcePath == "") {
		return errors.New("Specify exactly one of function or sourcePath.")
	}
	if err := checkWorkerTarget(c, a); err != nil {
		return err
	}
	source := a.Function
	if a.SourcePath != "" {
		var err error
		if source, err = readScriptFile(c.Sandbox(ctx), a.SourcePath); err != nil {
			return err
		}
	}
	if a.ServiceWorkerID != "" {
		return runWorkerEvaluate(ctx, c, a, source)
	}
	script := Script{
		Source:        source,
		Format:        a.Format,
		Args:          a.Args,
		DialogAction:  a.DialogAction,
		SkipStableDOM: a.WaitForStableDOM != nil && !*a.WaitForStableDOM,
		MaxResult:     c.ResultLimit(),
		MaxOutput:     maxResultFile,
	}
	var out *sandbox.LazyFile
	if a.FilePath != "" {
		out = c.Sandbox(ctx).Lazy(sandbox.LazyOptions{Path: a.FilePath})
		script.Output = out
	}
	res, err := Evaluate(ctx, c.Page(), script)
	if out != nil {
		err = out.Finish(err)
	}
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.Budget()}
		}
		if tl := (*ResultTooLargeError)(nil); errors.As(err, &tl) {
			return fmt.Errorf("The script's result is %d bytes of JSON, more than the %d bytes a file may take. Return less: filter or slice the data in the script, and save it in parts if need be.", tl.Size, tl.Max)
		}
		if a.SourcePath != "" {
			return scriptFileError(a.SourcePath, err)
		}
		return err
	}
	if out != nil {
		c.Reply().Line("Script ran on page. Output saved to %s.", out.Name())
	} else {
		// The result goes in as it is, not through a format: it may be
		// megabytes, and a copy of it is a copy too many.
		c.Reply().Lines("Script ran on page and returned:", "```json", res.JSON, "```")
		if res.Cut {
			c.Reply().Line("The result is %d bytes of JSON; only the first %d are shown. Pass filePath to save all of it to a file.", res.Size, len(res.JSON))
		}
	}
	for _, d := range res.Answered {
		c.Reply().Lines(answeredLine(d))
	}
	c.Reply().Navigated(res.NavigatedTo, res.Pending)
	c.Reply().Unfollowed(res.Unfollowed)
	c.Reply().State(res.State)
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

// maxResultFile bounds what evaluate_script writes to a filePath: 256 MiB,
// enough for any result an agent can use, and a bound on the disk one call
// can fill (filePath's description says so).
const maxResultFile = 256 << 20

// scriptTimeout reports an evaluate_script stopped at its deadline.
type scriptTimeout struct{ budget time.Duration }

func (e *scriptTimeout) Error() string {
	return fmt.Sprintf("The script did not finish within the %v budget and was stopped. The page is usable again; pass a larger timeout if the script needs more time.", e.budget)
}

// checkWorkerTarget refuses an evaluate_script that names both a page and a
// service worker, element arguments for a worker, and, where pages are
// routed and workers offered, a call that names neither.
func checkWorkerTarget(c tool.Call, a *evaluateArgs) error {
	switch {
	case a.ServiceWorkerID != "" && c.PageGiven():
		return errors.New("specify either a pageId or a serviceWorkerId.")
	case a.ServiceWorkerID != "" && len(a.Args) > 0:
		return errors.New("args (element uids) cannot be used when evaluating in a service worker.")
	case a.ServiceWorkerID == "" && !c.PageGiven() && c.TargetRequired():
		return errors.New("specify either a pageId or a serviceWorkerId.")
	}
	return nil
}

// runWorkerEvaluate runs evaluate_script in an extension's service worker
// (serviceWorkerId).
func runWorkerEvaluate(ctx context.Context, c tool.Call, a *evaluateArgs, source string) error {
	w, err := extensions.Worker(ctx, c, a.ServiceWorkerID)
	if err != nil {
		return err
	}
	limit := c.ResultLimit()
	if a.FilePath != "" {
		limit = maxResultFile
	}
	res, err := w.Evaluate(ctx, source, a.Format, limit)
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.Budget()}
		}
		return err
	}
	if a.FilePath != "" {
		path, err := c.Sandbox(ctx).WriteFile(a.FilePath, []byte(res.JSON), ".json")
		if err != nil {
			return err
		}
		c.Reply().Line("Script ran on page. Output saved to %s.", path)
		return nil
	}
	c.Reply().Lines("Script ran on page and returned:", "```json", res.JSON, "```")
	if res.Cut {
		c.Reply().Line("The result is %d bytes of JSON; only the first %d are shown. Pass filePath to save all of it to a file.", res.Size, len(res.JSON))
	}
	return nil
}

// maxScriptFile bounds evaluate_script's sourcePath file: a script that
// large is a mistake, and the file is read whole into memory.
const maxScriptFile = 1 << 20

// readScriptFile reads evaluate_script's sourcePath through the session's
// sandbox.
func readScriptFile(sb *sandbox.Sandbox, path string) (string, error) {
	b, _, err := sb.ReadFile(path, maxScriptFile)
	if tl := (*sandbox.TooLargeError)(nil); errors.As(err, &tl) {
		return "", fmt.Errorf("The script file %s is %d bytes; a sourcePath file can be at most 1 MiB (%d bytes). Use a smaller script.", path, tl.Size, tl.Limit)
	}
	if err != nil {
		if de := (*sandbox.DeniedError)(nil); errors.As(err, &de) {
			return "", err
		}
		if ne := (*sandbox.NotRegularError)(nil); errors.As(err, &ne) {
			return "", fmt.Errorf("Unable to read script source from %s: it is %s; give the path of a regular file.", path, ne.Kind())
		}
		return "", agenterr.Unreadable(err, "Unable to read script source from %s: %s", path)
	}
	return string(b), nil
}

// errorClass matches the class of a JavaScript error at the start of its
// message: "SyntaxError: Unexpected token ':'".
var errorClass = regexp.MustCompile(`^(?:Uncaught )?([A-Z][A-Za-z]*Error)\b`)

// scriptFileError replaces the page's message for a script read from
// sourcePath: a message can quote the file (a SyntaxError quotes the token
// it stopped at; a ReferenceError names an identifier), and the file may be
// one the agent should not see whole, so the reply says only what kind of
// error it was. Other errors pass unchanged.
func scriptFileError(path string, err error) error {
	var se *page.ScriptError
	if !errors.As(err, &se) {
		return err
	}
	class := "an exception"
	if m := errorClass.FindStringSubmatch(se.Msg); m != nil {
		class = "a " + m[1]
	}
	if class == "a SyntaxError" {
		return fmt.Errorf("The file %s could not be used as a script: it is not valid JavaScript (the SyntaxError's message is not shown, as it would quote the file).", path)
	}
	return fmt.Errorf("The script from %s threw %s; its message is not shown, as it could quote the file. Catch the error in the script and return its message to see it.", path, class)
}

// slimTool is --slim's evaluate, chrome-devtools-mcp's slim one: classic
// script text run without waiting for the DOM to settle, and a reply that
// is its JSON value alone.
func slimTool(policy *urlpolicy.Policy) *tool.Tool {
	return tool.Define(tool.Tool{Name: "evaluate", Description: "Evaluates a JavaScript script", Page: true, Action: true},
		tool.Fixed[slimArgs](budget), func(ctx context.Context, c tool.Call, a *slimArgs) error {
			return runSlim(ctx, c, policy, a)
		})
}

type slimArgs struct {
	Script string `json:"script" required:"true" desc:"JS script to run on the page"`
}

func runSlim(ctx context.Context, c tool.Call, policy *urlpolicy.Policy, a *slimArgs) error {
	if err := policy.Evaluation("evaluate"); err != nil {
		return err
	}
	res, err := Evaluate(ctx, c.Page(), Script{
		Source:        a.Script,
		Format:        "script",
		SkipStableDOM: true,
		MaxResult:     c.ResultLimit(),
	})
	if err != nil {
		var te *page.ScriptTimeoutError
		var se *page.ScriptError
		switch {
		case errors.As(err, &te):
			return &scriptTimeout{budget: c.Budget()}
		case errors.As(err, &se):
			// "Error: <what the script threw>", as chrome-devtools-mcp's
			// slim replies read.
			return &tool.ArgError{Msg: "Error: " + se.Msg}
		}
		return err
	}
	// A value JSON cannot hold (undefined, a function) is an empty line,
	// as chrome-devtools-mcp prints it.
	if res.JSON != "undefined" {
		c.Reply().Lines(res.JSON)
	} else {
		c.Reply().Lines("")
	}
	if res.Cut {
		c.Reply().Line("The result is %d bytes of JSON; only the first %d are shown.", res.Size, len(res.JSON))
	}
	return nil
}
