package emulation

// The emulation's part of every page-scoped reply.

import (
	"encoding/json"
	"fmt"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// ReplyLines words the emulation in force, as every page-scoped reply
// reports it ([tool.Reported]): chrome-devtools-mcp's sentences, in its
// order. Extra headers and resize_page's size are not reported, as
// upstream does not report them. Nothing emulated gives no lines.
func (e Emulation) ReplyLines() []string {
	var out []string
	if e.Network != "" {
		out = append(out, "Emulating network conditions: "+e.Network,
			fmt.Sprintf("Default navigation timeout set to %d ms", e.Timeouts().Navigation.Milliseconds()))
	}
	if g := e.Geolocation; g != nil {
		out = append(out, fmt.Sprintf("Emulating geolocation: latitude=%s, longitude=%s", jsfmt.Number(g.Latitude), jsfmt.Number(g.Longitude)))
	}
	if v := e.Viewport; v != nil {
		out = append(out, "Emulating viewport: "+viewportJSON(v))
	}
	if e.UserAgent != "" {
		out = append(out, "Emulating user agent: "+e.UserAgent)
	}
	if cpu := max(e.CPU, 1); cpu > 1 {
		out = append(out, fmt.Sprintf("Emulating CPU throttling: %sx slowdown", jsfmt.Number(cpu)))
	}
	for _, f := range []struct{ label, value string }{
		{"color scheme", e.ColorScheme},
		{"forced-colors", e.ForcedColors},
		{"prefers-contrast", e.PrefersContrast},
		{"prefers-reduced-motion", e.PrefersReducedMotion},
	} {
		if f.value != "" {
			out = append(out, fmt.Sprintf("Emulating %s: %s", f.label, f.value))
		}
	}
	return out
}

// viewportJSON renders a viewport as upstream prints it: Puppeteer's
// defaults first, then the parsed fields, deviceScaleFactor left out when
// the agent gave none.
func viewportJSON(v *Viewport) string {
	type out struct {
		DeviceScaleFactor *json.Number `json:"deviceScaleFactor,omitempty"`
		IsMobile          bool         `json:"isMobile"`
		HasTouch          bool         `json:"hasTouch"`
		IsLandscape       bool         `json:"isLandscape"`
		Width             int          `json:"width"`
		Height            int          `json:"height"`
	}
	o := out{IsMobile: v.Mobile, HasTouch: v.Touch, IsLandscape: v.Landscape, Width: v.Width, Height: v.Height}
	if v.DeviceScaleFactor != 0 {
		n := json.Number(jsfmt.Number(v.DeviceScaleFactor))
		o.DeviceScaleFactor = &n
	}
	b, _ := json.Marshal(o) // plain fields: cannot fail
	return string(b)
}
