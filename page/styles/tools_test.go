package styles_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/transport/httpserve"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

// eachTransport runs f as a subtest per transport, each with a client of
// the shared server: in process, and over streamable HTTP.
func eachTransport(t *testing.T, f func(t *testing.T, cs *mcp.ClientSession)) {
	t.Run("in-memory", func(t *testing.T) { f(t, transporttest.OnShared(t, transporttest.Options{}).Connect(t)) })
	t.Run("http", func(t *testing.T) {
		f(t, transporttest.OnShared(t, transporttest.Options{HTTP: &httpserve.Config{}}).Connect(t))
	})
}

// cssPages serves testdata/css: rich.html styles its elements every way
// get_css_styles reports (style sheets and <style>, @layer, @scope,
// @supports, @container, nesting, !important, inherited and custom
// properties, @property and CSS.registerProperty, @keyframes, a
// constructed style sheet, presentational attributes, pseudo-elements,
// slots).
func cssPages(t *testing.T) string {
	t.Helper()
	return browsertest.Serve(t, http.FileServer(http.Dir("testdata/css"))).URL
}

// textUID finds the uid of a text line ("uid=1_3 "text"") of a snapshot.
func textUID(t *testing.T, snapshot, text string) string {
	t.Helper()
	m := regexp.MustCompile(`uid=(\S+) "` + regexp.QuoteMeta(text) + `"`).FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no text %q in:\n%s", text, snapshot)
	}
	return m[1]
}

// wantSpanStyles is get_css_styles' first page for the span of rich.html,
// as chrome-devtools-mcp 1.11 gives it (recorded side by side on the same
// page; UID stands for the span's uid).
const wantSpanStyles = `Showing 1-10 of 15 (Page 1 of 2).
Next page: 1
Styles for span (uid: "UID"):

  .card {
    & > span (rich.html:15) {
      color: blue;
    }
  }

  .card span (site.css:6) {
    text-transform: uppercase;
  }

  Inherited from div#c:
    @scope (.wrap) {
      .card (rich.html:16) {
        letter-spacing: 1px;
      }
    }

  Inherited from div#c:
    @layer theme {
      .card (rich.html:6) {
        [overloaded] color: teal;
      }
    }

  Inherited from div#c:
    @layer base {
      .card (rich.html:7) {
        [overloaded] color: gray;
      }
    }

  Inherited from .wrap:
    .wrap (rich.html:12) {
      font-style: italic;
    }

  Inherited from body:
    body (site.css:1) {
      [overloaded] color: #222;
      line-height: 1.4;
      --accent: navy;
    }

  Inherited from html:
    :root (rich.html:8) {
      --gap: 4px;
    }

  /* Pseudo ::selection element */
  ::selection (rich.html:18) {
    background: yellow;
  }

  /* Pseudo ::selection element (inherited from div#c) */
  ::selection (rich.html:18) {
    [overloaded] background: yellow;
  }`

