package emulation

// The CDP commands that set each override on one session.

import (
	"context"
	"encoding/json"
	"errors"

	cdpemu "github.com/mafredri/cdp/protocol/emulation"
	"github.com/mafredri/cdp/protocol/network"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page"
)

// networkConditions are the throttling figures of
// Network.emulateNetworkConditionsByRule and Network.overrideNetworkState,
// which cdp v0.35.0 does not generate.
type networkConditions struct {
	URLPattern         *string `json:"urlPattern,omitempty"`
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// setNetwork emulates the named network conditions, "" for none, on
// session s. It uses the rule-based commands that replaced
// Network.emulateNetworkConditions (deprecated), as Puppeteer does, and
// falls back to the old one on a Chrome that lacks them.
func setNetwork(ctx context.Context, s *page.Session, name string) error {
	p := networkPreset(name)
	state := networkConditions{Offline: name == NetworkOffline, Latency: p.latency, DownloadThroughput: p.download, UploadThroughput: p.upload}
	if state.Offline {
		state.Latency, state.DownloadThroughput, state.UploadThroughput = 0, -1, -1
	}
	rules := []networkConditions{}
	if name != "" {
		all := "" // matches every URL
		r := state
		r.URLPattern = &all
		rules = append(rules, r)
	}
	rpc := s.RPC()
	err := rpcc.Invoke(ctx, "Network.emulateNetworkConditionsByRule", map[string]any{"matchedNetworkConditions": rules}, nil, rpc)
	var re *rpcc.ResponseError
	if errors.As(err, &re) && re.Code == -32601 { // method not found
		return s.Client().Network.EmulateNetworkConditions(ctx, network.NewEmulateNetworkConditionsArgs(
			state.Offline, state.Latency, state.DownloadThroughput, state.UploadThroughput))
	}
	if err != nil {
		return err
	}
	// navigator.onLine and navigator.connection.
	return rpcc.Invoke(ctx, "Network.overrideNetworkState", state, nil, rpc)
}

// setCPU emulates a CPU slowdown (0 for none) on session s's renderer.
func setCPU(ctx context.Context, s *page.Session, cpu float64) error {
	return s.Client().Emulation.SetCPUThrottlingRate(ctx, cdpemu.NewSetCPUThrottlingRateArgs(cpuFactor(cpu)))
}

// setUserAgent overrides the user agent of session s; "" removes the
// override.
func setUserAgent(ctx context.Context, s *page.Session, ua string) error {
	return s.Client().Emulation.SetUserAgentOverride(ctx, cdpemu.NewSetUserAgentOverrideArgs(ua))
}

// setMedia emulates e's media features on session s. setEmulatedMedia
// replaces every feature at once; an empty value removes that feature's
// override.
func setMedia(ctx context.Context, s *page.Session, e Emulation) error {
	features := []cdpemu.MediaFeature{
		{Name: "prefers-color-scheme", Value: e.ColorScheme},
		{Name: "forced-colors", Value: e.ForcedColors},
		{Name: "prefers-contrast", Value: e.PrefersContrast},
		{Name: "prefers-reduced-motion", Value: e.PrefersReducedMotion},
	}
	return s.Client().Emulation.SetEmulatedMedia(ctx, cdpemu.NewSetEmulatedMediaArgs().SetFeatures(features))
}

// setHeaders sets the extra HTTP headers (a JSON object) of session s.
func setHeaders(ctx context.Context, s *page.Session, h json.RawMessage) error {
	return s.Client().Network.SetExtraHTTPHeaders(ctx, network.NewSetExtraHTTPHeadersArgs(network.Headers(h)))
}
