package page

// The page's frame tree: which frames its target has, which document and
// URL each shows, its default execution context and the snapshot
// walker's isolated world (once a snapshot made it), and which CDP session
// reaches it. It is built from Page.getFrameTree and kept up to date from
// the frame and context events of every session, the page's own and its
// out-of-process iframes' (oopif.go).

import (
	"encoding/json"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page/internal/walker"
)

// frameTree is what the page knows of its frames. The run goroutine owns
// it. Its invariants, which only its methods keep:
//   - url is the URL of frame main, fragment included, as last reported;
//   - a frame whose sess is nil is reached through top ([frameTree.sessionOf]);
//   - a frame's context is an execution context of its session's renderer,
//     or 0 when it has none yet: context ids are per renderer;
//   - a session's frame tree, read before the events that session sent
//     meanwhile are applied, does not overwrite what those events said
//     ([frame.navigatedOn]).
type frameTree struct {
	// top is the page's own session, set once the page has attached.
	top  *Session
	main string            // id of the main frame
	url  string            // main frame's URL, fragment included
	byID map[string]*frame // every known frame of the target
}

func newFrameTree() *frameTree { return &frameTree{byID: map[string]*frame{}} }

// frame is what the page knows of one frame.
type frame struct {
	id       string
	parent   string
	loaderID string
	url      string
	context  runtime.ExecutionContextID // default world, 0 when none yet
	// world is the snapshot walker's isolated world in the frame's
	// document, 0 until a snapshot or a uid made it (walker.IsWorld).
	world runtime.ExecutionContextID
	// tracker is the document's tracker controller (tracker.go), as
	// found in context trackerIn (the context its remote object id
	// names): valid while that context is the frame's. It spares each
	// action two round trips to find it.
	tracker   runtime.RemoteObjectID
	trackerIn runtime.ExecutionContextID
	// sess is the session that reaches the frame: the page's own, or an
	// out-of-process iframe's; nil until a session reports the frame,
	// which then counts as the page's own ([frameTree.sessionOf]).
	sess *Session
	// navigatedOn is the session whose Page.frameNavigated last set url
	// and loaderID, if any: that session's frame tree, read earlier, must
	// not overwrite them (addTree).
	navigatedOn *Session
}

// of returns frame id, made empty if the tree does not know it yet.
func (t *frameTree) of(id string) *frame {
	f := t.byID[id]
	if f == nil {
		f = &frame{id: id}
		t.byID[id] = f
	}
	return f
}

// setURL sets frame f's URL, and the page's when f is the main frame.
func (t *frameTree) setURL(f *frame, url string) {
	f.url = url
	if f.id == t.main {
		t.url = url
	}
}

// addTree records a frame tree, as Page.getFrameTree on session s returns
// it. A parent's tree also lists the frames of its out-of-process iframes;
// those stay with the child session that reaches them.
func (t *frameTree) addTree(s *Session, ft page.FrameTree) {
	f := t.of(string(ft.Frame.ID))
	if f.sess == nil || !below(f.sess, s) {
		f.sess = s
	}
	if ft.Frame.ParentID != nil {
		f.parent = string(*ft.Frame.ParentID)
	}
	// A child session's tree is read before its renderer runs, and applied
	// after the events that session sent meanwhile: a navigation it
	// reported is newer than the tree.
	if f.navigatedOn != s {
		f.loaderID = string(ft.Frame.LoaderID)
		f.url = ft.Frame.URL
		if ft.Frame.URLFragment != nil {
			f.url += *ft.Frame.URLFragment
		}
	}
	if f.id == t.main {
		t.url = f.url
	}
	for _, c := range ft.ChildFrames {
		t.addTree(s, c)
	}
}

// below reports whether session c is attached under s, at any depth.
func below(c, s *Session) bool {
	for p := c.parent; p != nil; p = p.parent {
		if p == s {
			return true
		}
	}
	return false
}

// frameEvents are the events [frameTree.apply] applies.
var frameEvents = []string{
	"Page.frameNavigated",
	"Page.navigatedWithinDocument",
	"Page.frameAttached",
	"Page.frameDetached",
	"Runtime.executionContextCreated",
	"Runtime.executionContextDestroyed",
	"Runtime.executionContextsCleared",
}