// TestCSSStyles: get_css_styles gives an element's rules as
// chrome-devtools-mcp does, paged, over both transports.
func TestCSSStyles(t *testing.T) {
	t.Parallel()
	base := cssPages(t)
	eachTransport(t, func(t *testing.T, cs *mcp.ClientSession) {
		id := transporttest.OpenPage(t, cs, base+"/rich.html")
		snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
		span := textUID(t, snap, "CARD TEXT")
		got := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": span})
		if want := strings.ReplaceAll(wantSpanStyles, "UID", span); got != want {
			t.Errorf("get_css_styles of the span =\n%s\nwant:\n%s", got, want)
		}
		next := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": span, "pageIdx": 1})
		for _, want := range []string{
			"Showing 11-15 of 15 (Page 2 of 2).\nPrevious page: 0\n",
			"/* Pseudo ::selection element (inherited from html) */",
			"  @property --size (rich.html:9) {\n    syntax: \"<length>\";\n    inherits: false;\n    initial-value: 10px;\n  }",
			"  @property --reg (CSS.registerProperty) {\n    inherits: true;\n    syntax: \"<color>\";\n    initial-value: red;\n  }",
		} {
			if !strings.Contains(next, want) {
				t.Errorf("page 2 lacks %q:\n%s", want, next)
			}
		}
		if bad := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": span, "pageIdx": 9}); !strings.HasPrefix(bad, "Invalid page number provided. Showing first page.\nShowing 1-10 of 15") {
			t.Errorf("page 9 =\n%s", bad)
		}

		// The card's own rules: style attribute, !important, @container
		// with its container, the cascade of layers, the user agent's.
		card := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": textUID(t, snap, "!"), "pageSize": 100})
		for _, want := range []string{
			"Styles for div#c (uid: ",
			"  element.style {\n    --size: 5px;\n    padding: 3px !important;\n  }",
			"  /* container: .wrap */\n  @container side (min-width: 10px) {\n    .card (rich.html:13) {\n      margin: 2px;\n    }\n  }",
			"  .card (rich.html:11) {\n    animation: pulse 2s infinite;\n    border-radius: 3px !important;\n  }",
			"  .card, .other (site.css:3) {\n    background: white;\n  }",
			"  @layer base {\n    .card (rich.html:7) {\n      [overloaded] color: gray;\n      [overloaded] padding: 1px;\n    }\n  }",
			"  div (user agent stylesheet) {\n    [overloaded] display: block;\n    unicode-bidi: isolate;\n  }",
			"  /* Pseudo ::after element */\n  .card::after (rich.html:19) {\n    content: \"!\";\n  }",
			"  @keyframes pulse (rich.html:10) {\n    0% {\n      opacity: 0.5;\n    }\n    100% {\n      opacity: 1;\n    }\n  }",
		} {
			if !strings.Contains(card, want) {
				t.Errorf("the card's styles lack\n%s\nin:\n%s", want, card)
			}
		}
		attrs := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": textUID(t, snap, "Cell")})
		if !strings.Contains(attrs, "  td[attributes style] {\n    background-color: rgb(238, 238, 238);\n    width: 50px;\n  }") {
			t.Errorf("the cell's styles lack its attributes:\n%s", attrs)
		}
		fancy := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": textUID(t, snap, "Fancy")})
		if !strings.Contains(fancy, "  .fancy (constructed stylesheet) {\n    text-decoration: underline;\n  }") {
			t.Errorf("the paragraph's styles lack its constructed style sheet:\n%s", fancy)
		}
		// A slotted element inherits through its slot and the shadow host.
		slotted := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": textUID(t, snap, "Slotted text")})
		if !strings.Contains(slotted, "  Inherited from slot:\n    slot (rich.html:35) {\n      font-weight: bold;\n    }\n\n  Inherited from my-host:\n    :host (rich.html:35) {\n      color: green;\n    }") {
			t.Errorf("the slotted span's styles:\n%s", slotted)
		}
	})
}

// TestCSSStylesOutOfProcessFrame: an element of a cross-site iframe is read
// through its frame's own session, with its own style sheets' sources, and
// an ancestor the snapshot shows is named by its uid.
func TestCSSStylesOutOfProcessFrame(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/frame.css", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "nav { color: rebeccapurple; }\n\n.item { margin-left: 7px; }\n")
	}))
	mux.Handle("/frame", browsertest.HTML("Inner", `<link rel=stylesheet href="/frame.css"><nav aria-label="Menu"><a class=item href="#x">Inner link</a></nav>`))
	inner := browsertest.ServeOwnSite(t, mux)
	top := browsertest.Serve(t, browsertest.HTML("Top", `<style>body { color: black }</style><iframe title="Inner frame" src="`+inner.URL+`/frame"></iframe>`)).URL + "/"
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	id := transporttest.OpenPage(t, cs, top)
	transporttest.Must(t, cs, "wait_for", map[string]any{"pageId": id, "text": []string{"Inner link"}})
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": id})
	nav := transporttest.UIDOf(t, snap, "navigation", "Menu")
	got := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": id, "uid": transporttest.UIDOf(t, snap, "link", "Inner link")})
	for _, want := range []string{
		"  .item (frame.css:3) {\n    margin-left: 7px;\n  }",
		"  a:-webkit-any-link (user agent stylesheet) {",
		fmt.Sprintf("  Inherited from nav (uid: %q):\n    nav (frame.css:1) {\n      [overloaded] color: rebeccapurple;\n    }", nav),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the iframe link's styles lack\n%s\nin:\n%s", want, got)
		}
	}
	if strings.Contains(got, "black") {
		t.Errorf("the iframe link's styles show the top page's rule:\n%s", got)
	}
}

