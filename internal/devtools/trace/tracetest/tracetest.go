// Package tracetest serves the fixture site that performance traces are
// recorded on: pages that each isolate one cause of a slow page (a late
// image, a render-blocking stylesheet, a layout shift, a long task, a slow
// interaction, a redirect chain, a third party), and the offline documents
// of the machine. [SavedFile] reads back what the tests check of a trace
// file tabhive saved. Like net/http/httptest it is for tests and dev tooling
// only.
//
// Paths:
//
//	/p/NAME.html             a fixture page (site/p); THIRD_PARTY in it becomes
//	                         the other site's origin (see [Handler])
//	/js/..., /css/...        scripts and stylesheets (site/js, site/css)
//	/img/WxH.jpg?c=N         a generated JPEG of W×H pixels, noisy enough not
//	                         to compress away; c varies the picture
//	/font/NAME.ttf           a DejaVu font of the machine (404 when absent)
//	/slow/MS/REST            REST, answered MS milliseconds late
//	/redirect/N/REST         a chain of N redirects (302) ending at REST
//	/doc/NAME/...            the document tree named NAME in [Config.Docs]
//
// Static files are cacheable for a year unless their query has "nocache"
// (then they have no caching headers at all, which leaves their lifetime
// to the browser's heuristics); HTML, scripts and stylesheets are gzipped
// when the client accepts it, unless the query has "raw".
//
//	/js/bundle-NAME.js       a script bundling the same library as every
//	                         other bundle, with an inline source map that
//	                         says so
package tracetest

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed site
var site embed.FS

// Config configures a [Handler]. The zero value serves the fixture pages
// without documents.
type Config struct {
	// Docs maps a name to a directory served under /doc/NAME/.
	Docs map[string]string
	// FontDir holds the fonts served under /font/. If empty,
	// /usr/share/fonts/truetype/dejavu.
	FontDir string
}

// Handler serves the fixture site.
type Handler struct {
	cfg    Config
	mu     sync.Mutex        // guards images
	images map[string][]byte // generated JPEGs by path and query
}

// NewHandler returns a handler for the fixture site.
func NewHandler(cfg Config) *Handler {
	if cfg.FontDir == "" {
		cfg.FontDir = "/usr/share/fonts/truetype/dejavu"
	}
	return &Handler{cfg: cfg, images: map[string][]byte{}}
}

// Pages lists the fixture pages, as paths the handler serves (/p/NAME.html).
func Pages() []string {
	entries, _ := fs.ReadDir(site, "site/p") // embedded: cannot fail
	var out []string
	for _, e := range entries {
		out = append(out, "/p/"+e.Name())
	}
	return out
}

