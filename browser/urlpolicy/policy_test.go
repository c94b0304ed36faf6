package urlpolicy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/urlpolicy"
)

func mustNew(t *testing.T, cfg urlpolicy.Config) *urlpolicy.Policy {
	t.Helper()
	p, err := urlpolicy.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return p
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  urlpolicy.Config
		want string
	}{
		{
			name: "both lists",
			cfg:  urlpolicy.Config{Allowed: []string{"https://a.test/*"}, Blocked: []string{"https://b.test/*"}},
			want: "--allowed-url-pattern and --blocked-url-pattern cannot be used together (as in chrome-devtools-mcp): list what may load with --allowed-url-pattern alone, or what may not with --blocked-url-pattern alone",
		},
		{
			name: "fragment",
			cfg:  urlpolicy.Config{Blocked: []string{"https://evil.test/#login"}},
			want: `--blocked-url-pattern: URL pattern "https://evil.test/#login" cannot be enforced: network requests carry no #fragment, so its hash part "login" could never be checked; leave out the "#..." part`,
		},
		{
			name: "empty",
			cfg:  urlpolicy.Config{Allowed: []string{""}},
			want: `--allowed-url-pattern: URL pattern is empty; give a pattern such as "https://example.com/*"`,
		},
		{
			name: "no scheme",
			cfg:  urlpolicy.Config{Allowed: []string{"example.com/*"}},
			want: `--allowed-url-pattern: URL pattern "example.com/*" is not valid: it has no scheme; write a full pattern such as "https://example.com/*" or "*://example.com/*"`,
		},
		{
			name: "lookahead",
			cfg:  urlpolicy.Config{Blocked: []string{"https://a.test/(x(?=y))"}},
			want: `--blocked-url-pattern: URL pattern "https://a.test/(x(?=y))" is not valid: pathname "/(x(?=y))": regexp group (x(?=y)): lookahead "(?=" is not supported (Go's RE2 engine has none); match the text itself instead`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := urlpolicy.New(tt.cfg)
			if err == nil || err.Error() != tt.want {
				t.Errorf("New() = %v,\nwant %s", err, tt.want)
			}
		})
	}
}

