// Package screenshot is a page's screenshot capability: capturing the
// viewport, the full page or one element (take_screenshot, and --slim's
// screenshot), streamed from the browser to a file or to the reply, and
// the tools that do it.
//
// Chrome does the work: the capture is clipped to the element's box or to
// the page's content size, and scaled down to fit the configured bounds,
// so no image is decoded here. The capability has no per-page state: its
// [Slice] holds the page's Host, through which a capture runs on the
// page's run goroutine ([page.Do]) and its CDP exchange on a call
// goroutine of the page's ([page.Host.Call]). It starts no goroutine of
// its own.
package screenshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/dom"
	cdppage "github.com/mafredri/cdp/protocol/page"
	"github.com/mafredri/cdp/protocol/runtime"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/js"
)

// Slice is the screenshot capability on one page: the page's Host,
// through which captures run.
type Slice struct{ h *page.Host }

// hosts finds a page's Host for its captures.
var hosts = page.RegisterStateless("screenshot")

// Image formats of [Take].
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatWebP = "webp"
)

// Options say what [Take] captures and how. The zero value captures the
// viewport as a PNG at the page's own resolution.
type Options struct {
	// Format is [FormatPNG], [FormatJPEG] or [FormatWebP]. If empty, PNG.
	Format string
	// Quality is the JPEG or WebP quality, 0 to 100; PNG ignores it. If
	// nil, Chrome's default (80).
	Quality *int
	// UID, if set, names an element of the latest snapshot: it is scrolled
	// into view and captured alone.
	UID string
	// FullPage captures the whole scrollable page instead of the viewport.
	// It cannot be combined with UID.
	FullPage bool
	// MaxWidth and MaxHeight, if positive, bound the image's size in
	// pixels: a bigger capture is scaled down to fit, keeping its aspect
	// ratio. The bound is on image pixels, so a page with a device pixel
	// ratio of 2 is scaled by half as much again.
	MaxWidth, MaxHeight int
	// Sink, if set, receives the image as it is read from the browser, a
	// chunk at a time, so that it is never held whole: Image.Data is then
	// nil. It is written from the connection's reader, so it must not
	// block for long (a file, a bounded buffer); an error it returns fails
	// the screenshot. A big capture is tens of megabytes (a full page of a
	// photo gallery), which would otherwise pass through memory several
	// times over: as base64 text, decoded, and copied to its file.
	Sink io.Writer
}

// Image is a screenshot of a page or of one of its elements.
type Image struct {
	// Data is the image, encoded in Format; nil when it went to
	// Options.Sink.
	Data []byte
	// Size is the image's size in bytes.
	Size int64
	// Format is png, jpeg or webp.
	Format string
	page.State
}

// Error reports a screenshot that cannot be taken as asked. Its
// Error text is the sentence the agent reads. With none of Conflict, Limit
// and Empty set, the element UID has no visible box to capture.
type Error struct {
	// UID is the element asked for.
	UID string
	// Conflict is set when the call asked for an element and the full page
	// at once.
	Conflict bool
	// Format is set, with Width, Height and Limit, when the image would be
	// larger than Format's encoder allows: Limit pixels on each side.
	// Width and Height are in image pixels; FullPage says what was
	// captured (else the element UID).
	Format        string
	Width, Height int
	Limit         int
	FullPage      bool
	// Empty is set, with Format, when Chrome returned an image of no bytes,
	// which it does instead of failing when a capture is too large.
	Empty bool
}

// AgentSentence is the Error text, written for the agent.
func (e *Error) AgentSentence() string { return e.Error() }

func (e *Error) Error() string {
	switch {
	case e.Conflict:
		// chrome-devtools-mcp's sentence, verbatim.
		return `Providing both "uid" and "fullPage" is not allowed.`
	case e.Empty:
		return fmt.Sprintf("Chrome returned an empty %s image, as it does when a capture is too large for the format. Use format png, or capture less (one element with uid, or the viewport).", e.Format)
	case e.Limit > 0:
		what, side, size := "page", "tall", e.Height
		if e.Height <= e.Limit {
			side, size = "wide", e.Width
		}
		if !e.FullPage {
			what = "element"
		}
		advice := "Use format png."
		if e.FullPage {
			advice = "Use format png, or take a screenshot of the viewport or of one element (uid)."
		}
		return fmt.Sprintf("The %s is %d pixels %s; a %s screenshot can be at most %d pixels %s. %s", what, size, side, e.Format, e.Limit, side, advice)
	}
	return fmt.Sprintf("Element with uid %s is not visible: it has no box on the page to take a screenshot of.", e.UID)
}

