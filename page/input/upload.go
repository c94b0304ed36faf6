package input

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	cdppage "github.com/mafredri/cdp/protocol/page"

	"github.com/tabhive/tabhive/internal/agenterr"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
)

// fileChooserTimeout bounds the wait for a click to open a file chooser
// (upstream: 3 s).
const fileChooserTimeout = 3 * time.Second

// ErrNoFileChooser is returned by [UploadFile] when the element is not a
// file input and clicking it opened no file chooser.
var ErrNoFileChooser = agenterr.New("the element could not accept the file directly, and clicking it did not trigger a file chooser",
	"Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser.")

// ErrMultipleFiles is returned by [UploadFile] for several files on a file
// input that takes one.
var ErrMultipleFiles = agenterr.New("multiple file uploads only work with <input type=file multiple>",
	"Multiple file uploads only work with <input type=file multiple>: give one file, or use an input that takes several.")

// UploadFile gives files (paths on the browser's machine) to the element
// uid names on page a: directly when it is an <input type=file>,
// otherwise through the file chooser that clicking it opens.
func UploadFile(ctx context.Context, a *page.Actor, uid string, files []string, opts page.InputOptions) (page.InputResult, error) {
	sl := key.Of(a)
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (page.InputResult, error) {
		if err := h.NeedRenderer(); err != nil {
			return page.InputResult{}, err
		}
		t, err := h.Elements().Element(ctx, uid)
		if err != nil {
			return page.InputResult{}, err
		}
		var kind struct{ File, Multiple bool }
		if err := h.Elements().CallOn(ctx, t, js.FileInput, &kind); err != nil {
			return page.InputResult{}, err
		}
		if kind.File {
			if len(files) > 1 && !kind.Multiple {
				return page.InputResult{}, ErrMultipleFiles
			}
			err := h.Call(ctx, func(ctx context.Context) error { return setFiles(ctx, t.Client(), t.BackendNodeID(), files) })
			return h.Elements().FinishInput(ctx, page.ActionResult{State: h.State()}, err, opts)
		}
		return uploadThroughChooser(ctx, sl, t, files, opts)
	})
}

// uploadThroughChooser clicks an element that opens a file chooser (a
// styled button in front of a hidden input) and answers the chooser. The
// chooser is intercepted and answered on the session of the element's
// frame, whose renderer opens it.
func uploadThroughChooser(ctx context.Context, sl *Slice, t page.Element, files []string, opts page.InputOptions) (page.InputResult, error) {
	h := sl.h
	intercept := func(ctx context.Context, on bool) error {
		return t.Client().Page.SetInterceptFileChooserDialog(ctx, cdppage.NewSetInterceptFileChooserDialogArgs(on))
	}
	if err := h.Call(ctx, func(ctx context.Context) error { return intercept(ctx, true) }); err != nil {
		return page.InputResult{}, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		h.Await(rctx, func(ctx context.Context) error { return intercept(ctx, false) }, nil)
	}()
	watch, stop := sl.watching()
	defer stop()
	res, err := h.Elements().ActOn(ctx, t, "upload", func(ctx context.Context, t page.Element, p *page.Progress) error {
		x, y, err := t.Point(ctx)
		if err != nil {
			return err
		}
		if err := mouseClick(ctx, t.Client(), x, y, 1, p); err != nil {
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
				return setFiles(ctx, t.Client(), e.BackendNodeID, files)
			case <-wait.C:
				return ErrNoFileChooser
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	var ie *page.InteractError
	if errors.As(err, &ie) && errors.Is(err, ErrNoFileChooser) || err == nil && res.Dialog {
		// A click that opened a dialog opened no file chooser either.
		err = ErrNoFileChooser
	}
	return h.Elements().FinishInput(ctx, res, err, opts)
}

// setFiles gives files to a file input through c, the client of the
// session that reaches its frame.
func setFiles(ctx context.Context, c *cdp.Client, node dom.BackendNodeID, files []string) error {
	return c.DOM.SetFileInputFiles(ctx, dom.NewSetFileInputFilesArgs(files).SetBackendNodeID(node))
}