func TestRefusalSentences(t *testing.T) {
	blocking := mustNew(t, urlpolicy.Config{Blocked: []string{"*://evil.test/*", "http://127.0.0.1:*/*"}})
	allowing := mustNew(t, urlpolicy.Config{Allowed: []string{"https://example.com/*", "https://*.example.com/*"}, FileNavigations: true, JavaScript: true})
	plain := mustNew(t, urlpolicy.Config{})
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"file", plain.Navigation("file:///etc/shadow"),
			"Navigation to file:///etc/shadow refused: this server does not allow file: URLs (start it with --file-navigations to allow them)."},
		{"file request", plain.Request("file:///etc/hostname"),
			"Request to file:///etc/hostname refused: this server does not allow file: URLs (start it with --file-navigations to allow them)."},
		{"view-source of file", plain.Navigation("view-source:file:///etc/shadow"),
			"Navigation to view-source:file:///etc/shadow refused: this server does not allow file: URLs (start it with --file-navigations to allow them)."},
		{"blocked", blocking.Navigation("https://evil.test/login"),
			`Navigation to https://evil.test/login refused: it matches --blocked-url-pattern "*://evil.test/*".`},
		{"blocked request", blocking.Request("http://127.0.0.1:9222/json/version"),
			`Request to http://127.0.0.1:9222/json/version refused: it matches --blocked-url-pattern "http://127.0.0.1:*/*".`},
		{"not allowed", allowing.Navigation("https://other.test/"),
			`Navigation to https://other.test/ refused: it is not allowed by any --allowed-url-pattern (allowed: "https://example.com/*", "https://*.example.com/*").`},
		{"chrome", plain.Navigation("chrome://settings"),
			"Navigation to chrome://settings refused: chrome: URLs are the browser's own pages, which this server never opens."},
		{"devtools", plain.Navigation("devtools://devtools/bundled/inspector.html"),
			"Navigation to devtools://devtools/bundled/inspector.html refused: devtools: URLs are the browser's own pages, which this server never opens."},
		{"about", plain.Navigation("about:version"),
			"Navigation to about:version refused: of the about: URLs only about:blank and about:srcdoc may be opened."},
		{"javascript", plain.Navigation("javascript:alert(1)"),
			"Navigation to javascript:alert(1) refused: this server was started with --javascript-evaluation=false, which refuses javascript: URLs."},
		{"data", plain.Navigation("data:text/html,<script>alert(1)</script>"),
			"Navigation to data:text/html,<script>alert(1)</script> refused: this server was started with --javascript-evaluation=false, which refuses data: URLs (they can run script)."},
		{"blob of no origin", plain.Navigation("blob:null/6b3c"),
			"Navigation to blob:null/6b3c refused: this server was started with --javascript-evaluation=false, which refuses blob: URLs that carry their own content (they can run script)."},
		{"evaluate_script", plain.Evaluation("evaluate_script"),
			"evaluate_script refused: this server was started with --javascript-evaluation=false, which disables running an agent's JavaScript in pages."},
		{"relative", plain.Navigation("example.com"),
			"Navigation to example.com refused: it is not a valid URL (it has no scheme); give the full URL, such as https://example.com/."},
		{"invalid with patterns", blocking.Navigation("http://exa mple.com/"),
			`Navigation to http://exa mple.com/ refused: it is not a valid URL (hostname "exa mple.com" holds the character " ", which no host name may hold); give the full URL, such as https://example.com/.`},
		{"non-ASCII host", blocking.Navigation("https://café.test/"),
			"Navigation to https://café.test/ refused: its host name is not ASCII, so the URL patterns cannot be checked; write the host in its punycode (xn--) form."},
		{"control characters are quoted", plain.Navigation("javascript:a\x00b"),
			`Navigation to "javascript:a\x00b" refused: this server was started with --javascript-evaluation=false, which refuses javascript: URLs.`},
		{"long URLs are cut", plain.Navigation("data:text/plain," + strings.Repeat("x", 5000)),
			"Navigation to data:text/plain," + strings.Repeat("x", 200-len("data:text/plain,")) + "… refused: this server was started with --javascript-evaluation=false, which refuses data: URLs (they can run script)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatalf("got nil, want %q", tt.want)
			}
			if tt.err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", tt.err, tt.want)
			}
			if !errors.Is(tt.err, urlpolicy.ErrBlocked) {
				t.Errorf("%v does not wrap ErrBlocked", tt.err)
			}
			var refused *urlpolicy.RefusedError
			if !errors.As(tt.err, &refused) {
				t.Errorf("%v is not a *RefusedError", tt.err)
			}
		})
	}
}

func TestRefusedErrorFields(t *testing.T) {
	p := mustNew(t, urlpolicy.Config{Blocked: []string{"*://evil.test/*"}})
	var refused *urlpolicy.RefusedError
	if !errors.As(p.Request("https://evil.test/x"), &refused) {
		t.Fatal("Request did not return a *RefusedError")
	}
	if refused.Action != "Request" || refused.URL != "https://evil.test/x" || refused.Reason != urlpolicy.ReasonBlocked || refused.Pattern != "*://evil.test/*" {
		t.Errorf("RefusedError = %+v", refused)
	}
	if got := refused.Reason.String(); got != "blocked" {
		t.Errorf("Reason.String() = %q, want %q", got, "blocked")
	}
}

func TestAllowedListIsCutInErrors(t *testing.T) {
	var allowed []string
	for _, h := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		allowed = append(allowed, "https://"+h+".test/*")
	}
	p := mustNew(t, urlpolicy.Config{Allowed: allowed})
	err := p.Request("https://z.test/")
	want := `Request to https://z.test/ refused: it is not allowed by any --allowed-url-pattern (allowed: "https://a.test/*", "https://b.test/*", "https://c.test/*", "https://d.test/*", "https://e.test/*" and 2 more).`
	if err == nil || err.Error() != want {
		t.Errorf("Request = %v,\nwant %s", err, want)
	}
}

// decision runs Request or Navigation and returns "" when allowed, else the
// reason.
func decision(p *urlpolicy.Policy, navigation bool, url string) urlpolicy.Reason {
	var err error
	if navigation {
		err = p.Navigation(url)
	} else {
		err = p.Request(url)
	}
	var refused *urlpolicy.RefusedError
	if errors.As(err, &refused) {
		return refused.Reason
	}
	if err != nil {
		panic(err)
	}
	return 0
}

