package page

// Out-of-process iframes. A cross-site iframe runs in a
// renderer of its own, which the page's session cannot reach: its DOM,
// scripts, console and requests belong to a target of its own. The page's
// session asks Chrome to attach to those targets as they appear
// (Target.setAutoAttach, flat sessions, paused until we have listened:
// waitForDebuggerOnStart), and the actor owns each child session as it
// owns its own ([children]): its events land in the actor's queue and are
// applied on the run goroutine, its frames join the page's frame tree
// (frames.go), each frame knowing which session reaches it ([frame.sess]).
//
// Everything else follows from that: the walker walks each frame in its
// session and hangs the frame's tree under its <iframe> in its parent's
// (page/axsnapshot); a uid resolves in its frame's session (uid.go); input
// events go to the page's session, which Chrome routes to the frame under
// the point, at the element's position shifted by the offsets of the
// out-of-process <iframe>s above it (offset, below); wait_for, the
// collectors, dialogs and evaluate_script use the session of their frame.
//
// An iframe that navigates to another site keeps its frame id: Chrome
// detaches the old session (Target.detachedFromTarget) and attaches a new
// one, or keeps the session and swaps the document under it; either way
// the frame's loader id changes, so a uid taken before fails as stale.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/mailbox"
	"github.com/tabhive/tabhive/page/internal/walker"
	"github.com/tabhive/tabhive/page/js"
)

// Session is one CDP session of the page: the page's own, or that of an
// out-of-process iframe Chrome attached under it. Its fields are fixed at
// creation; capabilities reach it through its methods.
type Session struct {
	// Fixed at creation; conn and c may be used from any goroutine.
	id     string // CDP session id
	conn   *cdpconn.Conn
	c      *cdp.Client
	parent *Session // nil for the page's own session
	// root is the id of the frame the session's target renders (its
	// target id); "" for the page's own session.
	root string
	// setUp is closed once the session's domains are enabled and its
	// frame tree posted (or that failed); nil for the page's own session.
	setUp chan struct{}
}

// autoAttachArgs are Target.setAutoAttach's arguments on the page's session
// and on every child session: flat mode, each new target paused until the
// actor has enabled what it listens to. Every kind of target is attached,
// not iframes only: Chrome pauses a dedicated worker that a filter leaves
// out all the same, and nobody would resume it (measured with Chromium
// 156: the worker never ran). attached resumes and lets go of all but
// iframes.
var autoAttachArgs = map[string]any{
	"autoAttach":             true,
	"waitForDebuggerOnStart": true,
	"flatten":                true,
}

// setAutoAttach asks Chrome to attach s's out-of-process iframes.
func setAutoAttach(ctx context.Context, conn *cdpconn.Conn) error {
	return rpcc.Invoke(ctx, "Target.setAutoAttach", autoAttachArgs, nil, conn.RPC())
}

// targetAttached is Target.attachedToTarget.
type targetAttached struct {
	SessionID  string `json:"sessionId"`
	TargetInfo struct {
		TargetID string `json:"targetId"`
		Type     string `json:"type"`
		URL      string `json:"url"`
	} `json:"targetInfo"`
}

// children are the sessions of the page's out-of-process iframes, nested
// ones included, by session id. The run goroutine owns them. Lifecycle: a
// session is added on Target.attachedToTarget, and set up on an adopt
// goroutine (adopting) that posts the outcome back; it is removed and
// closed on Target.detachedFromTarget, with those attached under it, and
// when the actor exits (close, which waits for the adopt goroutines).
type children struct {
	byID map[string]*Session
	// frames is the page's frame tree, where a child's frames are
	// recorded once it is set up and forgotten when it goes.
	frames *frameTree
	// adopting counts the goroutines setting up child sessions.
	adopting sync.WaitGroup

	// Fixed at creation: what the page gives its children.
	log zerolog.Logger
	// timeout bounds setting a session up.
	timeout time.Duration
	// ready is the page's channel that wakes the run goroutine when a
	// session has queued events.
	ready chan struct{}
	// posted is the page's queue of work for the run goroutine, which an
	// adopt goroutine hands its outcome through; safe from any goroutine.
	posted *mailbox.Queue[func()]
	// call runs one blocking CDP exchange while the page keeps applying
	// events, ending at once when a dialog opens or the renderer
	// crashes ([Actor.call]); drain applies the events queued so far.
	call  func(ctx context.Context, fn func(ctx context.Context) error) error
	drain func()
}

