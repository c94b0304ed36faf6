package page

import "context"

// FrameURLs returns the URL of each frame the page knows (out-of-process
// ones included), by frame id: a copy the caller may keep.
func (h *Host) FrameURLs() map[string]string {
	out := make(map[string]string, len(h.a.frames.byID))
	for id, f := range h.a.frames.byID {
		out[id] = f.url
	}
	return out
}

// AwaitChildren waits until the out-of-process iframes being attached are
// set up, so that their frames are known, while the page keeps applying
// events.
func (h *Host) AwaitChildren(ctx context.Context) error { return h.a.children.await(ctx) }