// TestCSSStylesBadInput: each refusal is one sentence and changes nothing.
func TestCSSStylesBadInput(t *testing.T) {
	t.Parallel()
	base := cssPages(t)
	cs := transporttest.OnShared(t, transporttest.Options{}).Connect(t)
	fresh := transporttest.OpenPage(t, cs, base+"/rich.html")
	if got, isErr := transporttest.Call(t, cs, "get_css_styles", map[string]any{"pageId": fresh, "uid": "1_1"}); !isErr ||
		got != fmt.Sprintf("Error: No snapshot found for page %d. Use take_snapshot to capture one.", fresh) {
		t.Errorf("before any snapshot: %v %q", isErr, got)
	}
	snap := transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": fresh})
	root := regexp.MustCompile(`uid=(\S+) RootWebArea`).FindStringSubmatch(snap)[1]
	span := textUID(t, snap, "CARD TEXT")
	closed := transporttest.OpenPage(t, cs, base+"/rich.html")
	transporttest.Must(t, cs, "close_page", map[string]any{"pageId": closed})
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pageId": fresh, "uid": "999_1"}, fmt.Sprintf(`Error: Element uid "999_1" not found on page %d.`, fresh)},
		{map[string]any{"pageId": fresh, "uid": root}, fmt.Sprintf(`Error: Element with uid %q is not an element node and has no parent element.`, root)},
		{map[string]any{"pageId": fresh, "uid": span, "pageSize": 0}, `Invalid argument "pageSize" for tool "get_css_styles"`},
		{map[string]any{"pageId": fresh}, `Missing required argument "uid" for tool "get_css_styles"`},
		{map[string]any{"pageId": closed, "uid": span}, fmt.Sprintf("Error: No page found with id %d. Call list_pages to see open pages.", closed)},
	}
	for _, tt := range tests {
		got, isErr := transporttest.Call(t, cs, "get_css_styles", tt.args)
		if !isErr || !strings.HasPrefix(got, tt.want) || strings.Count(got, "\n") > 0 {
			t.Errorf("get_css_styles(%v) = %v %q, want one sentence starting %q", tt.args, isErr, got, tt.want)
		}
	}
	// A uid of the document before a reload names nothing after it.
	transporttest.Must(t, cs, "navigate_page", map[string]any{"pageId": fresh, "type": "reload"})
	if got, isErr := transporttest.Call(t, cs, "get_css_styles", map[string]any{"pageId": fresh, "uid": span}); !isErr ||
		got != fmt.Sprintf("Error: Element with uid %s no longer exists on the page. Take a new snapshot (take_snapshot) and use the uids it gives.", span) {
		t.Errorf("after a reload: %v %q", isErr, got)
	}
	// And the page still answers.
	snap = transporttest.Must(t, cs, "take_snapshot", map[string]any{"pageId": fresh})
	if got := transporttest.Must(t, cs, "get_css_styles", map[string]any{"pageId": fresh, "uid": textUID(t, snap, "CARD TEXT")}); !strings.Contains(got, "Styles for span") {
		t.Errorf("after the refusals: %q", got)
	}
}
