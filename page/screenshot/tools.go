package screenshot

// The capability's MCP tools: take_screenshot, with chrome-devtools-mcp's
// name, arguments and reply text, and --slim's screenshot.

import (
	"context"
	"math"
	"time"

	"github.com/tabhive/tabhive/transport/tool"
)

// Config sets take_screenshot's defaults (--screenshot-*). The zero value
// of each field means its documented default.
type Config struct {
	// Format is png, jpeg or webp when the call names none. If empty, png.
	Format string
	// Quality is the jpeg/webp quality when the call gives none, 0-100. If
	// nil, Chrome's default.
	Quality *int
	// MaxWidth and MaxHeight, if positive, scale screenshots down so that
	// they fit, keeping the aspect ratio.
	MaxWidth, MaxHeight int
}

const (
	// budget bounds take_screenshot: a full-page capture of a long page is
	// encoded by Chrome in one piece, as slow as a big snapshot.
	budget = 30 * time.Second
	// inlineLimit is the size from which a screenshot goes to a temporary
	// file instead of the reply, as in chrome-devtools-mcp.
	inlineLimit = 2_000_000
)

// tools are the screenshot tools of one server.
type tools struct{ cfg Config }

// Tools returns take_screenshot, with the defaults and bounds cfg sets,
// and --slim's screenshot (the transport lists each only where it
// belongs).
func Tools(cfg Config) []*tool.Tool {
	t := &tools{cfg: cfg}
	return []*tool.Tool{t.takeScreenshot(), slimTool()}
}

// takeScreenshot is take_screenshot. The format's description names the
// default, which --screenshot-format sets; struct tags are constant, so
// each default has its own type.
func (t *tools) takeScreenshot() *tool.Tool {
	def := tool.Tool{Name: "take_screenshot", Description: "Take a screenshot of the page or element.", Page: true}
	switch t.cfg.Format {
	case FormatJPEG:
		return tool.Define(def, tool.Fixed[jpegArgs](budget), func(ctx context.Context, c tool.Call, a *jpegArgs) error {
			return t.run(ctx, c, a.Format, &a.args)
		})
	case FormatWebP:
		return tool.Define(def, tool.Fixed[webpArgs](budget), func(ctx context.Context, c tool.Call, a *webpArgs) error {
			return t.run(ctx, c, a.Format, &a.args)
		})
	}
	return tool.Define(def, tool.Fixed[pngArgs](budget), func(ctx context.Context, c tool.Call, a *pngArgs) error {
		return t.run(ctx, c, a.Format, &a.args)
	})
}

type pngArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"png\""`
	args
}

type jpegArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"jpeg\""`
	args
}

type webpArgs struct {
	Format string `json:"format" enum:"png,jpeg,webp" desc:"Type of format to save the screenshot as. Default is \"webp\""`
	args
}

// args are take_screenshot's arguments after format.
type args struct {
	Quality  *float64 `json:"quality" min:"0" max:"100" desc:"Compression quality for JPEG and WebP formats (0-100). Higher values mean better quality but larger file sizes. Ignored for PNG format."`
	UID      string   `json:"uid" desc:"The uid of an element on the page from the page content snapshot. If omitted, takes a page screenshot."`
	FullPage bool     `json:"fullPage" desc:"If set to true takes a screenshot of the full page instead of the currently visible viewport. Incompatible with uid."`
	FilePath string   `json:"filePath" desc:"The absolute path, or a path relative to the current working directory, to save the screenshot to instead of attaching it to the response."`
}

func (t *tools) run(ctx context.Context, c tool.Call, format string, a *args) error {
	cfg := t.cfg
	if format == "" {
		format = cfg.Format
	}
	if format == "" {
		format = FormatPNG
	}
	opts := Options{
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
		if _, err := c.Sandbox(ctx).Resolve(a.FilePath); err != nil {
			return err
		}
	}

	ext := "." + format
	sink := newShotSink(c.Sandbox(ctx), a.FilePath, ext)
	opts.Sink = sink
	shot, err := Take(ctx, c.Page(), opts)
	path, err := sink.finish(err)
	if err != nil {
		return err
	}
	c.Reply().State(shot.State)
	switch {
	case a.UID != "":
		c.Reply().Line(`Took a screenshot of node with uid "%s".`, a.UID)
	case a.FullPage:
		c.Reply().Line("Took a screenshot of the full current page.")
	default:
		c.Reply().Line("Took a screenshot of the current page's viewport.")
	}
	if path != "" {
		c.Reply().Line("Saved screenshot to %s.", path)
		return nil
	}
	c.Reply().Image(sink.inline(), "image/"+shot.Format)
	return nil
}

// slimTool is --slim's screenshot, chrome-devtools-mcp's slim one: a PNG
// of the viewport saved to the session's private directory, and a reply
// that is its path alone.
func slimTool() *tool.Tool {
	return tool.Define(tool.Tool{Name: "screenshot", Description: "Takes a screenshot", Page: true},
		tool.Fixed[struct{}](budget), runSlim)
}

func runSlim(ctx context.Context, c tool.Call, _ *struct{}) error {
	shot, err := Take(ctx, c.Page(), Options{Format: FormatPNG})
	if err != nil {
		return err
	}
	path, err := c.Sandbox(ctx).TempFile("screenshot.png", shot.Data)
	if err != nil {
		return err
	}
	c.Reply().Line("%s", path)
	return nil
}
