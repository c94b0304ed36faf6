package emulation_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/page/emulation"
)

// TestEmulationLines: the emulation in force, as a page reports it, in
// chrome-devtools-mcp's words and order.
func TestEmulationLines(t *testing.T) {
	tests := []struct {
		name string
		e    emulation.Emulation
		want []string
	}{
		{"nothing", emulation.Emulation{}, nil},
		{
			name: "every setting",
			e:    everything(), // its headers are not reported
			want: []string{
				"Emulating network conditions: Fast 3G",
				"Default navigation timeout set to 200000 ms",
				"Emulating geolocation: latitude=51.5, longitude=-0.12",
				`Emulating viewport: {"deviceScaleFactor":2,"isMobile":false,"hasTouch":false,"isLandscape":false,"width":400,"height":300}`,
				"Emulating user agent: TabhiveTest/1.0",
				"Emulating CPU throttling: 4x slowdown",
				"Emulating color scheme: dark",
				"Emulating forced-colors: active",
				"Emulating prefers-contrast: more",
				"Emulating prefers-reduced-motion: reduce",
			},
		},
		{"CPU alone", emulation.Emulation{CPU: 2.5}, []string{"Emulating CPU throttling: 2.5x slowdown"}},
		{"a CPU rate of 1 is no slowdown", emulation.Emulation{CPU: 1}, nil},
		{"offline keeps the default timeout", emulation.Emulation{Network: emulation.NetworkOffline}, []string{
			"Emulating network conditions: Offline",
			"Default navigation timeout set to 10000 ms",
		}},
		{"the timeout rounds to the millisecond", emulation.Emulation{Network: emulation.NetworkSlow4G, CPU: 1.1}, []string{
			"Emulating network conditions: Slow 4G",
			"Default navigation timeout set to 27500 ms",
			"Emulating CPU throttling: 1.1x slowdown",
		}},
		{"geolocation as JavaScript prints it", emulation.Emulation{Geolocation: &emulation.Geolocation{Latitude: math.Copysign(0, -1), Longitude: 1e-7}}, []string{
			"Emulating geolocation: latitude=0, longitude=1e-7",
		}},
		{"a viewport without a scale factor", emulation.Emulation{Viewport: &emulation.Viewport{Width: 390, Height: 844, Mobile: true, Touch: true, Landscape: true}}, []string{
			`Emulating viewport: {"isMobile":true,"hasTouch":true,"isLandscape":true,"width":390,"height":844}`,
		}},
		{"extra headers are not reported", emulation.Emulation{Headers: map[string]string{"X-Test": "hello"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.ReplyLines(); !slices.Equal(got, tt.want) {
				t.Errorf("ReplyLines() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