func TestDecisions(t *testing.T) {
	const allowed urlpolicy.Reason = 0
	plain := mustNew(t, urlpolicy.Config{})
	open := mustNew(t, urlpolicy.Config{FileNavigations: true, JavaScript: true})
	blocking := mustNew(t, urlpolicy.Config{
		Blocked:         []string{"*://evil.test:*/*", "*://127.0.0.1:*/*", "file:///root/*", `data\:text/html,*`},
		FileNavigations: true, JavaScript: true,
	})
	allowing := mustNew(t, urlpolicy.Config{
		Allowed:         []string{"https://example.com/*", "file:///tmp/*", "wss://example.com/*"},
		FileNavigations: true, JavaScript: true,
	})
	tests := []struct {
		name       string
		p          *urlpolicy.Policy
		navigation bool
		url        string
		want       urlpolicy.Reason
	}{
		{"about:blank", plain, true, "about:blank", allowed},
		{"about:blank#x", plain, true, "about:blank#x", allowed},
		{"about:srcdoc", plain, false, "about:srcdoc", allowed},
		{"about:blank with allow list", allowing, true, "about:blank", allowed},
		{"about:version", open, true, "about:version", urlpolicy.ReasonAboutPage},
		{"ABOUT:config", open, true, "ABOUT:config", urlpolicy.ReasonAboutPage},
		{"http", plain, true, "http://example.com/", allowed},
		{"ws request", plain, false, "ws://127.0.0.1:1/", allowed},
		{"file refused", plain, true, "file:///etc/passwd", urlpolicy.ReasonFile},
		{"FILE refused", plain, true, " FILE:///etc/passwd", urlpolicy.ReasonFile},
		{"fi\\tle refused", plain, true, "fi\tle:///etc/passwd", urlpolicy.ReasonFile},
		{"file request refused", plain, false, "file:///etc/passwd", urlpolicy.ReasonFile},
		{"file allowed", open, true, "file:///etc/passwd", allowed},
		{"view-source:file", plain, true, "view-source:file:///etc/passwd", urlpolicy.ReasonFile},
		{"VIEW-SOURCE:file", plain, true, "VIEW-SOURCE:file:///etc/passwd", urlpolicy.ReasonFile},
		{"view-source:http", plain, true, "view-source:https://example.com/", allowed},
		{"view-source:view-source", open, true, "view-source:view-source:https://example.com/", urlpolicy.ReasonInvalidURL},
		{"view-source:chrome", open, true, "view-source:chrome://settings", urlpolicy.ReasonInternalPage},
		{"filesystem:file", plain, true, "filesystem:file:///persistent/x", urlpolicy.ReasonFile},
		{"blob:file", plain, true, "blob:file:///5a1f", urlpolicy.ReasonFile},
		{"chrome", open, true, "chrome://settings", urlpolicy.ReasonInternalPage},
		{"chrome newtab", open, true, "chrome://newtab/", urlpolicy.ReasonInternalPage},
		{"chrome request", open, false, "chrome://settings", urlpolicy.ReasonInternalPage},
		{"CHROME", open, true, "CHROME://settings", urlpolicy.ReasonInternalPage},
		{"chrome-untrusted", open, true, "chrome-untrusted://terminal/", urlpolicy.ReasonInternalPage},
		{"devtools", open, true, "devtools://devtools/bundled/inspector.html", urlpolicy.ReasonInternalPage},
		{"chrome-extension", open, true, "chrome-extension://abc/x.html", urlpolicy.ReasonInternalPage},
		{"chrome-search", open, true, "chrome-search://local-ntp/", urlpolicy.ReasonInternalPage},
		{"javascript refused", plain, true, "javascript:alert(1)", urlpolicy.ReasonJavaScript},
		{"JaVaScRiPt refused", plain, true, "  JaVa\tScRiPt:alert(1)", urlpolicy.ReasonJavaScript},
		{"javascript allowed", open, true, "javascript:alert(1)", allowed},
		{"data refused", plain, true, "data:text/html,hi", urlpolicy.ReasonJavaScript},
		{"data allowed", open, true, "data:text/html,hi", allowed},
		{"data request", plain, false, "data:image/png;base64,AAAA", allowed},
		{"data not subject to allow list", allowing, true, "data:text/plain,hi", allowed},
		{"data blocked by pattern", blocking, true, "data:text/html,<script>", urlpolicy.ReasonBlocked},
		{"other data not blocked", blocking, true, "data:text/plain,hi", allowed},
		{"blob of opaque origin refused", plain, true, "blob:null/uuid", urlpolicy.ReasonJavaScript},
		{"blob of opaque origin request", plain, false, "blob:null/uuid", allowed},
		{"blob decided by origin", blocking, true, "blob:https://evil.test/uuid", urlpolicy.ReasonBlocked},
		{"blob allowed by origin", allowing, false, "blob:https://example.com/uuid", allowed},
		{"blob of other origin", allowing, false, "blob:https://other.test/uuid", urlpolicy.ReasonNotAllowed},
		{"blob of a non-ASCII origin with patterns", blocking, false, "blob:https://café.test/uuid", urlpolicy.ReasonHostNotASCII},
		{"blob of a non-ASCII origin without patterns", open, true, "blob:https://café.test/uuid", allowed},
		{"blocked", blocking, true, "https://evil.test/", urlpolicy.ReasonBlocked},
		{"blocked any port", blocking, false, "http://evil.test:8080/x", urlpolicy.ReasonBlocked},
		{"blocked ws", blocking, false, "ws://evil.test/", urlpolicy.ReasonBlocked},
		{"blocked view-source", blocking, true, "view-source:https://evil.test/", urlpolicy.ReasonBlocked},
		{"blocked hex IPv4", blocking, true, "http://0x7f000001:9222/json", urlpolicy.ReasonBlocked},
		{"blocked short IPv4", blocking, true, "http://127.1:9222/json", urlpolicy.ReasonBlocked},
		{"blocked file dir", blocking, true, "file:///root/.ssh/id_rsa", urlpolicy.ReasonBlocked},
		{"blocked file dir via dot segments", blocking, true, "file:///tmp/../root/.ssh/id_rsa", urlpolicy.ReasonBlocked},
		{"not blocked", blocking, true, "https://good.test/", allowed},
		{"not blocked file", blocking, true, "file:///tmp/x", allowed},
		{"allowed", allowing, true, "https://example.com/a", allowed},
		{"allowed request", allowing, false, "https://example.com/a?b", allowed},
		{"allowed file", allowing, true, "file:///tmp/report.html", allowed},
		{"not allowed file", allowing, true, "file:///etc/passwd", urlpolicy.ReasonNotAllowed},
		{"not allowed port", allowing, false, "https://example.com:8443/", urlpolicy.ReasonNotAllowed},
		{"not allowed scheme", allowing, false, "http://example.com/", urlpolicy.ReasonNotAllowed},
		{"allowed wss", allowing, false, "wss://example.com/socket", allowed},
		{"not allowed ws", allowing, false, "ws://example.com/socket", urlpolicy.ReasonNotAllowed},
		{"not allowed mailto", allowing, true, "mailto:a@example.com", urlpolicy.ReasonNotAllowed},
		{"allow list with redirect hop", allowing, false, "https://example.com.evil.test/", urlpolicy.ReasonNotAllowed},
		{"no scheme", open, true, "//example.com/", urlpolicy.ReasonInvalidURL},
		{"empty", open, true, "", urlpolicy.ReasonInvalidURL},
		{"invalid without patterns is left to the browser", open, true, "http://exa mple.com/", allowed},
		{"invalid with patterns", allowing, false, "http://exa mple.com/", urlpolicy.ReasonInvalidURL},
		{"non-ASCII host without patterns", open, true, "https://café.test/", allowed},
		{"non-ASCII host with patterns", blocking, true, "https://café.test/", urlpolicy.ReasonHostNotASCII},
		{"punycode host with patterns", blocking, true, "https://xn--caf-dma.test/", allowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decision(tt.p, tt.navigation, tt.url); got != tt.want {
				t.Errorf("decision(%q, navigation=%v) = reason %d, want %d", tt.url, tt.navigation, got, tt.want)
			}
		})
	}
}

func TestNilPolicyAllowsEverything(t *testing.T) {
	var p *urlpolicy.Policy
	for _, u := range []string{"file:///etc/shadow", "chrome://settings", "javascript:1", "not a url"} {
		if err := p.Navigation(u); err != nil {
			t.Errorf("nil Navigation(%q) = %v", u, err)
		}
		if err := p.Request(u); err != nil {
			t.Errorf("nil Request(%q) = %v", u, err)
		}
	}
	if err := p.Evaluation("evaluate_script"); err != nil {
		t.Errorf("nil Evaluation = %v", err)
	}
}

func TestEvaluationAllowed(t *testing.T) {
	p := mustNew(t, urlpolicy.Config{JavaScript: true})
	if err := p.Evaluation("initScript"); err != nil {
		t.Errorf("Evaluation with JavaScript = %v", err)
	}
}