// encoderLimit is the longest side, in image pixels, that Chrome's encoder
// for format can write; 0 when there is none to check. Beyond it Chrome
// answers Page.captureScreenshot with an empty image and no error:
// libjpeg-turbo stops at its JPEG_MAX_DIMENSION, 65500 (not the 65535 the
// format's 16 bits allow), libwebp at 14 bits.
func encoderLimit(format string) int {
	switch format {
	case FormatJPEG:
		return 65500
	case FormatWebP:
		return 16383
	}
	return 0
}

// errNotVisible is what elementBox returns for an element without a box.
var errNotVisible = errors.New("the element has no visible box")

// Take captures the viewport, the full page or one element of page a.
//
// Chrome does the work: the capture is clipped to the element's box or to
// the page's content size, and scaled down (the clip's scale) to fit
// MaxWidth and MaxHeight, so no image is decoded here. A full-page capture,
// or one of an element that does not fit in the viewport, uses
// captureBeyondViewport, which Chrome undoes when the capture ends: the
// page's viewport size and emulated metrics are left as they were. One
// trace remains, as with chrome-devtools-mcp, which captures the same way:
// Chrome leaves the page's classic scrollbar hidden until it next loads.
func Take(ctx context.Context, a *page.Actor, opts Options) (Image, error) {
	if opts.Format == "" {
		opts.Format = FormatPNG
	}
	switch opts.Format {
	case FormatPNG, FormatJPEG, FormatWebP:
	default:
		return Image{}, fmt.Errorf("screenshot: unknown format %q", opts.Format)
	}
	sl := &Slice{h: hosts.Of(a)}
	return page.Do(ctx, sl.h, func(ctx context.Context) (Image, error) {
		// The dialog check comes first, as in chrome-devtools-mcp, whose
		// tools check for a dialog before they look at their arguments.
		if err := sl.h.NeedRenderer(); err != nil {
			return Image{}, err
		}
		if opts.UID != "" && opts.FullPage {
			return Image{}, &Error{UID: opts.UID, Conflict: true}
		}
		data, size, err := sl.screenshot(ctx, opts)
		if err != nil {
			return Image{}, err
		}
		return Image{Data: data, Size: size, Format: opts.Format, State: sl.h.State()}, nil
	})
}

// screenshot runs on the run goroutine.
func (sl *Slice) screenshot(ctx context.Context, opts Options) ([]byte, int64, error) {
	var el *page.Element // nil: the page
	if opts.UID != "" {
		e, err := sl.h.Elements().Element(ctx, opts.UID)
		if err != nil {
			return nil, 0, err
		}
		el = &e
	}
	var data []byte
	var size int64
	top := sl.h.Top()
	err := sl.h.Call(ctx, func(ctx context.Context) (err error) {
		data, size, err = capture(ctx, top, el, opts)
		return err
	})
	switch {
	case errors.Is(err, page.ErrNodeGone):
		return nil, 0, &page.UIDError{UID: opts.UID, PageID: sl.h.ID(), Gone: true, Cause: err}
	case errors.Is(err, errNotVisible):
		return nil, 0, &Error{UID: opts.UID}
	case err != nil:
		return nil, 0, err
	}
	return data, size, nil
}

// rect is a rectangle in CSS pixels, in page (document) coordinates: the
// coordinates of Page.captureScreenshot's clip.
type rect struct{ x, y, w, h float64 }

