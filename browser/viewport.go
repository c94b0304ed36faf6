package browser

import (
	"context"
	"fmt"
	"time"

	cdpbrowser "github.com/mafredri/cdp/protocol/browser"
	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// viewportSettle bounds the wait for a page's renderer to take the size
// fitViewport gave its window: half a second on a quiet machine, a few on
// a loaded one. Past it the launch goes on, the page's size logged.
const viewportSettle = 10 * time.Second

// fitViewport gives the page of a launched browser's tab the size
// --viewport asks for (Config.Viewport), as chrome-devtools-mcp does:
// --window-size sizes the whole window, tab strip and toolbar included
// (a headless Chromium 156 page is 87 pixels shorter than its window),
// so the window's content area is set to the size instead
// (Browser.setContentsSize). Only a window still at the launch's size is
// fitted: the first window, and the window each new browser context
// opens; a tab opened in a fitted window has the size already. It then
// waits, up to viewportSettle, until the page's renderer has the new
// size, so that the first call sees it.
func (s *Supervisor) fitViewport(ctx context.Context, conn *cdpconn.Conn, targetID string) error {
	width, height := viewport(s.cfg.Viewport)
	w, err := conn.Client.Browser.GetWindowForTarget(ctx, cdpbrowser.NewGetWindowForTargetArgs().SetTargetID(target.ID(targetID)))
	if err != nil {
		return fmt.Errorf("find the window of a page: %w", lostIfClosed(err))
	}
	if b := w.Bounds; b.Width == nil || b.Height == nil || *b.Width != width || *b.Height != height {
		return nil // fitted already
	}
	err = invoke(ctx, conn, "Browser.setContentsSize", map[string]any{"windowId": w.WindowID, "width": width, "height": height}, nil)
	if err != nil {
		return fmt.Errorf("size the page to --viewport %s: %w", s.cfg.Viewport, err)
	}
	sess, err := conn.Attach(ctx, targetID, cdpconn.Options{Keep: func(string) bool { return false }})
	if err != nil {
		return fmt.Errorf("size the page to --viewport %s: %w", s.cfg.Viewport, lostIfClosed(err))
	}
	defer sess.Close()
	wctx, cancel := context.WithTimeout(ctx, viewportSettle)
	defer cancel()
	got := ""
	for {
		m, err := sess.Client.Page.GetLayoutMetrics(wctx)
		if err == nil {
			v := m.CSSLayoutViewport
			if v.ClientWidth == width && v.ClientHeight == height {
				return nil
			}
			got = fmt.Sprintf("%dx%d", v.ClientWidth, v.ClientHeight)
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.log.Warn().Str("viewport", s.cfg.Viewport).Str("page", got).Msg("the page has not taken --viewport's size yet")
			return nil
		case <-time.After(10 * time.Millisecond):
		}
	}
}