// apply updates the tree from one event of session s; events that are
// not about frames or contexts leave it as it is.
func (t *frameTree) apply(s *Session, ev cdpconn.Event) error {
	switch ev.Method {
	case "Page.frameNavigated":
		var e page.FrameNavigatedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		t.navigated(s, e.Frame)
	case "Page.navigatedWithinDocument":
		var e page.NavigatedWithinDocumentReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		t.setURL(t.of(string(e.FrameID)), e.URL)
	case "Page.frameAttached":
		var e page.FrameAttachedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		t.of(string(e.FrameID)).parent = string(e.ParentFrameID)
	case "Page.frameDetached":
		var e page.FrameDetachedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		// A frame swapped into another process (reason "swap") lives on
		// under the session that attaches to it.
		if e.Reason != "swap" {
			delete(t.byID, string(e.FrameID))
		}
	case "Runtime.executionContextCreated":
		var e runtime.ExecutionContextCreatedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		var aux struct {
			IsDefault bool   `json:"isDefault"`
			FrameID   string `json:"frameId"`
			Type      string `json:"type"`
		}
		json.Unmarshal(e.Context.AuxData, &aux)
		switch {
		case aux.FrameID == "":
		case aux.IsDefault:
			f := t.of(aux.FrameID)
			if f.sess != s {
				f.world = 0 // another renderer's id
			}
			f.context, f.sess = e.Context.ID, s
		case walker.IsWorld(e.Context.Name, aux.Type):
			// Made on the session that reaches the frame (a snapshot
			// asked it), which a default context named already.
			if f := t.byID[aux.FrameID]; f != nil && t.sessionOf(f.id) == s {
				f.world = e.Context.ID
			}
		}
	case "Runtime.executionContextDestroyed":
		var e runtime.ExecutionContextDestroyedReply
		if err := json.Unmarshal(ev.Params, &e); err != nil {
			return err
		}
		t.contextsGone(s, e.ExecutionContextID)
	case "Runtime.executionContextsCleared":
		t.contextsGone(s, 0)
	}
	return nil
}

// navigated records a frame's new document, as session s reports it.
func (t *frameTree) navigated(s *Session, nf page.Frame) {
	f := t.of(string(nf.ID))
	// Whichever session reports a frame's navigation reaches it now: an
	// iframe that came back into its parent's process is the
	// parent's again.
	f.sess, f.navigatedOn = s, s
	if nf.ParentID != nil {
		f.parent = string(*nf.ParentID)
	} else if s == t.top {
		t.main = f.id
	}
	if f.loaderID != string(nf.LoaderID) {
		// A new document: the walker's world and the iframes of the old
		// one went with it. Chrome does not report those iframes detached;
		// left here, each snapshot would try to walk them. An iframe in a
		// process of its own goes with its session (forget).
		f.world = 0
		t.dropChildren(s, f.id)
	}
	f.loaderID = string(nf.LoaderID)
	url := nf.URL
	if nf.URLFragment != nil {
		url += *nf.URLFragment
	}
	t.setURL(f, url)
}

// contextsGone forgets execution context id of session s, or all of s's
// when id is 0. Context ids are per renderer: only s's frames can hold
// one of its.
func (t *frameTree) contextsGone(s *Session, id runtime.ExecutionContextID) {
	for _, f := range t.byID {
		if t.sessionOf(f.id) != s {
			continue
		}
		if id == 0 || f.context == id {
			f.context = 0
		}
		if id == 0 || f.world == id {
			f.world = 0
		}
	}
}

// dropChildren forgets the frames below frame id that session s reaches.
func (t *frameTree) dropChildren(s *Session, id string) {
	for cid, c := range t.byID {
		if c.parent == id && cid != id && t.sessionOf(cid) == s {
			delete(t.byID, cid)
			t.dropChildren(s, cid)
		}
	}
}

// forget forgets the frames only session s reached, which has gone.
func (t *frameTree) forget(s *Session) {
	for id, f := range t.byID {
		if f.sess == s {
			delete(t.byID, id)
		}
	}
}

// sessionOf returns the session that reaches frame id: the page's own for
// a frame not known to live elsewhere.
func (t *frameTree) sessionOf(frameID string) *Session {
	if f := t.byID[frameID]; f != nil && f.sess != nil {
		return f.sess
	}
	return t.top
}

// mainLoader returns the loader id of the main frame's document, "" if
// the main frame is not known: a new document gets a new one, a
// same-document navigation keeps it.
func (t *frameTree) mainLoader() string {
	if f := t.byID[t.main]; f != nil {
		return f.loaderID
	}
	return ""
}

// mainContext returns the execution context of the main frame's main
// world, 0 if not known.
func (t *frameTree) mainContext() runtime.ExecutionContextID {
	if f := t.byID[t.main]; f != nil {
		return f.context
	}
	return 0
}

// hop is one step from an out-of-process frame's coordinates to its
// parent's: the parent's session and the frame whose <iframe> element
// there places it.
type hop struct {
	parent  *cdp.Client
	frameID string
}

// hops lists the steps from frame id's session up to the page's, innermost
// first; none for a frame the page's own renderer draws.
func (t *frameTree) hops(frameID string) []hop {
	var out []hop
	for s := t.sessionOf(frameID); s != nil && s.parent != nil; {
		p := t.top
		if f := t.byID[s.root]; f != nil && f.parent != "" {
			p = t.sessionOf(f.parent)
		}
		out = append(out, hop{parent: p.c, frameID: s.root})
		if p == s { // a frame tree that names itself: stop rather than loop
			break
		}
		s = p
	}
	return out
}
