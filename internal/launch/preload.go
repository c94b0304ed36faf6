package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Speculative loading (speculation rules' prefetch and prerender, the
// Speculation-Rules header, <link rel=prerender>) is made by the browser
// process outside the request interception that enforces tabhive's URL
// policy: a page, or an agent's script, could make the browser fetch a
// refused URL, and a navigation to it would then show the prefetched or
// prerendered page without any request to refuse. On Chromium 156, none
// of --disable-features=Prerender2, --disable-features=SpeculationRules
// and --disable-blink-features=SpeculationRules stops it (prefetches go
// on, and a navigation is served from them); the profile preference
// behind "Preload pages: No preloading" does, for every browser context
// of the profile, isolated ones included (measured with a server counting
// requests). So Start writes it into the profile before Chromium reads
// it.

// noPreloading is the value of net.network_prediction_options that turns
// preloading off ("Preload pages: No preloading").
const noPreloading = 2

// disablePreloading sets net.network_prediction_options to noPreloading in
// the Preferences of the profile directory dir (Chromium's
// --profile-directory, "Default" unless given) inside userDataDir,
// creating them if there are none and keeping every other preference.
func disablePreloading(userDataDir, dir string) error {
	profile := filepath.Join(userDataDir, dir)
	if err := os.MkdirAll(profile, 0o700); err != nil {
		return fmt.Errorf("turn off speculative loading: %w", err)
	}
	path := filepath.Join(profile, "Preferences")
	prefs := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("turn off speculative loading: %w", err)
	default:
		if err := json.Unmarshal(b, &prefs); err != nil || prefs == nil {
			return fmt.Errorf("turn off speculative loading: %s is not a JSON object, so the preference cannot be set; remove it, or start with another --user-data-dir", path)
		}
	}
	net, _ := prefs["net"].(map[string]any)
	if net == nil {
		net = map[string]any{}
	}
	if v, ok := net["network_prediction_options"].(float64); ok && v == noPreloading {
		return nil
	}
	net["network_prediction_options"] = noPreloading
	prefs["net"] = net
	out, err := json.Marshal(prefs)
	if err != nil {
		return fmt.Errorf("turn off speculative loading: %w", err)
	}
	tmp, err := os.CreateTemp(profile, ".Preferences-*")
	if err != nil {
		return fmt.Errorf("turn off speculative loading: %w", err)
	}
	_, werr := tmp.Write(out)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("turn off speculative loading: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("turn off speculative loading: %w", err)
	}
	return nil
}

// profileDirectory returns the profile directory the switches name with
// --profile-directory (the last one wins, as in Chromium), else "Default".
func profileDirectory(args []string) string {
	dir := "Default"
	for _, a := range args {
		if switchName(a) == "profile-directory" {
			if _, v, ok := cutValue(a); ok && v != "" {
				dir = v
			}
		}
	}
	return dir
}

// cutValue returns the value of a switch written name=value.
func cutValue(arg string) (name, value string, ok bool) {
	for i := 0; i < len(arg); i++ {
		if arg[i] == '=' {
			return arg[:i], arg[i+1:], true
		}
	}
	return arg, "", false
}

// HasSwitch reports whether args hold the Chromium switch name (without
// dashes), in any spelling Chromium accepts.
func HasSwitch(args []string, name string) bool {
	for _, a := range args {
		if switchName(a) == name {
			return true
		}
	}
	return false
}
