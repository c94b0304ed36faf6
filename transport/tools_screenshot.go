package transport

import (
	"context"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/page"
)

const (
	// screenshotBudget bounds take_screenshot: a full-page capture of a long
	// page is encoded by Chrome in one piece, as slow as a big snapshot.
	screenshotBudget = 30 * time.Second
	// inlineLimit is the size from which a screenshot goes to a temporary
	// file instead of the reply, as in chrome-devtools-mcp.
	inlineLimit = 2_000_000
)

// screenshotTools take pictures of pages.
func (s *Server) screenshotTools() []*tool {
	t := tool{name: "take_screenshot", description: "Take a screenshot of the page or element.", page: true}
	// The format's description names the default, which --screenshot-format
	// sets; struct tags are constant, so each default has its own type.
	switch s.cfg.Screenshot.Format {
	case page.FormatJPEG:
		return []*tool{define(t, fixed[jpegScreenshotArgs](screenshotBudget), func(ctx context.Context, c *call, a *jpegScreenshotArgs) error {
			return s.runScreenshot(ctx, c, a.Format, &a.screenshotArgs)
		})}
	case page.FormatWebP:
		return []*tool{define(t, fixed[webpScreenshotArgs](screenshotBudget), func(ctx context.Context, c *call, a *webpScreenshotArgs) error {
			return s.runScreenshot(ctx, c, a.Format, &a.screenshotArgs)
		})}
	}
	return []*tool{define(t, fixed[pngScreenshotArgs](screenshotBudget), func(ctx context.Context, c *call, a *pngScreenshotArgs) error {
		return s.runScreenshot(ctx, c, a.Format, &a.screenshotArgs)
	})}
}

type pngScreenshotArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"png\""`
	screenshotArgs
}

type jpegScreenshotArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"jpeg\""`
	screenshotArgs
}

type webpScreenshotArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"webp\""`
	screenshotArgs
}

// screenshotArgs are take_screenshot's arguments after format.
type screenshotArgs struct {
	Quality  *float64 `json:"quality" min:"0" max:"100" desc:"Compression quality for JPEG and WebP formats (0-100). Higher values mean better quality but larger file sizes. Ignored for PNG format."`
	UID      string   `json:"uid" desc:"The uid of an element on the page from the page content snapshot. If omitted, takes a page screenshot."`
	FullPage bool     `json:"fullPage" desc:"If set to true takes a screenshot of the full page instead of the currently visible viewport. Incompatible with uid."`
	FilePath string   `json:"filePath" desc:"The absolute path, or a path relative to the current working directory, to save the screenshot to instead of attaching it to the response."`
}

func (s *Server) runScreenshot(ctx context.Context, c *call, format string, a *screenshotArgs) error {
	cfg := s.cfg.Screenshot
	if format == "" {
		format = cfg.Format
	}
	if format == "" {
		format = page.FormatPNG
	}
	opts := page.ScreenshotOptions{
		Format:    format,
		Quality:   cfg.Quality,
		UID:       a.UID,
		FullPage:  a.FullPage,
		MaxWidth:  cfg.MaxWidth,
		MaxHeight: cfg.MaxHeight,
	}
	if a.Quality != nil {
		q := int(math.Round(*a.Quality))
		opts.Quality = &q
	}
	// A path the sandbox refuses fails before the capture, as
	// chrome-devtools-mcp checks file arguments before running a tool.
	if a.FilePath != "" {
		if _, err := c.sandbox(ctx).Resolve(a.FilePath); err != nil {
			return err
		}
	}

	ext := "." + format
	sink := newShotSink(c.sandbox(ctx), a.FilePath, ext)
	opts.Sink = sink
	shot, err := c.page.Screenshot(ctx, opts)
	path, err := sink.finish(err)
	if err != nil {
		return err
	}
	c.r.state(shot.State)
	switch {
	case a.UID != "":
		c.r.line(`Took a screenshot of node with uid "%s".`, a.UID)
	case a.FullPage:
		c.r.line("Took a screenshot of the full current page.")
	default:
		c.r.line("Took a screenshot of the current page's viewport.")
	}
	if path != "" {
		c.r.line("Saved screenshot to %s.", path)
		return nil
	}
	// The SDK base64-encodes Data on the wire.
	c.r.images = append(c.r.images, &mcp.ImageContent{Data: sink.inline(), MIMEType: "image/" + shot.Format})
	return nil
}
