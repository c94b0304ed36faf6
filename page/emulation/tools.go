package emulation

// The capability's MCP tools: emulate and resize_page, with
// chrome-devtools-mcp's names, arguments and reply text.

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tabhive/tabhive/transport/tool"
)

// Tools returns the emulation tools, which change how a page behaves:
// network, CPU, position, user agent, media features, viewport, headers
// and size.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "emulate", Description: "Emulates various features on the target page. Each call replaces all emulation settings (except extraHttpHeaders), so pass all desired settings in a single call.", Page: true, Action: true},
			emulateBudget, runEmulate),
		tool.Define(tool.Tool{Name: "resize_page", Description: "Resizes the page's window so that the page has specified dimension", Page: true, Action: true},
			tool.Fixed[resizeArgs](tool.ListBudget), runResize),
	}
}

const viewportFormat = "'<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'"

type emulateArgs struct {
	NetworkConditions    string   `json:"networkConditions" enum:"Offline,Slow 3G,Fast 3G,Slow 4G,Fast 4G" desc:"Throttle network. Omit to disable throttling."`
	CPUThrottlingRate    *float64 `json:"cpuThrottlingRate" min:"1" max:"20" desc:"Represents the CPU slowdown factor. Omit or set the rate to 1 to disable throttling"`
	Geolocation          string   "json:\"geolocation\" desc:\"Geolocation (`<latitude>,<longitude>`) to emulate. Latitude between -90 and 90. Longitude between -180 and 180. Omit to clear the geolocation override.\""
	UserAgent            string   `json:"userAgent" desc:"User agent to emulate. Omit or set to empty string to clear the user agent override."`
	ColorScheme          string   `json:"colorScheme" enum:"dark,light,auto" desc:"Emulate the dark or the light mode. Omit or set to \"auto\" to reset to the default."`
	ForcedColors         string   "json:\"forcedColors\" enum:\"active,none,auto\" desc:\"Emulate the `forced-colors` CSS media feature. Omit or set to \\\"auto\\\" to reset to the default.\""
	PrefersContrast      string   "json:\"prefersContrast\" enum:\"more,less,custom,no-preference,auto\" desc:\"Emulate the `prefers-contrast` CSS media feature. Omit or set to \\\"auto\\\" to reset to the default.\""
	PrefersReducedMotion string   "json:\"prefersReducedMotion\" enum:\"reduce,no-preference,auto\" desc:\"Emulate the `prefers-reduced-motion` CSS media feature. Omit or set to \\\"auto\\\" to reset to the default.\""
	Viewport             string   `json:"viewport" desc:"Emulate device viewports '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'. 'touch' and 'mobile' to emulate mobile devices. 'landscape' to emulate landscape mode. Omit to clear the viewport override."`
	ExtraHTTPHeaders     *string  `json:"extraHttpHeaders" desc:"Extra HTTP headers as a JSON string object, e.g. {\"X-Custom\": \"value\", \"Authorization\": \"Bearer token\"}. Headers are included into every HTTP request originating from the page and persist across navigations until cleared. Pass an empty string to clear all extra headers."`
}

// emulateBudget covers the reload that a change of the mobile or touch
// flags causes, under the network and CPU the call itself asks for.
func emulateBudget(a *emulateArgs) time.Duration {
	e := Emulation{Network: a.NetworkConditions}
	if r := a.CPUThrottlingRate; r != nil && *r >= 1 && *r <= 20 {
		e.CPU = *r
	}
	return e.Timeouts().Navigation + tool.Overhead
}

func runEmulate(ctx context.Context, c tool.Call, a *emulateArgs) error {
	e, err := a.emulation()
	if err != nil {
		return err
	}
	state, err := Of(c.Page()).Emulate(ctx, e)
	c.Reply().State(state)
	if err != nil {
		return err
	}
	c.Reply().Line("Emulation configured successfully")
	return nil
}

