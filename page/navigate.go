package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/js"
)

// Navigation kinds, as navigate_page names them.
const (
	NavigateURL     = "url"
	NavigateBack    = "back"
	NavigateForward = "forward"
	NavigateReload  = "reload"
)

// DefaultNavigationTimeout bounds a navigation's wait for its document to
// load when the caller gives no timeout and nothing is emulated; emulated
// slow networks and CPUs stretch it (see [Actor.Timeouts]), as upstream.
const DefaultNavigationTimeout = 10 * time.Second

// InvalidURLError reports a URL that is not absolute or does not parse.
type InvalidURLError struct{ URL string }

func (e *InvalidURLError) Error() string { return fmt.Sprintf("invalid URL %q", e.URL) }

// AgentSentence is chrome-devtools-mcp's sentence.
func (e *InvalidURLError) AgentSentence() string {
	return fmt.Sprintf("Invalid URL: %q. URLs must be valid according to the URL standard.", e.URL)
}

// Navigation says where to go.
type Navigation struct {
	Kind        string // NavigateURL, NavigateBack, NavigateForward or NavigateReload
	URL         string // for NavigateURL
	IgnoreCache bool   // for NavigateReload
	// Timeout bounds waiting for the new document to load. If zero, the
	// page's current default ([Actor.Timeouts]).
	Timeout time.Duration
	// HandleBeforeUnload answers a beforeunload dialog the navigation
	// raises: "accept" (the default when empty) or "dismiss".
	HandleBeforeUnload string
	// InitScript, if set, runs in every new document of this navigation
	// before the page's own scripts, and is removed afterwards.
	InitScript string
}

// NavigationResult reports a finished navigation.
type NavigationResult struct {
	URL   string // the main frame's URL afterwards
	Title string // the document's title afterwards, "" if it has none or did not answer
	// BeforeUnload is "accepted" or "dismissed" when a beforeunload dialog
	// was answered, else "".
	BeforeUnload string
	State
}

// CheckURL reports whether raw is an absolute URL Chrome can be asked to
// load.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || (u.Opaque == "" && u.Host == "" && u.Path == "" && u.Scheme != "about") {
		return &InvalidURLError{URL: raw}
	}
	return nil
}

// Navigate goes to a URL, back, forward or reloads, and waits for the new
// document to load and settle. A navigation Chrome refuses or cannot load
// returns a [*NavigationError].
func (a *Actor) Navigate(ctx context.Context, nav Navigation) (NavigationResult, error) {
	if nav.Kind == NavigateURL {
		if err := CheckURL(nav.URL); err != nil {
			return NavigationResult{}, err
		}
	}
	// Not ask: navigating is how a crashed page gets a new renderer.
	return actor.Ask(ctx, a.act, func(ctx context.Context) (NavigationResult, error) {
		crashed := a.crashed
		a.crashed = false
		explainers := a.slices.callStarts()
		res, err := a.navigate(ctx, nav)
		if err != nil && cdpconn.IsClosed(err) {
			return res, a.goneCause(ctx)
		}
		if err != nil {
			err = explain(err, explainers)
		}
		if err != nil && crashed {
			a.crashed = true
			return res, fmt.Errorf("%w: %w", ErrCrashed, err)
		}
		if err == nil {
			a.navigated(ctx, res)
		}
		return res, err
	})
}

// navigated tells the actor's owner that a navigation completed
// ([Config.OnNavigated]), applying the page's events while it listens.
func (a *Actor) navigated(ctx context.Context, res NavigationResult) {
	if a.onNavigated == nil {
		return
	}
	a.act.Await(ctx, func(ctx context.Context) error {
		a.onNavigated(ctx, res.URL, res.Title)
		return nil
	}, nil)
}