// capture takes the screenshot of el, or of the page when el is nil,
// through top, the page's own session (which streams the image to
// opts.Sink). It runs in the goroutine of [page.Host.Call], so it is given
// the sessions and never touches the page's state. It returns the image,
// nil when streamed, and its size.
func capture(ctx context.Context, top *page.Session, el *page.Element, opts Options) ([]byte, int64, error) {
	c := top.Client()
	args := cdppage.NewCaptureScreenshotArgs().SetFormat(opts.Format).SetOptimizeForSpeed(true)
	if opts.Format != FormatPNG && opts.Quality != nil {
		args.SetQuality(min(max(*opts.Quality, 0), 100))
	}

	// area is what to capture; nil means the viewport as it is.
	var area *rect
	beyond := false
	switch {
	case el != nil:
		box, inView, err := elementBox(ctx, c, *el)
		if err != nil {
			return nil, 0, err
		}
		area, beyond = &box, !inView
	case opts.FullPage:
		m, err := c.Page.GetLayoutMetrics(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("screenshot: layout metrics: %w", err)
		}
		if size := m.CSSContentSize; size.Width >= 1 && size.Height >= 1 {
			area = &rect{w: math.Round(size.Width), h: math.Round(size.Height)}
		}
		beyond = true
	}

	scale := 1.0
	limit := encoderLimit(opts.Format)
	if opts.MaxWidth > 0 || opts.MaxHeight > 0 || (limit > 0 && area != nil) {
		vp, dpr, err := viewport(ctx, c)
		if err != nil {
			return nil, 0, err
		}
		src := vp
		if area != nil {
			src = *area
		}
		if s := downscale(src, dpr, opts.MaxWidth, opts.MaxHeight); s < 1 {
			scale = s
			area = &src
		}
		// Refused before capturing: Chrome would render the whole area
		// and then return nothing. (The viewport alone is never that big;
		// the empty-image check below covers it.)
		if w, h := imageSize(src, dpr, scale); limit > 0 && (w > limit || h > limit) {
			return nil, 0, &Error{UID: opts.UID, Format: opts.Format, Width: w, Height: h, Limit: limit, FullPage: el == nil}
		}
	}

	if area != nil {
		args.SetClip(cdppage.Viewport{X: area.x, Y: area.y, Width: area.w, Height: area.h, Scale: scale})
	}
	if beyond {
		args.SetCaptureBeyondViewport(true)
	}
	var data []byte
	var size int64
	var err error
	if opts.Sink != nil {
		size, err = top.CallStream(ctx, "Page.captureScreenshot", args, "data", opts.Sink)
	} else {
		var r *cdppage.CaptureScreenshotReply
		if r, err = c.Page.CaptureScreenshot(ctx, args); err == nil {
			data, size = r.Data, int64(len(r.Data))
		}
	}
	if err != nil {
		var re *rpcc.ResponseError
		if cdpconn.IsClosed(err) || !errors.As(err, &re) {
			return nil, 0, err // ask says why; or the sink's own error
		}
		return nil, 0, fmt.Errorf("take screenshot: %v", chromeMessage(err))
	}
	if size == 0 {
		return nil, 0, &Error{UID: opts.UID, Format: opts.Format, Empty: true}
	}
	return data, size, nil
}

// imageSize returns the size in image pixels of a capture of src at device
// pixel ratio dpr and clip scale, rounded as Chrome rounds it.
func imageSize(src rect, dpr, scale float64) (w, h int) {
	return int(math.Round(src.w * dpr * scale)), int(math.Round(src.h * dpr * scale))
}

