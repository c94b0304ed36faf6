package page

// What the screenshot capability (page/screenshot) needs of the page's
// core beyond [Elements.Element]: where an element of an out-of-process
// iframe lies in the page, waiting for such iframes to draw, and the
// page's connection that streams an image to its destination.

import (
	"context"
	"io"
)

// InIframe reports whether e lives in an out-of-process iframe, whose
// session measures it in that frame's own coordinates.
func (e Element) InIframe() bool { return len(e.r.hops) > 0 }

// Offset returns where the top left corner of the viewport of e's
// out-of-process iframe lies in the page's viewport, scrolling each
// <iframe> above it into view first; 0, 0 for an element the page's own
// renderer draws. It touches no actor state: call it inside [Host.Call].
func (e Element) Offset(ctx context.Context) (x, y float64, err error) {
	return offset(ctx, e.r.hops, true)
}

// AwaitPainted waits until each out-of-process iframe e is drawn in has
// drawn a frame (see painted), so that a capture shows what it draws now.
// Best effort, bounded by half of ctx's time. It touches no actor state:
// call it inside [Host.Call].
func (e Element) AwaitPainted(ctx context.Context) {
	painted(ctx, oopifFrames(e.r.c, e.r.hops)...)
}

// CallStream sends a command on the session and streams the base64 field
// of its reply, decoded, to w as it arrives, never holding it whole: it
// returns the number of bytes written. w is written from the connection's
// reader and must not block for long. Safe from any goroutine.
func (s *Session) CallStream(ctx context.Context, method string, params any, field string, w io.Writer) (int64, error) {
	_, n, err := s.conn.CallStream(ctx, method, params, field, w)
	return n, err
}
