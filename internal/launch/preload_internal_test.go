package launch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDisablePreloading: the preference is set in the profile directory
// Chromium will use, every other preference kept; a Preferences file that
// is not JSON is left alone and the launch refused.
func TestDisablePreloading(t *testing.T) {
	dir := t.TempDir()
	if err := disablePreloading(dir, profileDirectory(nil)); err != nil {
		t.Fatal(err)
	}
	read := func(profile string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, profile, "Preferences"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if v := read("Default")["net"].(map[string]any)["network_prediction_options"]; v != float64(2) {
		t.Errorf("fresh profile: network_prediction_options = %v, want 2", v)
	}

	other := filepath.Join(dir, "Work")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "Preferences"), []byte(`{"net":{"network_prediction_options":0,"x":1},"homepage":"https://a.example/"}`), 0o600)
	if err := disablePreloading(dir, profileDirectory([]string{"--lang=en", "-profile-directory=Work"})); err != nil {
		t.Fatal(err)
	}
	m := read("Work")
	if net := m["net"].(map[string]any); net["network_prediction_options"] != float64(2) || net["x"] != float64(1) || m["homepage"] != "https://a.example/" {
		t.Errorf("existing profile after: %v", m)
	}

	bad := filepath.Join(dir, "Bad")
	os.MkdirAll(bad, 0o700)
	os.WriteFile(filepath.Join(bad, "Preferences"), []byte(`not json`), 0o600)
	if err := disablePreloading(dir, "Bad"); err == nil || !strings.Contains(err.Error(), "is not a JSON object") {
		t.Errorf("bad Preferences: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(bad, "Preferences")); string(b) != "not json" {
		t.Errorf("bad Preferences were changed to %q", b)
	}
}