// adopt adopts the session of an out-of-process iframe that Chrome
// attached under parent (Target.attachedToTarget), and starts setting it
// up, with the slices' setUps. It makes no call itself: enabling the
// session's domains and reading its frame tree run on an adopt goroutine,
// which posts the outcome back (setUpDone) and ends within c.timeout or
// when life does.
func (c *children) adopt(life context.Context, parent *Session, params json.RawMessage, setUps func() []func(context.Context, *Session) error) error {
	var e targetAttached
	if err := json.Unmarshal(params, &e); err != nil {
		return err
	}
	if life.Err() != nil {
		return nil
	}
	conn, err := parent.conn.Adopt(life, e.SessionID, cdpconn.Options{Keep: keepEvent, Ready: c.ready})
	if err != nil {
		return fmt.Errorf("adopt %s target: %w", e.TargetInfo.Type, err)
	}
	if e.TargetInfo.Type != "iframe" {
		// A worker or another target that is not a frame: not ours to
		// watch. Let it run, and let it go.
		conn.Send("Runtime.runIfWaitingForDebugger", nil)
		conn.Close()
		return nil
	}
	s := &Session{id: e.SessionID, conn: conn, c: conn.Client, parent: parent, root: e.TargetInfo.TargetID, setUp: make(chan struct{})}
	c.byID[s.id] = s
	c.frames.of(s.root) // known from its parent's Page.frameAttached, or now
	c.log.Debug().Str("frame", s.root).Str("url", e.TargetInfo.URL).Msg("out-of-process iframe attached")
	sliceSetUps := setUps()
	c.adopting.Add(1)
	go func() { // owned by c.adopting; ends within c.timeout or when the actor stops
		defer c.adopting.Done()
		ctx, cancel := context.WithTimeout(life, c.timeout)
		defer cancel()
		tree, err := setUpChild(ctx, s, sliceSetUps)
		c.posted.Push(func() { c.setUpDone(s, tree, err) })
		close(s.setUp)
	}()
	return nil
}

// setUpChild enables on a child session the domains the actor listens to,
// asks for its own out-of-process iframes, applies what the slices set on
// each session (the page's emulation, the routes' pausing of requests),
// reads its frame tree, then lets its renderer run. It runs on an adopt
// goroutine and touches no actor state.
func setUpChild(ctx context.Context, s *Session, sliceSetUps []func(context.Context, *Session) error) (*page.GetFrameTreeReply, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.c.Page.Enable(gctx) })
	g.Go(func() error { return installTracker(gctx, s.c) })
	g.Go(func() error { return walker.InstallOnNewDocuments(gctx, s.c) })
	g.Go(func() error { return s.c.Runtime.Enable(gctx) })
	g.Go(func() error { return s.c.Network.Enable(gctx, nil) })
	g.Go(func() error { return setAutoAttach(gctx, s.conn) })
	for _, fn := range sliceSetUps {
		g.Go(func() error { return fn(gctx, s) })
	}
	err := g.Wait()
	var tree *page.GetFrameTreeReply
	if err == nil {
		tree, err = s.c.Page.GetFrameTree(ctx)
	}
	// Run the renderer whatever happened, even past ctx's deadline (for a
	// second): a frame left paused would never load. An actor that stopped
	// closes the session instead, which lets the renderer run too.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if rerr := s.c.Runtime.RunIfWaitingForDebugger(rctx); err == nil {
		err = rerr
	}
	return tree, err
}

// setUpDone applies the outcome of setting up child session s, on the run
// goroutine.
func (c *children) setUpDone(s *Session, tree *page.GetFrameTreeReply, err error) {
	if c.byID[s.id] != s {
		return // detached meanwhile
	}
	if err != nil {
		c.log.Debug().Err(err).Str("frame", s.root).Msg("set up out-of-process iframe")
		return
	}
	c.frames.addTree(s, tree.FrameTree)
}