// ThirdPartyHost is the host name a fixture page's third-party resources
// use when the page itself is served under a name ending in .test (a
// browser started with host resolver rules mapping *.test to the loopback
// address). Otherwise they use localhost, another site than 127.0.0.1.
const ThirdPartyHost = "cdn.elsewhere.test"

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/slow/"):
		rest, ms, ok := number(strings.TrimPrefix(p, "/slow/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
		h.serve(w, r, rest)
	case strings.HasPrefix(p, "/redirect/"):
		rest, n, ok := number(strings.TrimPrefix(p, "/redirect/"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		next := rest
		if n > 1 {
			next = fmt.Sprintf("/redirect/%d%s", n-1, rest)
		}
		if r.URL.RawQuery != "" {
			next += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, next, http.StatusFound)
	default:
		h.serve(w, r, p)
	}
}

// number splits "MS/REST" into "/REST" and MS.
func number(s string) (rest string, n int, ok bool) {
	i := strings.IndexByte(s, '/')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n < 0 || n > 60_000 {
		return "", 0, false
	}
	return s[i:], n, true
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, p string) {
	cacheable := !r.URL.Query().Has("nocache")
	switch {
	case strings.HasPrefix(p, "/img/"):
		data, err := h.image(strings.TrimPrefix(p, "/img/"), r.URL.Query().Get("c"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		send(w, r, "image/jpeg", data, cacheable, false)
	case strings.HasPrefix(p, "/font/"):
		name := path.Base(p)
		if !strings.HasSuffix(name, ".ttf") {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(filepath.Join(h.cfg.FontDir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		send(w, r, "font/ttf", data, cacheable, false)
	case strings.HasPrefix(p, "/doc/"):
		rest := strings.TrimPrefix(p, "/doc/")
		name, sub, _ := strings.Cut(rest, "/")
		dir, ok := h.cfg.Docs[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.serveDoc(w, r, dir, "/"+sub)
	case strings.HasPrefix(p, "/js/bundle-"):
		name := strings.TrimSuffix(strings.TrimPrefix(p, "/js/bundle-"), ".js")
		send(w, r, "text/javascript", bundle(name), cacheable, !r.URL.Query().Has("raw"))
	case strings.HasPrefix(p, "/p/"), strings.HasPrefix(p, "/js/"), strings.HasPrefix(p, "/css/"):
		data, err := site.ReadFile("site" + path.Clean(p))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ctype := mime.TypeByExtension(path.Ext(p))
		if strings.HasPrefix(p, "/p/") {
			data = bytes.ReplaceAll(data, []byte("THIRD_PARTY"), []byte(thirdParty(r)))
			cacheable = false
		}
		send(w, r, ctype, data, cacheable, !r.URL.Query().Has("raw"))
	default:
		http.NotFound(w, r)
	}
}

// serveDoc serves a file of a document tree, as it is (no compression, no
// caching headers), as a plain file server would.
func (h *Handler) serveDoc(w http.ResponseWriter, r *http.Request, dir, p string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer root.Close()
	http.FileServerFS(root.FS()).ServeHTTP(w, withPath(r, p))
}

func withPath(r *http.Request, p string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path = p
	r2.URL.RawPath = ""
	return r2
}

// thirdParty is the origin of the other site for a page requested with r.
func thirdParty(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	other := "localhost"
	if strings.HasSuffix(host, ".test") {
		other = ThirdPartyHost
	}
	if port != "" {
		other += ":" + port
	}
	return "http://" + other
}

// send writes data with its type, caching headers and, for text when the
// client accepts it, gzip.
func send(w http.ResponseWriter, r *http.Request, ctype string, data []byte, cacheable, compressible bool) {
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	switch {
	case strings.HasPrefix(ctype, "text/html"):
		hd.Set("Cache-Control", "no-cache")
	case cacheable:
		hd.Set("Cache-Control", "max-age=31536000")
	}
	if compressible && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data) // a bytes.Buffer does not fail
		zw.Close()
		data = buf.Bytes()
		hd.Set("Content-Encoding", "gzip")
		hd.Add("Vary", "Accept-Encoding")
	}
	hd.Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

// image returns the JPEG named "WxH.jpg" with variant c, generating it on
// first use.
func (h *Handler) image(name, c string) ([]byte, error) {
	key := name + "?" + c
	h.mu.Lock()
	defer h.mu.Unlock()
	if b, ok := h.images[key]; ok {
		return b, nil
	}
	var wd, ht int
	if _, err := fmt.Sscanf(name, "%dx%d.jpg", &wd, &ht); err != nil || wd <= 0 || ht <= 0 || wd > 4000 || ht > 4000 {
		return nil, fmt.Errorf("bad image name %q", name)
	}
	seed, _ := strconv.Atoi(c)
	img := image.NewRGBA(image.Rect(0, 0, wd, ht))
	// A gradient with deterministic noise: a picture JPEG cannot shrink to
	// nothing, so that image insights see realistic byte counts.
	x := uint32(seed*7919 + 1)
	for py := 0; py < ht; py++ {
		for px := 0; px < wd; px++ {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			n := uint8(x & 0x3f)
			img.Set(px, py, color.RGBA{
				R: uint8(px*255/wd) ^ n,
				G: uint8(py*255/ht) + n,
				B: uint8((seed*40)%256) ^ n,
				A: 255,
			})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	h.images[key] = buf.Bytes()
	return buf.Bytes(), nil
}

// A SavedFile is what the tests check of a trace file tabhive saved, as
// DevTools and Perfetto load it: its events' names and navigations, and
// Chrome's metadata.
type SavedFile struct {
	TraceEvents []struct {
		Name string `json:"name"`
		Args struct {
			Data struct {
				DocumentLoaderURL string `json:"documentLoaderURL"`
			} `json:"data"`
		} `json:"args"`
	} `json:"traceEvents"`
	Metadata map[string]any `json:"metadata"`
}

// Navigates reports whether f holds the navigationStart of a document
// loaded from url.
func (f *SavedFile) Navigates(url string) bool {
	for _, e := range f.TraceEvents {
		if e.Name == "navigationStart" && e.Args.Data.DocumentLoaderURL == url {
			return true
		}
	}
	return false
}
