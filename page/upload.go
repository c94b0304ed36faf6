package page

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/js"
)

// fileChooserTimeout bounds the wait for a click to open a file chooser
// (upstream: 3 s).
const fileChooserTimeout = 3 * time.Second

// ErrNoFileChooser is returned by [Actor.UploadFile] when the element is
// not a file input and clicking it opened no file chooser.
var ErrNoFileChooser = agenterr.New("the element could not accept the file directly, and clicking it did not trigger a file chooser",
	"Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser.")

// ErrMultipleFiles is returned by [Actor.UploadFile] for several files on a
// file input that takes one.
var ErrMultipleFiles = agenterr.New("multiple file uploads only work with <input type=file multiple>",
	"Multiple file uploads only work with <input type=file multiple>: give one file, or use an input that takes several.")

// UploadFile gives files (paths on the browser's machine) to the element
// uid names: directly when it is an <input type=file>, otherwise through
// the file chooser that clicking it opens.
func (a *Actor) UploadFile(ctx context.Context, uid string, files []string, opts InputOptions) (InputResult, error) {
	return ask(ctx, a, func(ctx context.Context) (InputResult, error) {
		if err := a.needRenderer(); err != nil {
			return InputResult{}, err
		}
		t, err := a.element(ctx, uid)
		if err != nil {
			return InputResult{}, err
		}
		var kind struct{ File, Multiple bool }
		if err := a.call(ctx, func(ctx context.Context) error { return callOn(ctx, t.c, t.id, js.FileInput, &kind) }); err != nil {
			if errors.Is(err, errNodeGone) {
				return InputResult{}, &UIDError{UID: uid, PageID: a.id, Gone: true, Cause: err}
			}
			return InputResult{}, err
		}
		if kind.File {
			if len(files) > 1 && !kind.Multiple {
				return InputResult{}, ErrMultipleFiles
			}
			err := a.call(ctx, func(ctx context.Context) error { return setFiles(ctx, t.c, t.id, files) })
			return a.finishInput(ctx, ActionResult{State: a.state()}, err, opts)
		}
		return a.uploadThroughChooser(ctx, t, files, opts)
	})
}

// uploadThroughChooser clicks an element that opens a file chooser (a
// styled button in front of a hidden input) and answers the chooser. The
// chooser is intercepted and answered on the session of the element's
// frame, whose renderer opens it.
func (a *Actor) uploadThroughChooser(ctx context.Context, t elementRef, files []string, opts InputOptions) (InputResult, error) {
	intercept := func(ctx context.Context, on bool) error {
		return t.c.Page.SetInterceptFileChooserDialog(ctx, page.NewSetInterceptFileChooserDialogArgs(on))
	}
	if err := a.call(ctx, func(ctx context.Context) error { return intercept(ctx, true) }); err != nil {
		return InputResult{}, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		a.act.Await(rctx, func(ctx context.Context) error { return intercept(ctx, false) }, nil)
	}()
	watch := make(chan cdpconn.Event, 4)
	a.watch = watch
	defer func() { a.watch = nil }()
	res, err := a.actOn(ctx, t, actionOptions{gate: "upload"}, func(ctx context.Context, t elementRef, p *actionProgress) error {
		x, y, err := t.point(ctx)
		if err != nil {
			return err
		}
		if err := mouseClick(ctx, t.c, x, y, 1, p); err != nil {
			return err
		}
		wait := time.NewTimer(fileChooserTimeout)
		defer wait.Stop()
		for {
			select {
			case ev := <-watch:
				if ev.Method != "Page.fileChooserOpened" {
					continue
				}
				var e struct {
					BackendNodeID dom.BackendNodeID `json:"backendNodeId"`
				}
				if err := json.Unmarshal(ev.Params, &e); err != nil {
					return err
				}
				return setFiles(ctx, t.c, e.BackendNodeID, files)
			case <-wait.C:
				return ErrNoFileChooser
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	var ie *InteractError
	if errors.As(err, &ie) && errors.Is(err, ErrNoFileChooser) || err == nil && res.Dialog {
		// A click that opened a dialog opened no file chooser either.
		err = ErrNoFileChooser
	}
	return a.finishInput(ctx, res, err, opts)
}

// setFiles gives files to a file input through c, the client of the
// session that reaches its frame.
func setFiles(ctx context.Context, c *cdp.Client, node dom.BackendNodeID, files []string) error {
	return c.DOM.SetFileInputFiles(ctx, dom.NewSetFileInputFilesArgs(files).SetBackendNodeID(node))
}