// detached forgets a child session Chrome detached (its iframe navigated
// to another process, or went away), with those attached under it and the
// frames only they reached. It returns the sessions it dropped.
func (c *children) detached(params json.RawMessage) ([]*Session, error) {
	var e struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		return nil, err
	}
	s := c.byID[e.SessionID]
	if s == nil {
		return nil, nil
	}
	return c.drop(s, nil), nil
}

// drop closes child session s and, recursively, those attached under it,
// forgets their frames, and returns gone with them added.
func (c *children) drop(s *Session, gone []*Session) []*Session {
	delete(c.byID, s.id)
	s.conn.Close()
	gone = append(gone, s)
	for _, k := range c.byID {
		if k.parent == s {
			gone = c.drop(k, gone)
		}
	}
	c.frames.forget(s)
	c.log.Debug().Str("frame", s.root).Msg("out-of-process iframe detached")
	return gone
}

// close closes every child session, as the actor exits. The adopt
// goroutines end with the actor's lifetime context; close waits for them,
// a second at most (their calls fail at once once their session is
// closed).
func (c *children) close() {
	for _, s := range c.byID {
		s.conn.Close()
	}
	waitGroup(&c.adopting, goneWait)
}

// setUpWait bounds how long a snapshot or a wait waits for out-of-process
// iframes still being set up: a frame that takes longer is left out of
// that snapshot rather than holding the page.
const setUpWait = 2 * time.Second