func (a *Actor) navigate(ctx context.Context, nav Navigation) (NavigationResult, error) {
	var res NavigationResult
	if err := a.needRenderer(); err != nil && a.dialogs.open.Type != "beforeunload" {
		return res, err
	}
	timeout := nav.Timeout
	if timeout <= 0 {
		timeout = a.pace.load().Timeouts.Navigation
	}
	accept := nav.HandleBeforeUnload != "dismiss"
	var answered atomic.Bool // set on the waiter's goroutine, read after it
	opts := actionOptions{
		navigationTimeout: timeout,
		navigates:         true,
		handleDialog: func(typ string) (dialogAnswer, bool) {
			if typ != "beforeunload" {
				return dialogAnswer{}, false
			}
			answered.Store(true)
			return dialogAnswer{accept: accept}, true
		},
	}

	if nav.InitScript != "" {
		var id page.ScriptIdentifier
		err := a.call(ctx, func(ctx context.Context) error {
			r, err := a.c.Page.AddScriptToEvaluateOnNewDocument(ctx, page.NewAddScriptToEvaluateOnNewDocumentArgs(nav.InitScript))
			if err == nil {
				id = r.Identifier
			}
			return err
		})
		if err != nil {
			return res, fmt.Errorf("add init script: %w", err)
		}
		defer func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			a.act.Await(rctx, func(ctx context.Context) error {
				return a.c.Page.RemoveScriptToEvaluateOnNewDocument(ctx, page.NewRemoveScriptToEvaluateOnNewDocumentArgs(id))
			}, nil)
		}()
	}

	var action func(ctx context.Context) error
	switch nav.Kind {
	case NavigateURL:
		target := nav.URL
		action = func(ctx context.Context) error {
			r, err := a.c.Page.Navigate(ctx, page.NewNavigateArgs(target))
			if err != nil {
				return err
			}
			if r.ErrorText != nil && *r.ErrorText != "" {
				return &NavigationError{Kind: NavigateURL, Reason: *r.ErrorText + " at " + target}
			}
			return nil
		}
	case NavigateBack, NavigateForward:
		var hist *page.GetNavigationHistoryReply
		if err := a.call(ctx, func(ctx context.Context) (err error) {
			hist, err = a.c.Page.GetNavigationHistory(ctx)
			return err
		}); err != nil {
			return res, fmt.Errorf("read history: %w", err)
		}
		step, word := -1, "previous"
		if nav.Kind == NavigateForward {
			step, word = 1, "next"
		}
		i := hist.CurrentIndex + step
		if i < 0 || i >= len(hist.Entries) {
			return res, &NavigationError{Kind: nav.Kind, Reason: "there is no " + word + " page in the history"}
		}
		entry := hist.Entries[i].ID
		action = func(ctx context.Context) error {
			return a.c.Page.NavigateToHistoryEntry(ctx, page.NewNavigateToHistoryEntryArgs(entry))
		}
	case NavigateReload:
		action = func(ctx context.Context) error {
			return a.c.Page.Reload(ctx, page.NewReloadArgs().SetIgnoreCache(nav.IgnoreCache))
		}
	default:
		return res, fmt.Errorf("unknown navigation type %q", nav.Kind)
	}

	loader, before := a.frames.mainLoader(), a.frames.url
	r, err := a.perform(ctx, opts, func(ctx context.Context, _ *Progress) error { return action(ctx) })
	if err == nil && a.dialogs.open != nil && a.frames.mainLoader() == loader && a.frames.url == before {
		// The dialog came from the page being left, before the new document
		// committed: the navigation has not happened (it may once the dialog
		// is handled).
		err = &DialogError{Dialog: *a.dialogs.open, Cut: "navigation"}
	}
	if err != nil {
		var de *DialogError
		if errors.As(err, &de) {
			return res, err
		}
		var ne *NavigationError
		if errors.As(err, &ne) {
			return res, ne
		}
		if ctx.Err() == nil && !errors.Is(err, ErrCrashed) && !cdpconn.IsClosed(err) {
			return res, &NavigationError{Kind: nav.Kind, Reason: err.Error()}
		}
		return res, err
	}
	res.URL = a.frames.url
	res.State = r.State
	if r.titled && a.dialogs.open == nil {
		res.Title = r.title // read as the new document settled
	} else {
		res.Title = a.title(ctx)
	}
	if answered.Load() {
		res.BeforeUnload = "dismissed"
		if accept {
			res.BeforeUnload = "accepted"
		}
	}
	return res, nil
}

// BringToFront focuses the page's tab and brings it to the top of its
// window.
func (a *Actor) BringToFront(ctx context.Context) error {
	_, err := ask(ctx, a, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, a.call(ctx, func(ctx context.Context) error { return a.c.Page.BringToFront(ctx) })
	})
	return err
}

// title reads document.title. The browser learns a new title a little after
// the document has it, so a page list made right after a navigation would
// show the URL; asking the page, which has just loaded, costs a round trip.
func (a *Actor) title(ctx context.Context) string {
	if a.dialogs.open != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var t string
	err := a.call(ctx, func(ctx context.Context) error {
		r, err := a.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.Title).SetReturnByValue(true))
		if err == nil && r.ExceptionDetails == nil {
			json.Unmarshal(r.Result.Value, &t)
		}
		return err
	})
	if err != nil {
		// The call may have returned at its deadline while fn goes on
		// and writes t: read t only once fn has finished.
		return ""
	}
	return t
}
