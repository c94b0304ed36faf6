package axsnapshot

// The AX-tree path of snapshots: a verbose snapshot is Chrome's full
// accessibility tree of every frame (Accessibility.getFullAXTree), meant to
// be exhaustive (InlineTextBoxes, ignored nodes). Its nodes are known by
// backend node id.

import (
	"context"

	"github.com/mafredri/cdp/protocol/accessibility"
	"github.com/mafredri/cdp/protocol/dom"
	pg "github.com/mafredri/cdp/protocol/page"
	"golang.org/x/sync/errgroup"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/snapshot"
)

// readAX builds a snapshot from Accessibility.getFullAXTree of every
// frame, filtered as Puppeteer filters it unless verbose. It runs on the
// run goroutine.
func (s *slice) readAX(ctx context.Context, frames []page.FrameInfo, verbose bool) (*snapshot.Node, error) {
	trees := make([]*snapshot.Frame, len(frames))
	owners := make([]int, len(frames))
	sessions, parents := s.frameSessions(frames)
	err := s.h.Call(ctx, func(ctx context.Context) error {
		g, ctx := errgroup.WithContext(ctx)
		for i, f := range frames {
			c, pc := sessions[i].Client(), parents[i].Client()
			g.Go(func() error {
				r, err := c.Accessibility.GetFullAXTree(ctx,
					accessibility.NewGetFullAXTreeArgs().SetFrameID(pg.FrameID(f.ID)))
				if err != nil {
					if i == 0 {
						return err
					}
					return nil // a frame that went away or lives in another process
				}
				trees[i] = &snapshot.Frame{FrameID: f.ID, LoaderID: f.LoaderID, Nodes: r.Nodes}
				if i > 0 {
					if o, err := pc.DOM.GetFrameOwner(ctx, dom.NewGetFrameOwnerArgs(pg.FrameID(f.ID))); err == nil {
						owners[i] = int(o.BackendNodeID)
					}
				}
				return nil
			})
		}
		return g.Wait()
	})
	if err != nil {
		return nil, err
	}
	byID := map[string]*snapshot.Frame{}
	for _, t := range trees {
		if t != nil {
			byID[t.FrameID] = t
		}
	}
	for i, t := range trees {
		if i == 0 || t == nil || owners[i] == 0 {
			continue
		}
		if parent := byID[frames[i].Parent]; parent != nil {
			if parent.Children == nil {
				parent.Children = map[int]*snapshot.Frame{}
			}
			parent.Children[owners[i]] = t
		}
	}
	return snapshot.Build(trees[0], verbose), nil
}