// await waits until every child session attached so far is set up and
// its frames are known, setUpWait at most, so that a snapshot taken right
// after a page loaded shows its out-of-process iframes. It runs on the run
// goroutine, outside a call.
func (c *children) await(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, setUpWait)
	defer cancel()
	// A child set up may attach its own children: wait for those too.
	for wctx.Err() == nil {
		c.drain() // attachments already queued
		var pending []chan struct{}
		for _, s := range c.byID {
			select {
			case <-s.setUp:
			default:
				pending = append(pending, s.setUp)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		err := c.call(wctx, func(ctx context.Context) error {
			for _, ch := range pending {
				select {
				case <-ch:
				case <-ctx.Done():
					return nil // not ready in time: left out
				}
			}
			return nil
		})
		c.drain() // apply what the set-ups posted
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, isDialog := errDialog(err); isDialog || errors.Is(err, ErrCrashed) {
			return err
		}
	}
	return nil
}

// onAll runs fn on the page's session and on each of its out-of-process
// iframes' at once, in one exchange, and returns the page's error; an
// iframe's is logged: a frame that went away meanwhile must not fail the
// page's call. It runs on the run goroutine.
func (c *children) onAll(ctx context.Context, fn func(ctx context.Context, s *Session) error) error {
	sessions := []*Session{c.frames.top}
	for _, s := range c.byID {
		sessions = append(sessions, s)
	}
	log := c.log
	return c.call(ctx, func(ctx context.Context) error {
		errs := make([]error, len(sessions))
		var wg sync.WaitGroup
		for i, s := range sessions {
			wg.Add(1)
			go func() { // waited for below
				defer wg.Done()
				sctx := ctx
				if i > 0 {
					var cancel context.CancelFunc
					sctx, cancel = childBudget(ctx)
					defer cancel()
				}
				errs[i] = fn(sctx, s)
			}()
		}
		wg.Wait()
		for i, e := range errs[1:] {
			if e != nil {
				log.Debug().Err(e).Str("frame", sessions[i+1].root).Msg("out-of-process iframe ignored a page-wide call")
			}
		}
		return errs[0]
	})
}

// offset returns where the top left corner of an out-of-process frame's
// viewport lies in the page's viewport: the sum of the content-box corners
// of the <iframe> elements above it, each in its own parent's coordinates.
// It scrolls each <iframe> into view first, outermost first, so that a
// point inside it can be clicked. It runs on a call goroutine and touches
// no actor state.
func offset(ctx context.Context, hops []hop, scroll bool) (x, y float64, err error) {
	owners := make([]dom.BackendNodeID, len(hops))
	for i := len(hops) - 1; i >= 0; i-- {
		o, err := hops[i].parent.DOM.GetFrameOwner(ctx, dom.NewGetFrameOwnerArgs(page.FrameID(hops[i].frameID)))
		if err != nil {
			return 0, 0, fmt.Errorf("find the iframe of frame %s: %w", hops[i].frameID, err)
		}
		owners[i] = o.BackendNodeID
		if scroll {
			// Best effort: an <iframe> that cannot scroll is measured as it is.
			hops[i].parent.DOM.ScrollIntoViewIfNeeded(ctx, dom.NewScrollIntoViewIfNeededArgs().SetBackendNodeID(o.BackendNodeID))
		}
	}
	for i, h := range hops {
		m, err := h.parent.DOM.GetBoxModel(ctx, dom.NewGetBoxModelArgs().SetBackendNodeID(owners[i]))
		if err != nil {
			return 0, 0, fmt.Errorf("place the iframe of frame %s: %w", h.frameID, err)
		}
		if len(m.Model.Content) == 8 {
			x += m.Model.Content[0]
			y += m.Model.Content[1]
		}
	}
	return x, y, nil
}

// waitGroup waits for wg, d at most.
func waitGroup(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }() // ends when wg does; nothing else holds it
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// paintWait bounds [painted] for a frame that is shown: a renderer on a
// busy machine draws late (at load 17 on 2 cores an iframe scrolled into
// view had not drawn after 2 s, and a screenshot showed the page behind
// it). A frame that is not shown draws nothing and is not waited for.
const paintWait = 10 * time.Second

// frameClient is an out-of-process iframe's session and the id of the
// frame at its root.
type frameClient struct {
	c       *cdp.Client
	frameID string
}

// painted waits until the document of each of frames (out-of-process
// iframes) has drawn a frame since it was called: paintWait at most, and
// never past half the time ctx has left. Chrome hit-tests the mouse
// events the page's session sends, and paints its screenshots, with what
// each iframe last drew; an iframe that just loaded, moved into view or
// changed may not have drawn it yet. Errors are ignored: the action goes
// ahead as it would have. It returns how many of the frames said they drew
// (a test's view of it). It runs on a call goroutine.
func painted(ctx context.Context, frames ...frameClient) int {
	wait := paintWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var g errgroup.Group
	var drew atomic.Int32
	seen := map[*cdp.Client]bool{}
	for _, f := range frames {
		if f.c == nil || seen[f.c] {
			continue
		}
		seen[f.c] = true
		g.Go(func() error {
			w, err := f.c.Page.CreateIsolatedWorld(ctx, page.NewCreateIsolatedWorldArgs(page.FrameID(f.frameID)).
				SetWorldName(walker.World))
			if err != nil {
				return nil
			}
			r, err := f.c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.Painted).SetContextID(w.ExecutionContextID).
				SetAwaitPromise(true).SetReturnByValue(true).SetSilent(true))
			if err == nil && r.ExceptionDetails == nil && string(r.Result.Value) == "true" {
				drew.Add(1)
			}
			return nil
		})
	}
	g.Wait()
	return int(drew.Load())
}

// oopifFrames returns the out-of-process iframes an element of frame c,
// hops away from the page, is drawn in: its own and those around it, each
// with the frame at the root of its session.
func oopifFrames(c *cdp.Client, hops []hop) []frameClient {
	out := make([]frameClient, 0, len(hops))
	for i, h := range hops {
		if i > 0 {
			c = hops[i-1].parent
		}
		out = append(out, frameClient{c: c, frameID: h.frameID})
	}
	return out
}

// childBudget returns a context for work in an out-of-process iframe that
// ends when three quarters of ctx's remaining time have passed, so that a
// frame whose renderer hangs (a script in an endless loop) is left out
// while the page's own work still returns in time.
func childBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, time.Until(dl)*3/4)
}