// elementBox scrolls an element into view and returns its bounding box in
// the page's coordinates, rounded to whole CSS pixels as Puppeteer rounds a
// clip, and whether it lies inside the visual viewport. An element of an
// out-of-process iframe is measured in its frame's session and shifted by
// the frame's place in the page. c is the page's own client.
func elementBox(ctx context.Context, c *cdp.Client, el page.Element) (box rect, inView bool, err error) {
	node, ec := el.BackendNodeID(), el.Client()
	err = ec.DOM.ScrollIntoViewIfNeeded(ctx, dom.NewScrollIntoViewIfNeededArgs().SetBackendNodeID(node))
	if page.IsNodeGone(err) || isDetached(err) {
		return rect{}, false, page.ErrNodeGone
	}
	// Any other failure ("Node does not have a layout object") means the
	// node is not rendered, and getContentQuads below finds no box.
	q, err := ec.DOM.GetContentQuads(ctx, dom.NewGetContentQuadsArgs().SetBackendNodeID(node))
	if page.IsNodeGone(err) {
		return rect{}, false, page.ErrNodeGone
	}
	if err != nil {
		return rect{}, false, errNotVisible
	}
	var dx, dy float64
	if el.InIframe() {
		if dx, dy, err = el.Offset(ctx); err != nil {
			return rect{}, false, err
		}
		// An iframe scrolled into view paints on its next frame; the
		// capture shows what it last painted.
		el.AwaitPainted(ctx)
	}
	// The quads are in the viewport's coordinates: one per line box of an
	// inline element, four transformed corners of a rotated one. The
	// screenshot is of their bounding box.
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, quad := range q.Quads {
		if len(quad) != 8 {
			continue
		}
		for i := 0; i < 8; i += 2 {
			x0, x1 = min(x0, quad[i]+dx), max(x1, quad[i]+dx)
			y0, y1 = min(y0, quad[i+1]+dy), max(y1, quad[i+1]+dy)
		}
	}
	if !(x1-x0 >= 1 && y1-y0 >= 1) { // also false for no quads (±Inf)
		return rect{}, false, errNotVisible
	}
	m, err := c.Page.GetLayoutMetrics(ctx)
	if err != nil {
		return rect{}, false, fmt.Errorf("screenshot: layout metrics: %w", err)
	}
	vv := m.CSSVisualViewport
	inView = x0 >= 0 && y0 >= 0 && x1 <= vv.ClientWidth && y1 <= vv.ClientHeight
	return roundRect(rect{x: x0 + vv.PageX, y: y0 + vv.PageY, w: x1 - x0, h: y1 - y0}), inView, nil
}

// roundRect snaps a rectangle's corner to whole pixels and keeps its far edge
// where it was (Puppeteer's roundRectangle), so that a box at a fractional
// offset is captured whole.
func roundRect(r rect) rect {
	x, y := math.Round(r.x), math.Round(r.y)
	return rect{x: x, y: y, w: math.Round(r.w + r.x - x), h: math.Round(r.h + r.y - y)}
}

// viewport returns the viewport's rectangle and the device pixel ratio.
func viewport(ctx context.Context, c *cdp.Client) (rect, float64, error) {
	r, err := c.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs(js.Viewport).SetReturnByValue(true))
	if err != nil {
		return rect{}, 0, fmt.Errorf("screenshot: viewport: %w", err)
	}
	if r.ExceptionDetails != nil {
		return rect{}, 0, fmt.Errorf("screenshot: viewport: %s", r.ExceptionDetails.Text)
	}
	var v [5]float64
	if err := json.Unmarshal(r.Result.Value, &v); err != nil {
		return rect{}, 0, fmt.Errorf("screenshot: viewport: %w", err)
	}
	dpr := v[4]
	if dpr <= 0 {
		dpr = 1
	}
	return rect{x: v[0], y: v[1], w: v[2], h: v[3]}, dpr, nil
}

// downscale returns the scale that fits a capture of src, at device pixel
// ratio dpr, within maxW × maxH image pixels (a bound of 0 is no bound),
// keeping the aspect ratio: the smaller of the two ratios, or 1 when the
// capture already fits. Chrome rounds the image size to the nearest pixel,
// so a bound that decides the scale is met exactly. As chrome-devtools-mcp
// does, a scale that would leave a side under one pixel is not applied.
func downscale(src rect, dpr float64, maxW, maxH int) float64 {
	w, h := src.w*dpr, src.h*dpr
	if w <= 0 || h <= 0 {
		return 1
	}
	scale := 1.0
	if maxW > 0 {
		scale = min(scale, float64(maxW)/w)
	}
	if maxH > 0 {
		scale = min(scale, float64(maxH)/h)
	}
	if scale >= 1 || math.Round(w*scale) < 1 || math.Round(h*scale) < 1 {
		return 1
	}
	return scale
}

// isDetached reports whether a DOM command failed because the node was
// removed from its document: it still exists, so isNodeGone says no, but
// for the agent it is gone from the page.
func isDetached(err error) bool {
	var re *rpcc.ResponseError
	return errors.As(err, &re) && strings.Contains(re.Message, "detached")
}

// chromeMessage returns Chrome's own message for a failed command, without
// the client library's prefixes.
func chromeMessage(err error) any {
	var re *rpcc.ResponseError
	if errors.As(err, &re) {
		return re.Message
	}
	return err
}
