package axsnapshot

// wait_for: waiting until a text appears in any frame of the page, then
// taking a snapshot.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/js"
)

// WaitForResult reports which text appeared, with the snapshot taken then.
type WaitForResult struct {
	Found    string
	Snapshot string
	page.State
}

// WaitForText waits until any of texts appears in any frame of page a,
// then takes a snapshot. It fails with a [*page.TimeoutError] after
// timeout (0 means the page's current default, [page.Actor.Timeouts]).
func WaitForText(ctx context.Context, a *page.Actor, texts []string, timeout time.Duration) (WaitForResult, error) {
	if timeout <= 0 {
		timeout = a.Timeouts().WaitFor
	}
	s := key.Of(a)
	return page.Do(ctx, s.h, func(ctx context.Context) (WaitForResult, error) {
		var res WaitForResult
		// The headroom comes off the call's deadline, not off timeout:
		// the reply says the wait lasted timeout, so it must.
		wctx, cancel := page.Within(ctx)
		defer cancel()
		wctx, cancel2 := context.WithTimeout(wctx, timeout)
		defer cancel2()
		for {
			if err := s.h.NeedRenderer(); err != nil {
				return res, err
			}
			var frames []textFrame
			for _, f := range s.h.Frames() {
				if f.Scripted {
					frames = append(frames, textFrame{s: s.h.SessionOf(f.ID), id: f.ID, world: f.World})
				}
			}
			// Wait in slices, so that frames created meanwhile join in.
			slice := time.Second
			if dl, ok := wctx.Deadline(); ok {
				slice = min(slice, time.Until(dl))
			}
			var found atomic.Pointer[string]
			err := s.h.Call(wctx, func(ctx context.Context) error {
				return findText(ctx, frames, texts, slice, &found)
			})
			if p := found.Load(); p != nil && err == nil {
				res.Found = *p
				break
			}
			var de *page.DialogError
			if errors.As(err, &de) || errors.Is(err, page.ErrCrashed) || ctx.Err() != nil {
				return res, err
			}
			if wctx.Err() != nil {
				// In milliseconds, as chrome-devtools-mcp says it.
				return res, &page.TimeoutError{What: "waiting for text", Budget: fmt.Sprintf("%dms", timeout.Milliseconds())}
			}
		}
		text, _, err := s.take(ctx, false)
		res.Snapshot, res.State = text, s.h.State()
		return res, err
	})
}

// textFrame is a frame wait_for looks in, and the session that reaches it
// (out-of-process iframes have their own).
type textFrame struct {
	s     *page.Session
	id    string
	world runtime.ExecutionContextID // its isolated world, if the page knows it
}

// findText runs js.FindText in each frame at once and stores the first text
// found. It runs in the frames' isolated world, where the page's scripts
// cannot replace what it uses (MutationObserver, timers, String methods)
// to make it miss a text, see one that is not there, or never return; it
// sees the same DOM. Frames that disappear (a navigation) are skipped.
func findText(ctx context.Context, frames []textFrame, texts []string, wait time.Duration, found *atomic.Pointer[string]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	textsArg, err := json.Marshal(texts)
	if err != nil {
		return err
	}
	msArg, _ := json.Marshal(wait.Milliseconds())
	done := make(chan struct{}, len(frames))
	for _, f := range frames {
		go func() { // each ends when its calls return; cancel bounds them
			defer func() { done <- struct{}{} }()
			find := func(world runtime.ExecutionContextID) (*runtime.CallFunctionOnReply, error) {
				return f.s.Client().Runtime.CallFunctionOn(ctx, runtime.NewCallFunctionOnArgs(js.FindText).
					SetExecutionContextID(world).SetArguments([]runtime.CallArgument{{Value: textsArg}, {Value: msArg}}).
					SetAwaitPromise(true).SetReturnByValue(true))
			}
			var r *runtime.CallFunctionOnReply
			var err error
			if f.world != 0 {
				r, err = find(f.world)
			}
			// A world the page does not know yet, or one whose document
			// was replaced before the page heard: the frame's world now.
			if f.world == 0 || walker.ContextGone(err) {
				world, werr := f.s.SnapshotWorld(ctx, f.id)
				if werr != nil {
					return
				}
				r, err = find(world)
			}
			if err != nil || r.ExceptionDetails != nil {
				return
			}
			var s *string
			if json.Unmarshal(r.Result.Value, &s) == nil && s != nil {
				if found.CompareAndSwap(nil, s) {
					cancel()
				}
			}
		}()
	}
	for range frames {
		<-done
	}
	if len(frames) == 0 {
		select {
		case <-ctx.Done():
		case <-time.After(min(wait, 100*time.Millisecond)):
		}
	}
	return nil
}
