package axsnapshot

import (
	"context"
	"net/http"
	"testing"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/pagetest"
)

// TestFrameOwnerStaleWorld: the parent's walker world the page knew may
// have gone with its document by the time an iframe's owner is looked up;
// the lookup then finds the world the parent has now, and names the same
// <iframe> as a lookup that made the world itself.
func TestFrameOwnerStaleWorld(t *testing.T) {
	t.Parallel()
	base := pagetest.Serve(t, map[string]http.Handler{"/": browsertest.HTML("Outer", `<iframe srcdoc="<p>inner</p>"></iframe>`)})
	a := pagetest.Open(t, base+"/")
	ctx := pagetest.Ctx(t)
	s := key.Of(a)
	var child page.FrameInfo
	testwait.Until(t, "the iframe's frame", func() bool {
		fs, err := page.Do(ctx, s.h, func(context.Context) ([]page.FrameInfo, error) { return s.h.Frames(), nil })
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Parent != "" {
				child = f
			}
		}
		return child.ID != ""
	})
	ids, err := page.Do(ctx, s.h, func(ctx context.Context) ([2]int, error) {
		parent := s.h.SessionOf(child.Parent)
		var ids [2]int
		err := s.h.Call(ctx, func(ctx context.Context) (err error) {
			if ids[0], err = frameOwnerID(ctx, parent, child, 0); err != nil {
				return err
			}
			// A context id the renderer never had, as a replaced
			// document's world is to it.
			ids[1], err = frameOwnerID(ctx, parent, child, runtime.ExecutionContextID(1<<30))
			return err
		})
		return ids, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] == 0 || ids[1] != ids[0] {
		t.Errorf("owner ids: with the world made %d, with a gone world %d; want the same, non-zero", ids[0], ids[1])
	}
}

// TestWalkStaleWorld: a walk given a walker world that has gone (the
// document replaced since the page heard of it) walks in the world the
// frame has now.
func TestWalkStaleWorld(t *testing.T) {
	t.Parallel()
	base := pagetest.Serve(t, map[string]http.Handler{"/": browsertest.HTML("Page", `<button>Go</button>`)})
	a := pagetest.Open(t, base+"/")
	ctx := pagetest.Ctx(t)
	s := key.Of(a)
	w, err := page.Do(ctx, s.h, func(ctx context.Context) (walked, error) {
		main := s.h.Frames()[0]
		main.World = runtime.ExecutionContextID(1 << 30)
		var w walked
		err := s.h.Call(ctx, func(ctx context.Context) (err error) {
			w, err = walkFrame(ctx, s.h.SessionOf(main.ID), main)
			return err
		})
		return w, err
	})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range w.walk.Nodes {
		found = found || n.Role == "button" && n.Name == "Go"
	}
	if !found || w.context == 1<<30 {
		t.Errorf("walk in context %d found the button: %v", w.context, found)
	}
}
