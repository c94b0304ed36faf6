package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExtensionPathsThroughBinary: over HTTP without --isolate-sessions
// (where extensions are allowed), install_extension loads only what the
// session may read, every link resolved: not a directory outside its
// workspace and private directory, not the browser's profile, not another
// session's private directory, and not a directory of its own that holds
// the profile or a link out of it, through which Chrome would serve files
// from anywhere as chrome-extension:// URLs. reload_extension checks again.
func TestExtensionPathsThroughBinary(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs(filepath.Join("testdata", "extension"))
	if err != nil {
		t.Fatal(err)
	}
	work, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	extension := func(dir string) string {
		t.Helper()
		for _, f := range []string{"manifest.json", "sw.js"} {
			b, err := os.ReadFile(filepath.Join(fixture, f))
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(dir, f), string(b))
		}
		return dir
	}
	link := func(target, name string) string {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
		return name
	}
	write(secret, "outside-secret-42")
	extension(filepath.Join(outside, "ext"))
	parent := extension(filepath.Join(work, "parent"))
	profile := filepath.Join(parent, "profile")
	in := startHTTP(t, "--category-extensions", "--workspace", work, "--user-data-dir", profile)
	a, b := in.Client(nil), in.Client(nil)
	text(t, a, "list_pages", nil) // the browser, and its profile, are up
	inProfile := extension(filepath.Join(profile, "ext"))
	leaky := extension(filepath.Join(work, "leaky"))
	link(secret, filepath.Join(leaky, "leak.txt"))
	leakyDir := extension(filepath.Join(work, "leaky-dir"))
	link(outside, filepath.Join(leakyDir, "data"))
	linkedManifest := filepath.Join(work, "linked-manifest")
	os.Mkdir(linkedManifest, 0o700)
	link(filepath.Join(outside, "ext", "manifest.json"), filepath.Join(linkedManifest, "manifest.json"))
	// A file session A wrote in its private directory.
	shot := text(t, a, "take_snapshot", map[string]any{"filePath": "ext/manifest.json"})
	aPrivate := strings.TrimSuffix(regexp.MustCompile(`/\S+/ext/`).FindString(shot), "/")
	if aPrivate == "" {
		t.Fatalf("take_snapshot names no file:\n%s", shot)
	}

	// installed reports a call that should have been refused, and what
	// the extension could read then.
	installed := func(cs string, got string) {
		t.Helper()
		id, ok := strings.CutPrefix(got, "Extension installed. Id: ")
		if !ok {
			return
		}
		pages := waitText(t, a, "list_pages", nil, "chrome-extension://"+id+"/sw.js")
		if sw := regexp.MustCompile(`(sw-\d+): chrome-extension://` + id).FindStringSubmatch(pages); sw != nil {
			got, _ := longCall(t, a, "evaluate_script", map[string]any{"serviceWorkerId": sw[1], "function": `async () => {
				const out = [];
				for (const p of ["leak.txt", "data/secret.txt", "profile/Local State"]) {
					try { out.push(p + ": " + (await (await fetch(chrome.runtime.getURL(p))).text()).slice(0, 60)) } catch (e) { out.push(p + ": " + e) }
				}
				return out.join(" | ")
			}`})
			t.Logf("%s: the extension read %s", cs, got)
		}
		longCall(t, a, "uninstall_extension", map[string]any{"id": id})
	}
	for _, tt := range []struct {
		name, path, want string
		cs               string
	}{
		{"outside the workspace", filepath.Join(outside, "ext"), "Access denied", "a"},
		{"/etc", "/etc", "Access denied", "a"},
		{"a link to a directory outside", link(filepath.Join(outside, "ext"), filepath.Join(work, "link-dir")), "Access denied", "a"},
		{"a manifest linked from outside", linkedManifest, "Access denied", "a"},
		{"inside the profile", inProfile, "inside the browser's profile", "a"},
		{"holding the profile", parent, "inside the browser's profile", "a"},
		{"holding a link to a file outside", leaky, "links outside the extension's directory", "a"},
		{"holding a link to a directory outside", leakyDir, "links outside the extension's directory", "a"},
		{"another session's private directory", aPrivate, "Access denied", "b"},
	} {
		cs := a
		if tt.cs == "b" {
			cs = b
		}
		got, isErr := longCall(t, cs, "install_extension", map[string]any{"path": tt.path})
		if !isErr || !strings.Contains(got, tt.want) || strings.Contains(got, "\n") {
			t.Errorf("install_extension %s (%s) = %q (error %v), want one sentence containing %q", tt.name, tt.path, got, isErr, tt.want)
			installed(tt.name, got)
		}
	}

	// The control: an extension of the workspace installs; a link added
	// to it later is found by reload_extension.
	ok := extension(filepath.Join(work, "ok"))
	id, found := strings.CutPrefix(longText(t, a, "install_extension", map[string]any{"path": ok}), "Extension installed. Id: ")
	if !found {
		t.Fatal("the workspace's extension did not install")
	}
	link(secret, filepath.Join(ok, "leak.txt"))
	if got, isErr := longCall(t, a, "reload_extension", map[string]any{"id": id}); !isErr || !strings.Contains(got, "links outside the extension's directory") {
		t.Errorf("reload_extension with a link out = %q (error %v), want refused", got, isErr)
	}
	mustContain(t, "list_extensions", longText(t, a, "list_extensions", nil), "id="+id)
}
