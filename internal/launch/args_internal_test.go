package launch

import (
	"strings"
	"testing"
)

// TestCheckArgs: every spelling Chromium parses of a switch that opens the
// control channel is refused, naming the argument; other switches pass.
func TestCheckArgs(t *testing.T) {
	for _, a := range []string{
		"--remote-debugging-port=9222", "-remote-debugging-port=9222", "--remote-debugging-port",
		"-REMOTE-DEBUGGING-PORT=1", "--remote-debugging-address=0.0.0.0", "-remote-debugging-pipe",
		"--remote-debugging-pipe=cbor", "--remote-debugging-io-pipes=5,6", "--remote-debugging-socket-name=x",
		"-remote-allow-origins=*", "--remote-debugging-targets=x", "-user-data-dir=/x", "--user-data-dir",
		"about:blank", "http://example.com/", "--", "-", "--=1",
	} {
		err := checkArgs([]string{"--lang=en", a})
		if err == nil || !strings.Contains(err.Error(), "--chrome-arg "+a+" is refused") {
			t.Errorf("checkArgs(%q) = %v, want it refused by name", a, err)
		}
	}
	for _, a := range []string{"--lang=en", "-lang=en", "--disable-features=A,B", "--window-size=800,600", "--remote-fonts"} {
		if err := checkArgs([]string{a}); err != nil {
			t.Errorf("checkArgs(%q) = %v, want nil", a, err)
		}
	}
}

// TestMergeJSFlags: a user's --js-flags keeps tabhive's V8 flags, in one
// switch (Chromium keeps only the last of two), with the user's last so
// that theirs win over ours.
func TestMergeJSFlags(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"--a", jsFlags, "--b"}, []string{"--a", jsFlags, "--b"}},
		{[]string{jsFlags, "--js-flags=--stack-size=900"}, []string{"--js-flags=--no-enable-lazy-source-positions --stack-size=900"}},
		{[]string{jsFlags, "-JS-Flags=--x", "--lang=en", "--js-flags=--y"}, []string{"-JS-Flags=--x", "--lang=en", "--js-flags=--no-enable-lazy-source-positions --y"}},
		{[]string{"--js-flags=--y"}, []string{"--js-flags=--y"}}, // ours left out by IgnoreDefaultArgs
	} {
		if got := mergeJSFlags(tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("mergeJSFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
