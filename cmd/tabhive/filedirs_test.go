package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFileNavigationsSparePrivateDirsThroughBinary: with --file-navigations
// over HTTP, file: URLs load, but not in the browser's profile nor in the
// sessions' private directories, whether a tool opens them or a page
// embeds them, files or directory listings.
func TestFileNavigationsSparePrivateDirsThroughBinary(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "profile")
	in := startHTTP(t, "--file-navigations", "--isolate-sessions", "--user-data-dir", profile)
	a, b := in.Client(nil), in.Client(nil)

	saved := text(t, a, "take_snapshot", map[string]any{"filePath": "a-secret.txt"})
	m := regexp.MustCompile(`Saved snapshot to (\S+)\.`).FindStringSubmatch(saved)
	if m == nil {
		t.Fatalf("take_snapshot did not say where it saved: %q", saved)
	}
	aFile := m[1]
	if _, err := os.Stat(filepath.Join(profile, "Local State")); err != nil {
		t.Fatalf("the profile has no Local State to protect: %v", err)
	}

	for _, u := range []string{
		"file://" + aFile,
		"file://" + filepath.Dir(aFile) + "/",
		"file://" + filepath.Dir(filepath.Dir(aFile)) + "/",
		"file://" + profile + "/Local%20State",
		"file://" + profile + "/",
		"file://" + profile + "/Default/../Local%20State",
		"view-source:file://" + profile + "/Local%20State",
	} {
		got, isErr := try(t, b, "navigate_page", map[string]any{"url": u})
		if !isErr || !strings.Contains(got, "which no page may read, whatever --file-navigations says") {
			t.Errorf("session B: navigate_page %s = %v %.200q, want refused", u, isErr, got)
		}
	}

	// A page of its own embeds them: the frames stay empty, while a frame
	// of an allowed directory lists it.
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html := `<title>Embeds</title><iframe title="own" src="file://` + dir + `/"></iframe>
<iframe title="profile" src="file://` + profile + `/"></iframe>
<iframe title="local state" src="file://` + profile + `/Local%20State"></iframe>
<iframe title="other session" src="file://` + filepath.Dir(aFile) + `/"></iframe>`
	if err := os.WriteFile(page, []byte(html), 0o600); err != nil {
		t.Fatal(err)
	}
	text(t, b, "navigate_page", map[string]any{"url": "file://" + page, "timeout": 60000})
	var snap string
	waitFor(t, "the allowed directory's listing in its frame", func() bool {
		snap = text(t, b, "take_snapshot", nil)
		return strings.Contains(snap, "page.html")
	})
	for _, leak := range []string{"Local State", "Default", filepath.Base(aFile), "a-secret"} {
		if strings.Contains(snap, leak) {
			t.Errorf("a page of session B shows %q from a protected directory:\n%s", leak, snap)
		}
	}
}
