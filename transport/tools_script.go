package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/page"
)

// scriptBudget is evaluate_script's budget when the call gives no timeout.
const scriptBudget = 30 * time.Second

// scriptTools run JavaScript in a page (issue 5).
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
	FilePath         string   `json:"filePath" desc:"The absolute or relative path to a file to save the script output to. If omitted, the output is returned inline."`
	DialogAction     string   `json:"dialogAction" desc:"Handle dialogs while execution. \"accept\", \"dismiss\", or string for response of window.prompt. Defaults to accept."`
	WaitForStableDOM *bool    `json:"waitForStableDom" desc:"Whether to wait for the DOM to settle. Pass false if the script only reads data. Defaults to true."`
	Timeout          *int     `json:"timeout" desc:"Maximum run time in milliseconds, after which the script is stopped. If omitted or 0, 30000."`
}

func runEvaluate(ctx context.Context, c *call, a *evaluateArgs) error {
	if (a.Function == "") == (a.SourcePath == "") {
		return errors.New("Specify exactly one of function or sourcePath.")
	}
	source := a.Function
	if a.SourcePath != "" {
		var err error
		if source, err = readScriptFile(c.sandbox(ctx), a.SourcePath); err != nil {
			return err
		}
	}
	res, err := c.page.Evaluate(ctx, page.Script{
		Source:        source,
		Format:        a.Format,
		Args:          a.Args,
		DialogAction:  a.DialogAction,
		SkipStableDOM: a.WaitForStableDOM != nil && !*a.WaitForStableDOM,
	})
	if err != nil {
		var te *page.ScriptTimeoutError
		if errors.As(err, &te) {
			return &scriptTimeout{budget: c.budget}
		}
		if a.SourcePath != "" {
			return scriptFileError(a.SourcePath, err)
		}
		return err
	}
	if a.FilePath != "" {
		path, err := c.sandbox(ctx).WriteFile(a.FilePath, []byte(res.JSON), ".json")
		if err != nil {
			return err
		}
		c.r.line("Script ran on page. Output saved to %s.", path)
	} else {
		c.r.line("Script ran on page and returned:")
		c.r.line("```json")
		c.r.line("%s", res.JSON)
		c.r.line("```")
	}
	c.r.navigatedTo = res.NavigatedTo
	c.r.state(res.State)
	return nil
}

// scriptTimeout reports an evaluate_script stopped at its deadline.
type scriptTimeout struct{ budget time.Duration }

func (e *scriptTimeout) Error() string {
	return fmt.Sprintf("The script did not finish within the %v budget and was stopped. The page is usable again; pass a larger timeout if the script needs more time.", e.budget)
}