// emulation checks the arguments and turns them into what the page
// emulates. Every error is a sentence for the agent, and nothing has been
// changed when one is returned.
func (a *emulateArgs) emulation() (Emulation, error) {
	e := Emulation{
		Network:              a.NetworkConditions,
		UserAgent:            a.UserAgent,
		ColorScheme:          a.ColorScheme,
		ForcedColors:         a.ForcedColors,
		PrefersContrast:      a.PrefersContrast,
		PrefersReducedMotion: a.PrefersReducedMotion,
	}
	if r := a.CPUThrottlingRate; r != nil {
		e.CPU = *r
	}
	var err error
	if e.Geolocation, err = parseGeolocation(a.Geolocation); err != nil {
		return e, err
	}
	if e.Viewport, err = parseViewport(a.Viewport); err != nil {
		return e, err
	}
	if a.ExtraHTTPHeaders != nil {
		if e.Headers, err = tool.ParseHeaders("extraHttpHeaders", *a.ExtraHTTPHeaders); err != nil {
			return e, err
		}
	}
	return e, nil
}

// number parses a number as JavaScript's Number() does for the forms an
// agent writes: surrounding spaces allowed, nothing else.
func number(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// parseGeolocation parses "<latitude>,<longitude>"; "" means none. The
// errors are upstream's.
func parseGeolocation(s string) (*Geolocation, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	lat, ok := number(parts[0])
	if !ok || lat < -90 || lat > 90 {
		return nil, tool.BadArgs("Invalid latitude %q. Latitude must be a number between -90 and 90.", strings.TrimSpace(parts[0]))
	}
	var lonText string
	if len(parts) > 1 {
		lonText = parts[1]
	}
	lon, ok := number(lonText)
	if !ok || lon < -180 || lon > 180 {
		return nil, tool.BadArgs("Invalid longitude %q. Longitude must be a number between -180 and 180.", strings.TrimSpace(lonText))
	}
	return &Geolocation{Latitude: lat, Longitude: lon}, nil
}

// parseViewport parses "<w>x<h>x<dpr>[,mobile][,touch][,landscape]"; ""
// means none. The errors are upstream's, except that width and height must
// be whole numbers (Chrome takes nothing else).
func parseViewport(s string) (*Viewport, error) {
	if s == "" {
		return nil, nil
	}
	dims, tags, _ := strings.Cut(s, ",")
	v := &Viewport{}
	for _, t := range strings.Split(tags, ",") {
		switch strings.TrimSpace(t) {
		case "mobile":
			v.Mobile = true
		case "touch":
			v.Touch = true
		case "landscape":
			v.Landscape = true
		}
	}
	parts := strings.Split(dims, "x")
	for len(parts) < 2 {
		parts = append(parts, "")
	}
	side := func(name, text string) (int, error) {
		f, ok := number(text)
		if !ok || f <= 0 || f != math.Trunc(f) || f > MaxViewportSide {
			return 0, tool.BadArgs("Invalid viewport %s %q. Expected format %s with a positive integer %s.", name, strings.TrimSpace(text), viewportFormat, name)
		}
		return int(f), nil
	}
	var err error
	if v.Width, err = side("width", parts[0]); err != nil {
		return nil, err
	}
	if v.Height, err = side("height", parts[1]); err != nil {
		return nil, err
	}
	if len(parts) > 2 {
		dpr, ok := number(parts[2])
		if !ok || dpr <= 0 {
			return nil, tool.BadArgs("Invalid devicePixelRatio %q. Expected a positive number.", strings.TrimSpace(parts[2]))
		}
		v.DeviceScaleFactor = dpr
	}
	return v, nil
}

type resizeArgs struct {
	// max is MaxViewportSide.
	Width  int `json:"width" required:"true" min:"1" max:"10000000" desc:"Page width"`
	Height int `json:"height" required:"true" min:"1" max:"10000000" desc:"Page height"`
}

func runResize(ctx context.Context, c tool.Call, a *resizeArgs) error {
	state, err := Of(c.Page()).Resize(ctx, a.Width, a.Height)
	c.Reply().State(state)
	c.Reply().Pages()
	return err
}
