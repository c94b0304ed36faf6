package axsnapshot

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/browser/browsertest"
	pg "github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/snapshot"
)

// largeList is the benchmark harness's /large?n= page, byte for byte
// (bench/fixtures/server.mjs): n list items, each with text, a link and a
// button (7 DOM nodes an item).
func largeList(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Large %d</title>\n<link rel=\"icon\" href=\"data:,\"></head>\n<body>\n<h1>Large list (%d)</h1>\n<ul>\n", n, n)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "<li>Item %d <a href=\"#item-%d\">link %d</a> <button type=\"button\">button %d</button></li>", i, i, i, i)
	}
	b.WriteString("\n</ul>\n</body></html>")
	return b.String()
}

// mixedPage is a page of n blocks of varied content: headings, paragraphs
// with inline markup and links, labelled form fields, a table row, an image,
// an icon drawn with ::before (as most sites' style sheets have) and hidden
// text; about 47 DOM nodes a block.
func mixedPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>Mixed</title><style>.hid{display:none} .ico::before{content:'\\2605'}</style></head><body><main>\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<section aria-labelledby="h%d"><h2 id="h%d">Section %d</h2>
<p>Some <b>bold</b> and <i>italic</i> text with a <a href="/p/%d">link %d</a>, then more text.</p>
<div class="row"><label for="f%d">Field %d</label> <input id="f%d" value="v%d"> <select aria-label="Pick %d"><option>A</option><option selected>B</option></select></div>
<table><tr><th>Name</th><td>Value %d</td></tr></table>
<img src="data:," alt="Picture %d"> <button aria-pressed="false"><span class="ico" aria-hidden="true"></span> Toggle %d</button>
<span class="hid">hidden %d</span> <span aria-hidden="true">decor</span></section>
`, i, i, i, i, i, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

// BenchmarkSnapshot measures a default snapshot of pages of growing size,
// from the AX tree (Accessibility.getFullAXTree + Puppeteer's filter, the
// old path, "ax") and with the in-page walker ("walk"), on the actor as a
// tool call runs it (frames, CDP, text; not the uid bookkeeping). Each
// reports the page's DOM node count, the first snapshot of the document
// (the walker is installed and ids are handed out then) and the median.
//
//	go test -run '^$' -bench Snapshot -benchtime 5x ./page/axsnapshot/
func BenchmarkSnapshot(b *testing.B) {
	pages := []struct {
		name string
		html string
	}{
		{"mixed-1k", mixedPage(25)},
		{"mixed-10k", mixedPage(250)},
		{"mixed-50k", mixedPage(1250)},
		{"large-2000", largeList(2000)},
	}
	mux := http.NewServeMux()
	for _, p := range pages {
		mux.Handle("/"+p.name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(p.html))
		}))
	}
	srv := browsertest.Serve(b, mux)
	// All walks first: the AX tree of the 50k page leaves Chromium busy
	// (memory, GC) for a while, which would tax the next measurement.
	for _, path := range []string{"walk", "ax"} {
		for _, p := range pages {
			if path == "ax" && p.name == "mixed-50k" && testing.Short() {
				continue
			}
			b.Run(p.name+"/"+path, func(b *testing.B) {
				a := open(b, srv.URL+"/"+p.name)
				nodes := domNodes(b, a)
				s := key.Of(a)
				snap := func(ctx context.Context) (*snapshot.Node, error) {
					frames := s.h.Frames()
					if path == "ax" {
						return s.readAX(ctx, frames, false)
					}
					return s.walk(ctx, frames)
				}
				durations := make([]time.Duration, 0, b.N)
				for b.Loop() {
					start := time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					_, err := pg.Do(ctx, s.h, func(ctx context.Context) (*snapshot.Node, error) { return snap(ctx) })
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					durations = append(durations, time.Since(start))
				}
				b.ReportMetric(float64(nodes), "dom-nodes")
				b.ReportMetric(durations[0].Seconds()*1000, "first-ms")
				b.ReportMetric(median(durations).Seconds()*1000, "p50-ms")
			})
		}
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// domNodes counts the page's DOM nodes (elements, text, comments).
func domNodes(t testing.TB, a *pg.Actor) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := key.Of(a).h
	n, err := pg.Do(ctx, h, func(ctx context.Context) (int, error) {
		var n int
		err := h.Call(ctx, func(ctx context.Context) error {
			r, err := h.Client().Runtime.Evaluate(ctx, runtimeEval(
				`(() => { let n = 0; const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL); while (w.nextNode()) n++; return n; })()`))
			if err != nil {
				return err
			}
			n, err = strconv.Atoi(string(r.Result.Value))
			return err
		})
		return n, err
	})
	if err != nil {
		t.Fatalf("count DOM nodes: %v", err)
	}
	return n
}

func runtimeEval(expr string) *runtime.EvaluateArgs {
	return runtime.NewEvaluateArgs(expr).SetReturnByValue(true)
}

// BenchmarkSnapshotFrames measures a default snapshot of a page of 1,000
// list items with three iframes of 300 items each, the iframes on the
// page's own site ("same-site": one renderer) or each on a site of its own
// ("cross-site": out-of-process iframes, walked through their own
// sessions).
//
//	go test -run '^$' -bench SnapshotFrames -benchtime 10x ./page/axsnapshot/
func BenchmarkSnapshotFrames(b *testing.B) {
	frame := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(largeList(300)))
	})
	var others []string
	for range 3 {
		others = append(others, browsertest.ServeOwnSite(b, frame).URL)
	}
	mux := http.NewServeMux()
	mux.Handle("/frame", frame)
	page := func(hosts []string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			html := largeList(1000)
			var frames strings.Builder
			for i, h := range hosts {
				fmt.Fprintf(&frames, `<iframe title="Frame %d" width=300 height=200 src="%s/frame"></iframe>`, i, h)
			}
			w.Write([]byte(strings.Replace(html, "<ul>", frames.String()+"<ul>", 1)))
		})
	}
	srv := browsertest.Serve(b, mux)
	mux.Handle("/same-site", page([]string{srv.URL, srv.URL, srv.URL}))
	mux.Handle("/cross-site", page(others))
	for _, name := range []string{"same-site", "cross-site"} {
		b.Run(name, func(b *testing.B) {
			a := open(b, srv.URL+"/"+name)
			durations := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				text, err := Take(ctx, a, false)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				if n := strings.Count(text.Text, `button "button 299"`); n != 4 { // the page's and each frame's
					b.Fatalf("snapshot has %d buttons 299, want 4", n)
				}
				durations = append(durations, time.Since(start))
			}
			b.ReportMetric(durations[0].Seconds()*1000, "first-ms")
			b.ReportMetric(median(durations).Seconds()*1000, "p50-ms")
		})
	}
}
