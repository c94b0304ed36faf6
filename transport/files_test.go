package transport_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// filesClient connects a client in process to a server of its own with
// cfg, on the shared browser. With roots (even none), the client declares
// the roots capability and those roots.
func filesClient(t *testing.T, cfg transport.Config, roots []string) *mcp.ClientSession {
	t.Helper()
	return onSharedBrowser(t, transporttest.Options{Config: cfg, Roots: roots}).Connect(t)
}

// uploadFixtures serves /upload, a page with a file input.
func uploadFixtures(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/upload", browsertest.HTML("Upload", `<label>File <input type=file></label>`))
	return browsertest.Serve(t, mux).URL
}

// writeFile writes content to dir/name and returns its canonical path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// denied fails unless a call failed with the sandbox's denial.
func denied(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	got, isErr := call(t, cs, tool, args)
	if !isErr || !strings.HasPrefix(got, "Error: Access denied: path ") || !strings.Contains(got, want) {
		t.Errorf("%s(%v) = %v %q\nwant an access denial containing %q", tool, args, isErr, got, want)
	}
}

// TestDefaultSandboxIsPrivate: with no roots and no workspace, file tools
// use a private directory of the session's own, not the OS temp dir: a
// relative path is saved and read there; files elsewhere in the temp dir,
// the browser's profile among them, cannot be uploaded or read as a
// script; another session cannot reach the first one's files.
func TestDefaultSandboxIsPrivate(t *testing.T) {
	t.Parallel()
	srv := onSharedBrowser(t, transporttest.Options{})
	cs := srv.Connect(t)
	base := fixtures(t)
	id := openPage(t, cs, base+"/nav-a")

	// A relative path lands in the session's private directory.
	text := must(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": "snap.md"})
	m := regexp.MustCompile(`^Saved snapshot to (.+/tabhive-files-\d+/session-\d+)/snap\.txt\.$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("take_snapshot(filePath: snap.md) = %q, want it saved in a private directory", text)
	}
	private := m[1]
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(private)) != tmp {
		t.Errorf("private directory %s is not in the temp dir %s", private, tmp)
	}
	for _, dir := range []string{private, filepath.Dir(private)} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want mode 0700", dir, fi.Mode(), err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(private, "snap.txt")); err != nil || !strings.Contains(string(b), "Go to page B") {
		t.Errorf("snapshot file: %q, %v", b, err)
	}

	// The rest of the temp dir is out of reach, for writes and reads.
	outside := writeFile(t, t.TempDir(), "notes.js", "() => 'outside'")
	denied(t, cs, "take_snapshot", map[string]any{"pageId": id, "filePath": filepath.Join(filepath.Dir(outside), "x.txt")}, "Use a path inside one of them, or inside "+private+".")
	denied(t, cs, "evaluate_script", map[string]any{"pageId": id, "sourcePath": outside}, outside)
	up := openPage(t, cs, uploadFixtures(t)+"/upload")
	input := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": up}), "button", "File")
	denied(t, cs, "upload_file", map[string]any{"pageId": up, "uid": input, "filePaths": []string{outside}}, outside)
	profile := shared.sup.ProfileDir()
	if profile == "" {
		t.Fatal("the shared browser has no profile directory")
	}
	// A file of the profile's own, as its Cookies are (the browser, driven
	// over its pipe, writes no DevToolsActivePort).
	port := writeFile(t, profile, "Secret.js", "() => 'profile'")
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"upload_file", map[string]any{"pageId": up, "uid": input, "filePaths": []string{port}}},
		{"evaluate_script", map[string]any{"pageId": id, "sourcePath": port}},
		{"take_snapshot", map[string]any{"pageId": id, "filePath": filepath.Join(profile, "x.txt")}},
	} {
		got, isErr := call(t, cs, tool.name, tool.args)
		if !isErr || !strings.HasPrefix(got, "Error: Access denied: path ") {
			t.Errorf("%s(%v) inside the profile = %v %q, want an access denial", tool.name, tool.args, isErr, got)
		}
	}

	// A script in the private directory runs by its relative path, and a
	// file there can be uploaded.
	writeFile(t, private, "add.js", "() => 40 + 2")
	if got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "sourcePath": "add.js"}); !strings.Contains(got, "```json\n42\n```") {
		t.Errorf("evaluate_script(sourcePath: add.js) = %q, want 42", got)
	}
	if got := must(t, cs, "upload_file", map[string]any{"pageId": up, "uid": input, "filePaths": []string{"add.js"}}); !strings.HasPrefix(got, "File uploaded from add.js.") {
		t.Errorf("upload_file(add.js) = %q", got)
	}
	if got := must(t, cs, "evaluate_script", map[string]any{"pageId": up, "function": "() => document.querySelector('input').files[0].name"}); !strings.Contains(got, `"add.js"`) {
		t.Errorf("the uploaded file's name: %q", got)
	}

	// Another session has its own private directory and cannot reach the
	// first one's.
	other := srv.Connect(t)
	denied(t, other, "evaluate_script", map[string]any{"pageId": id, "sourcePath": filepath.Join(private, "add.js")}, private)
	text = must(t, other, "take_snapshot", map[string]any{"pageId": id, "filePath": "snap.txt"})
	if strings.Contains(text, private) || !strings.Contains(text, "/tabhive-files-") {
		t.Errorf("second session's take_snapshot = %q, want a private directory other than %s", text, private)
	}
}

// TestProfileNeverReachable: a client whose root is / reaches every file
// but the browser's: the launched browser's profile, the configured one
// (--user-data-dir) and the default one, directly or through a symlink, for
// upload_file, evaluate_script's sourcePath and every write. The shared
// test server's workspace, the temp dir, holds the launched profile too.
// Not parallel: it sets XDG_CACHE_HOME, where the default profile lives.
func TestProfileNeverReachable(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	defaultProfile := filepath.Join(cache, "tabhive", "chrome-profile")
	configured := t.TempDir()
	if err := os.MkdirAll(defaultProfile, 0o700); err != nil {
		t.Fatal(err)
	}
	clients := map[string]*mcp.ClientSession{
		"root /":                 filesClient(t, transport.Config{ProfileDir: configured}, []string{"/"}),
		"unrestricted":           filesClient(t, transport.Config{ProfileDir: configured, Unrestricted: true}, nil),
		"workspace with profile": filesClient(t, transport.Config{ProfileDir: configured, Workspaces: []string{"/"}}, nil),
	}
	base := uploadFixtures(t)
	pages := map[string]int{}
	for name, cs := range clients {
		pages[name] = openPage(t, cs, base+"/upload") // starts the browser
	}
	profile := shared.sup.ProfileDir()
	if profile == "" {
		t.Fatal("the shared browser has no profile directory")
	}
	links := t.TempDir()
	if err := os.Symlink(profile, filepath.Join(links, "profile")); err != nil {
		t.Fatal(err)
	}
	secret := writeFile(t, profile, "Secret.js", "() => 'profile'")
	if err := os.Symlink(secret, filepath.Join(links, "port.js")); err != nil {
		t.Fatal(err)
	}
	// A file to read, and a directory to write in, of each profile.
	secrets := []struct{ read, dir string }{
		{secret, profile},
		{filepath.Join(links, "port.js"), filepath.Join(links, "profile")},
		{filepath.Join(links, "profile", "Secret.js"), filepath.Join(links, "profile", "Default")},
		{writeFile(t, defaultProfile, "Cookies", "session=1"), defaultProfile},
		{writeFile(t, configured, "Cookies", "session=2"), configured},
	}

	for name, cs := range clients {
		id := pages[name]
		input := uidOf(t, must(t, cs, "take_snapshot", map[string]any{"pageId": id}), "button", "File")
		for _, secret := range secrets {
			for _, tool := range []struct {
				name string
				args map[string]any
			}{
				{"upload_file", map[string]any{"pageId": id, "uid": input, "filePaths": []string{secret.read}}},
				{"evaluate_script", map[string]any{"pageId": id, "sourcePath": secret.read}},
				{"take_snapshot", map[string]any{"pageId": id, "filePath": filepath.Join(secret.dir, "written.txt")}},
			} {
				got, isErr := call(t, cs, tool.name, tool.args)
				if !isErr || !strings.HasSuffix(got, "is inside the browser's profile, which no tool may read or write.") {
					t.Errorf("%s: %s(%v) = %v %q\nwant the profile refused", name, tool.name, tool.args, isErr, got)
				}
			}
		}
		// Beside the profiles, the root works.
		ok := writeFile(t, t.TempDir(), "ok.js", "() => 'fine'")
		if got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "sourcePath": ok}); !strings.Contains(got, `"fine"`) {
			t.Errorf("%s: evaluate_script(sourcePath outside the profiles) = %q", name, got)
		}
	}
	for _, secret := range secrets {
		if _, err := os.Stat(filepath.Join(secret.dir, "written.txt")); err == nil {
			t.Errorf("a refused write created %s", filepath.Join(secret.dir, "written.txt"))
		}
	}
}

// TestSourcePathNeverEchoes: a sourcePath file that is not a script, or
// that throws, is reported without its content; a file over 1 MiB is
// refused with its size. A file that is a script still runs.
func TestSourcePathNeverEchoes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs := filesClient(t, transport.Config{}, []string{dir})
	id := openPage(t, cs, fixtures(t)+"/nav-a")

	passwd := writeFile(t, dir, "passwd", "root:x:0:0:root:/root:/bin/bash\nsecretuser:x:1000:1000::/home/secretuser:/bin/sh\n")
	hostname := writeFile(t, dir, "hostname", "secrethost\n")
	token := writeFile(t, dir, "token", "apikey hunter2secret\n")
	thrower := writeFile(t, dir, "throw.js", "() => { throw new TypeError('visible only by catching') }")
	big := writeFile(t, dir, "big.js", "() => '"+strings.Repeat("x", 1<<20)+"'")
	good := writeFile(t, dir, "good.js", "() => document.title")

	tests := []struct {
		path, format, want string
	}{
		{passwd, "", "Error: The file " + passwd + " could not be used as a script: it is not valid JavaScript (the SyntaxError's message is not shown, as it would quote the file)."},
		{passwd, "script", "Error: The file " + passwd + " could not be used as a script: it is not valid JavaScript (the SyntaxError's message is not shown, as it would quote the file)."},
		{token, "", "Error: The file " + token + " could not be used as a script: it is not valid JavaScript (the SyntaxError's message is not shown, as it would quote the file)."},
		{hostname, "", "Error: The script from " + hostname + " threw a ReferenceError; its message is not shown, as it could quote the file. Catch the error in the script and return its message to see it."},
		{hostname, "script", "Error: The script from " + hostname + " threw a ReferenceError; its message is not shown, as it could quote the file. Catch the error in the script and return its message to see it."},
		{thrower, "", "Error: The script from " + thrower + " threw a TypeError; its message is not shown, as it could quote the file. Catch the error in the script and return its message to see it."},
		{big, "", "Error: The script file " + big + " is 1048584 bytes; a sourcePath file can be at most 1 MiB (1048576 bytes). Use a smaller script."},
		{filepath.Join(dir, "missing.js"), "", "Error: Unable to read script source from " + filepath.Join(dir, "missing.js") + ": no such file or directory."},
		{dir, "", "Error: Unable to read script source from " + dir + ": it is a directory; give the path of a regular file."},
	}
	for _, tt := range tests {
		args := map[string]any{"pageId": id, "sourcePath": tt.path}
		if tt.format != "" {
			args["format"] = tt.format
		}
		got, isErr := call(t, cs, "evaluate_script", args)
		if !isErr || got != tt.want {
			t.Errorf("evaluate_script(%v) = %v %q\nwant %q", args, isErr, got, tt.want)
		}
		for _, secret := range []string{"root:x", "secretuser", "secrethost", "hunter2", "visible only", "xxxxxxxx"} {
			if strings.Contains(got, secret) {
				t.Errorf("evaluate_script(%v) echoes the file's %q: %q", args, secret, got)
			}
		}
	}
	if got := must(t, cs, "evaluate_script", map[string]any{"pageId": id, "sourcePath": good}); !strings.Contains(got, `"Page A"`) {
		t.Errorf("evaluate_script(sourcePath: a good script) = %q", got)
	}
	// An inline function's errors are still shown whole.
	if got, _ := call(t, cs, "evaluate_script", map[string]any{"pageId": id, "function": "() => { throw new TypeError('shown') }"}); !strings.Contains(got, "TypeError: shown") {
		t.Errorf("evaluate_script(function that throws) = %q, want its message", got)
	}
}
