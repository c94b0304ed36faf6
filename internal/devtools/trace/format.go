package trace

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/tabhive/tabhive/internal/devtools/trace/model"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// The text of a report follows chrome-devtools-mcp 1.11's: the same
// sections, labels and units (DevTools' number formats, a no-break space
// before each unit), so that agents prompted for its replies read these
// unchanged. The prose is tabhive's.

// nbsp separates a number from its unit, as DevTools' formatters do.
const nbsp = "\u00a0"

// intlFormat formats v with at most max fraction digits, rounding half
// away from zero on its shortest decimal form and grouping thousands, as
// JavaScript's Intl.NumberFormat("en-US") does.
func intlFormat(v float64, max int) string {
	neg := v < 0 || (v == 0 && math.Signbit(v))
	s := strconv.FormatFloat(math.Abs(v), 'f', -1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) > max {
		roundUp := frac[max] >= '5'
		frac = frac[:max]
		if roundUp {
			digits := []byte(intPart + frac)
			i := len(digits) - 1
			for ; i >= 0; i-- {
				if digits[i] == '9' {
					digits[i] = '0'
					continue
				}
				digits[i]++
				break
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			}
			intPart = string(digits[:len(digits)-len(frac)])
			frac = string(digits[len(digits)-len(frac):])
		}
	}
	frac = strings.TrimRight(frac, "0")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

func tooLarge(x float64) bool { return math.IsInf(x, 0) || math.IsNaN(x) || x == math.MaxFloat64 }

// millis formats milliseconds as DevTools does ("881 ms", "0.3 ms").
func millis(x float64) string {
	if tooLarge(x) {
		return "-"
	}
	if x < 1 {
		return intlFormat(x, 1) + nbsp + "ms"
	}
	return intlFormat(x, 0) + nbsp + "ms"
}

// micros formats microseconds: as μs under 100, else as milliseconds.
func micros(x float64) string {
	if tooLarge(x) {
		return "-"
	}
	if x < 100 {
		return intlFormat(x, 0) + nbsp + "μs"
	}
	return millis(x / 1000)
}

// formatBytes formats a byte count as DevTools does ("12.3 kB").
func formatBytes(x float64) string {
	if x < 1000 {
		return intlFormat(x, 0) + nbsp + "B"
	}
	kb := x / 1000
	if kb < 1000 {
		return intlFormat(kb, 1) + nbsp + "kB"
	}
	return intlFormat(kb/1000, 1) + nbsp + "MB"
}

func bounds(w model.Window) string {
	return fmt.Sprintf("{min: %sµs, max: %sµs}", jsfmt.Number(w.Min), jsfmt.Number(w.Max))
}

func eventRef(key string, ts float64) string {
	return fmt.Sprintf("(eventKey: %s, ts: %s)", key, jsfmt.Number(ts))
}

// insightText is what tabhive says about each insight.
type insightText struct {
	title, description, summary string
	questions                   []string
	links                       []string
}

var insightTexts = map[string]insightText{
	"LCPBreakdown": {
		title:       "LCP breakdown",
		description: "Splits the Largest Contentful Paint into its subparts; most of the time should go to loading the resource, not to the delays around it.",
		summary:     "Breaks the LCP time into its subparts (time to first byte and render delay for a text element; resource load delay and load duration between them for an image) to show which one delays the LCP element most.",
		questions:   []string{"How can this page reach a better LCP?", "Which part of the LCP takes longest, and why?", "What would shorten the LCP of this load the most?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/lcp-breakdown", "https://web.dev/articles/lcp", "https://web.dev/articles/optimize-lcp"},
	},
	"LCPDiscovery": {
		title:       "LCP request discovery",
		description: "The LCP image should be requested as early as possible: referenced from the HTML (or preloaded), not lazy-loaded, with fetchpriority=high.",
		summary:     "Checks how early the browser could find and request the LCP image: whether it had fetchpriority=high, whether the initial HTML referenced it (or preloaded it) rather than a script or stylesheet, and whether it was lazy-loaded. It only applies when the LCP element is an image fetched over the network; every check should pass.",
		questions:   []string{"How can the LCP image be requested earlier?", "What delays the discovery of the LCP resource?", "Why does it matter when the LCP image is found?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/lcp-discovery", "https://web.dev/articles/lcp", "https://web.dev/articles/optimize-lcp"},
	},
	"RenderBlocking": {
		title:       "Render-blocking requests",
		description: "These requests held back the page's first render; deferring or inlining them takes them off the critical path.",
		summary:     "Lists the network requests the browser had to finish before it could render the page (stylesheets and synchronous scripts in the head, for example), with their timings, so that the costliest can be deferred, inlined or made asynchronous first.",
		questions:   []string{"Which render-blocking requests cost the most, and what should change first?", "How can fewer requests block the first render?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/render-blocking", "https://web.dev/articles/lcp", "https://web.dev/articles/optimize-lcp"},
	},
	"DocumentLatency": {
		title:       "Document request latency",
		description: "The first request delays everything after it: avoid redirects, answer quickly and compress the response.",
		summary:     "Checks the main document's request: whether it was redirected, whether the server answered within 600 ms (the aim is nearer 100 ms), and whether the response was compressed.",
		questions:   []string{"How can the document itself arrive sooner?", "What slowed down the document request?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/document-latency", "https://web.dev/articles/optimize-ttfb"},
	},
	"CLSCulprits": {
		title:       "Layout shift culprits",
		description: "Layout shifts move content the user is reading; unsized images, injected content and web fonts are the usual causes.",
		summary:     "Cumulative Layout Shift (CLS) scores the largest burst of unexpected layout shifts (a session window: shifts less than 1 s apart, 5 s at most). It is a Core Web Vital: 0.1 or less is good, up to 0.25 needs improvement, more is poor. This names the worst window, its shifts, the elements they moved and their likely causes.",
		questions:   []string{"What moves content on this page, and how can it be stopped?", "How can this page reach a better CLS?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/cls-culprit", "https://web.dev/articles/cls", "https://web.dev/articles/optimize-cls"},
	},
	"NetworkDependencyTree": {
		title:       "Network dependency tree",
		description: "Chains of critical requests delay rendering; shorten them, shrink what they fetch, or defer what is not needed to render.",
		summary:     "Shows the chains of critical requests (the document, then the render-blocking or high-priority resources each one led to) and the longest of them, and the origins the page preconnected to.",
		questions:   []string{"How can the chains of critical requests be shortened?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/network-dependency-tree", "https://web.dev/learn/performance/understanding-the-critical-path", "https://developer.chrome.com/docs/lighthouse/performance/uses-rel-preconnect/"},
	},
	"Cache": {
		title:       "Use efficient cache lifetimes",
		description: "Static resources with a short cache lifetime are downloaded again on repeat visits.",
		summary:     "Lists static resources (scripts, styles, images, fonts, media) whose caching headers let them expire soon, with their lifetime and the bytes a longer one would save on a repeat visit.",
		questions:   []string{"Which resources need longer cache lifetimes, and how long?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/cache", "https://web.dev/uses-long-cache-ttl/"},
	},
	"DOMSize": {
		title:       "Optimize DOM size",
		description: "A large DOM makes style and layout work slower and uses more memory.",
		summary:     "Reports the size of the DOM (its element count, deepest nesting and widest parent) and the style recalculations and layouts that were large enough to be slow.",
		questions:   []string{"How can this page make its DOM smaller?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/dom-size", "https://developer.chrome.com/docs/lighthouse/performance/dom-size/"},
	},
	"ThirdParties": {
		title:       "3rd parties",
		description: "Code and resources from other sites take main-thread time and bandwidth from the page.",
		summary:     "Sums, per site other than the page's own, the bytes it transferred and the main-thread time its scripts took. Sites are named by their registrable domain.",
		questions:   []string{"Which other sites cost this page the most time and bytes?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/third-parties", "https://web.dev/articles/optimizing-content-efficiency-loading-third-party-javascript/"},
	},
	"ForcedReflow": {
		title:       "Forced reflow",
		description: "Script that reads layout (offsetWidth, getBoundingClientRect, ...) right after changing the DOM forces a synchronous layout.",
		summary:     "Finds layouts and style recalculations that script forced synchronously (30 ms or more in one task), the script positions that caused them, and the function whose calls forced the most.",
		questions:   []string{"Which script forces layouts, and how can it stop?", "Why do forced reflows slow a page down?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/forced-reflow", "https://developers.google.com/web/fundamentals/performance/rendering/avoid-large-complex-layouts-and-layout-thrashing#avoid-forced-synchronous-layouts"},
	},
	"DuplicatedJavaScript": {
		title:       "Duplicated JavaScript",
		description: "The same modules bundled into several scripts are downloaded and parsed more than once.",
		summary:     "Finds source modules that appear in more than one script, by the scripts' source maps (when the trace carries them), and the bytes the extra copies cost.",
		questions:   []string{"How can the duplicated modules be bundled once?", "Which duplicated modules cost the most bytes?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/duplicated-javascript"},
	},
	"INPBreakdown": {
		title:       "INP breakdown",
		description: "Splits the slowest interaction into input delay, processing and presentation delay.",
		summary:     "Interaction to Next Paint (INP) measures how quickly the page responds to input: from the user's action to the next frame that shows its result. It is a Core Web Vital: 200 ms or less is good, up to 500 ms needs improvement, more is poor. The slowest interaction is split into input delay (until its handlers start), processing (its handlers) and presentation delay (until the frame is shown).",
		questions:   []string{"What would make the slowest interaction faster?", "Why does a long INP matter to users?", "Which part of the slowest interaction takes longest?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/inp-breakdown", "https://web.dev/articles/inp", "https://web.dev/explore/how-to-optimize-inp", "https://web.dev/articles/optimize-long-tasks"},
	},
	"ImageDelivery": {
		title:       "Improve image delivery",
		description: "Images larger than they are shown, or in older formats, waste bytes and slow the load.",
		summary:     "Lists images that were downloaded at a higher resolution than they were displayed at, or that a modern format or better compression would make much smaller, with the bytes each change would save.",
		questions:   []string{"Which images are larger than they need to be, and by how much?", "How should these images be served instead?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/image-delivery", "https://developer.chrome.com/docs/lighthouse/performance/uses-optimized-images/"},
	},
	"FontDisplay": {
		title:       "Font display",
		description: "Web fonts with font-display block, fallback or auto can hide text while they load.",
		summary:     "Finds web fonts whose font-display (block, fallback or auto) keeps text invisible while they download, and how long each could have hidden it.",
		questions:   []string{"Which font-display value should these fonts use?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/font-display", "https://web.dev/articles/preload-optional-fonts", "https://developer.chrome.com/blog/font-fallbacks"},
	},
	"Viewport": {
		title:       "Optimize viewport for mobile",
		description: "Without a mobile viewport meta tag, taps can be delayed while the browser waits to see whether they are double-taps.",
		summary:     "Checks that the page declares a viewport meta tag suited to mobile screens (width=device-width), which also removes the tap delay browsers keep for double-tap zoom.",
		questions:   []string{"What viewport meta tag should this page declare?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/viewport", "https://developer.chrome.com/blog/300ms-tap-delay-gone-away/"},
	},
	"ModernHTTP": {
		title:       "Modern HTTP",
		description: "HTTP/2 and HTTP/3 carry many requests over one connection; HTTP/1.1 makes each wait for a free one.",
		summary:     "Lists requests served over HTTP/1.1 or older from an origin that served at least 6 static resources (where multiplexing pays off), leaving out localhost and other sites, whose servers the page's developers cannot change.",
		questions:   []string{"Which requests would gain from HTTP/2 or HTTP/3?", "What must the server change to serve them over a modern protocol?"},
		links:       []string{"https://developer.chrome.com/docs/performance/insights/modern-http", "https://developer.chrome.com/docs/lighthouse/best-practices/uses-http2"},
	},
}

// networkFormat describes the compact form of network requests that
// insight analyses use.
const networkFormat = "Network requests are listed one per line, after a list of their URLs (allUrls = [index: URL, ...]), with fields separated by semicolons:\n" +
	"`urlIndex;eventKey;queuedTime;requestSentTime;downloadCompleteTime;processingCompleteTime;totalDuration;downloadDuration;mainThreadProcessingDuration;statusCode;mimeType;priority;initialPriority;finalPriority;renderBlocking;protocol;fromServiceWorker;initiators;redirects:[[redirectUrlIndex|startTime|duration]];responseHeaders:[header1Value|header2Value|...]`\n\n" +
	"- `urlIndex`: the request's URL, as an index into allUrls.\n" +
	"- `eventKey`: the key of the request's trace event.\n" +
	"- Times (`queuedTime`, `requestSentTime`, `downloadCompleteTime`, `processingCompleteTime`) are measured from the start of the navigation; durations (`totalDuration` from queueing to the end of main-thread processing, `downloadDuration`, `mainThreadProcessingDuration`) are lengths.\n" +
	"- `statusCode`, `mimeType`: the response's.\n" +
	"- `priority`, `initialPriority`, `finalPriority`: the request's priority at the end, at the start, and at the end again.\n" +
	"- `renderBlocking`, `fromServiceWorker`: 't' or 'f'.\n" +
	"- `protocol`: the network protocol, such as h2 or http/1.1.\n" +
	"- `initiators`: the URL indices of the requests that led to this one, from the first.\n" +
	"- `redirects`: each redirect as [URL index|start time|duration].\n" +
	"- `responseHeaders`: the response's headers as name: value, separated by '|'; values of headers outside a fixed list are redacted.\n"

// Summary is the text performance_start_trace and performance_stop_trace
// reply with: the trace's bounds, then each insight set with its metrics
// and the insights worth looking at.
func (r *Report) Summary() string {
	f := &formatter{r: r}
	var b strings.Builder
	b.WriteString("## Summary of Performance trace findings:\n")
	fmt.Fprintf(&b, "URL: %s\n", r.URL)
	fmt.Fprintf(&b, "Trace bounds: %s\n", bounds(r.bounds))
	cpu := r.opts.CPUThrottling
	if cpu == 0 {
		cpu = 1
	}
	fmt.Fprintf(&b, "CPU throttling: %sx\n", jsfmt.Number(cpu))
	nt := r.opts.NetworkThrottling
	if nt == "" {
		nt = "none"
	}
	fmt.Fprintf(&b, "Network throttling: %s\n", nt)
	b.WriteString("\n# Available insight sets\n\n")
	b.WriteString("Each insight set below covers one part of the trace: the time of one navigation, until the next one. Its insights concern that part only. Use the insight set id and its bounds when asking about it; when no navigation is named, the first insight set is meant.\n")
	for _, s := range r.Sets {
		fmt.Fprintf(&b, "\n## insight set id: %s\n\n", s.ID)
		fmt.Fprintf(&b, "URL: %s\n", s.URL)
		fmt.Fprintf(&b, "Bounds: %s\n", bounds(s.bounds))
		f.metrics(&b, s)
		b.WriteString("Metrics (field / real users): n/a – no data for this page in CrUX\n")
		b.WriteString("Available insights:\n")
		for _, in := range s.insights {
			if in.State == statePass {
				continue
			}
			t := insightTexts[in.Name]
			fmt.Fprintf(&b, "  - insight name: %s\n", in.Name)
			fmt.Fprintf(&b, "    description: %s\n", t.description)
			fmt.Fprintf(&b, "    relevant trace bounds: %s\n", bounds(in.relevantBounds(s.bounds)))
			if sv := savingsText(in.Savings); sv != "" {
				fmt.Fprintf(&b, "    estimated metric savings: %s\n", sv)
			}
			if in.WastedBytes != 0 {
				fmt.Fprintf(&b, "    estimated wasted bytes: %s\n", formatBytes(in.WastedBytes))
			}
			for _, q := range t.questions {
				fmt.Fprintf(&b, "    example question: %s\n", q)
			}
		}
	}
	b.WriteString("\n## Details on network request formats:\n")
	b.WriteString(networkFormat)
	return b.String()
}

func (f *formatter) metrics(b *strings.Builder, s *InsightSet) {
	if s.LCP == nil && s.INP == nil && len(s.CLS.EventKey) == 0 && s.CLS.Value == 0 && s.FCP == nil {
		// DevTools always has a CLS (0 by default), so it never prints n/a
		// for a navigation; this is the time before any.
		if s.nav == nil {
			b.WriteString("Metrics (lab / observed): n/a\n")
			return
		}
	}
	b.WriteString("Metrics (lab / observed):\n")
	if l := s.LCP; l != nil {
		node := ""
		if l.NodeID != 0 {
			node = fmt.Sprintf(", nodeId: %d", l.NodeID)
			if d := f.node(l.NodeID, l.NodeName); d != "" {
				node += " (" + d + ")"
			}
		}
		fmt.Fprintf(b, "  - LCP: %d ms, event: %s%s\n", int64(jsRound(l.Value/1000)), eventRef(l.EventKey, l.TS), node)
		if len(l.Parts) > 0 {
			b.WriteString("  - LCP breakdown:\n")
			for _, p := range l.Parts {
				fmt.Fprintf(b, "    - %s: %s, bounds: %s\n", p.Name, micros(p.Duration()), bounds(model.Window{Min: p.Bounds[0], Max: p.Bounds[1]}))
			}
		}
	}
	if in := s.INP; in != nil {
		fmt.Fprintf(b, "  - INP: %d ms, event: %s\n", int64(jsRound(in.Value/1000)), eventRef(in.EventKey, in.TS))
	}
	cls := fmt.Sprintf("  - CLS: %s", jsfmt.ToFixed(s.CLS.Value, 2))
	if s.CLS.EventKey != "" {
		cls += ", event: " + eventRef(s.CLS.EventKey, s.CLS.TS)
	}
	b.WriteString(cls + "\n")
	if fcp := s.FCP; fcp != nil {
		fmt.Fprintf(b, "  - FCP: %d ms, event: %s\n", int64(jsRound(fcp.Value/1000)), eventRef(fcp.EventKey, fcp.TS))
	}
	if t := s.TTFB; t != nil {
		fmt.Fprintf(b, "  - TTFB: %s\n", micros(t.Value))
	}
	if n := len(s.LongTasks); n > 0 {
		longest := s.LongTasks[0]
		for _, t := range s.LongTasks[1:] {
			if t.Dur > longest.Dur {
				longest = t
			}
		}
		fmt.Fprintf(b, "  - Long tasks: %d over 50 ms, the longest %s, event: %s\n", n, micros(longest.Dur), eventRef(longest.EventKey, longest.TS))
	}
}

func savingsText(s []saving) string {
	var parts []string
	for _, v := range s {
		if v.Metric == "CLS" {
			parts = append(parts, v.Metric+" "+jsfmt.ToFixed(v.Value, 2))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s ms", v.Metric, jsfmt.Number(jsRound(v.Value))))
		}
	}
	return strings.Join(parts, ", ")
}

// Insight is the text performance_analyze_insight replies with for the
// insight called name in the set id. ok is false when the set or the
// insight does not exist; setFound tells which.
func (r *Report) Insight(setID, name string) (text string, setFound, ok bool) {
	s := r.Set(setID)
	if s == nil {
		return "", false, false
	}
	var in *insight
	for _, x := range s.insights {
		if x.Name == name {
			in = x
		}
	}
	if in == nil {
		return "", true, false
	}
	t := insightTexts[name]
	f := &formatter{r: r, set: s}
	detail := ""
	if in.detail != nil {
		detail = in.detail(f)
	}
	sv := savingsText(in.Savings)
	if sv == "" {
		sv = "none"
	}
	var links []string
	for _, l := range t.links {
		links = append(links, "- "+l)
	}
	return fmt.Sprintf("## Insight Title: %s\n\n## Insight Summary:\n%s\n\n## Detailed analysis:\n%s\n\n## Estimated savings: %s\n\n## External resources:\n%s",
		t.title, t.summary, detail, sv, strings.Join(links, "\n")), true, true
}

// formatter writes the parts of an insight's analysis.
type formatter struct {
	r   *Report
	set *InsightSet
}

// node describes a DOM node: what its owner found on the page, else its
// tag name from the trace.
func (f *formatter) node(id int64, name string) string {
	if d, ok := f.r.nodes[id]; ok && d != "" {
		return d
	}
	return ""
}

func (f *formatter) requestRef(r *model.Request) string {
	return fmt.Sprintf("%s %s", f.filteredURL(r), eventRef(syntheticKey(r.Index), r.TS))
}

// sameOrigin reports whether a request (and each of its redirects) stayed
// on the main frame's origin: only then are its full headers and redirects
// shown, as DevTools shows them.
func (f *formatter) sameOrigin(r *model.Request) bool {
	o := model.Origin(f.r.URL)
	if o == "null" {
		return false
	}
	for _, rd := range r.Redirects {
		if rd.URL == "" || model.Origin(rd.URL) != o {
			return false
		}
	}
	return model.Origin(r.URL) == o
}

func (f *formatter) filteredURL(r *model.Request) string {
	if len(r.Redirects) == 0 || f.sameOrigin(r) {
		return r.URL
	}
	if r.Redirects[0].URL != "" {
		return r.Redirects[0].URL
	}
	return "<redacted cross-origin redirect destination>"
}

var corsSafelisted = map[string]bool{"cache-control": true, "content-language": true, "content-length": true,
	"content-type": true, "expires": true, "last-modified": true, "pragma": true}

func (f *formatter) responseHeaders(r *model.Request) []model.Header {
	if r.Headers == nil || f.sameOrigin(r) {
		return r.Headers
	}
	var out []model.Header
	for _, h := range r.Headers {
		if corsSafelisted[strings.ToLower(strings.TrimSpace(h.Name))] {
			out = append(out, h)
		}
	}
	return out
}

// allowedHeaders are the response headers whose values are shown; others
// read <redacted>, as DevTools redacts them.
var allowedHeaders = map[string]bool{}

func init() {
	for _, h := range strings.Fields(`:authority :method :path :scheme a-im accept-ch accept-charset accept-datetime accept-encoding
accept-language accept-patch accept-ranges accept access-control-allow-credentials access-control-allow-headers
access-control-allow-methods access-control-allow-origin access-control-expose-headers access-control-max-age
access-control-request-headers access-control-request-method age allow alt-svc cache-control connection
content-disposition content-encoding content-language content-location content-range content-security-policy
content-type correlation-id date delta-base dnt expect-ct expect expires forwarded front-end-https host http2-settings
if-modified-since if-range if-unmodified-source im last-modified link location max-forwards nel origin
permissions-policy pragma preference-applied proxy-connection public-key-pins range referer refresh report-to
retry-after save-data sec-gpc server status strict-transport-security te timing-allow-origin tk trailer
transfer-encoding upgrade-insecure-requests upgrade user-agent vary via warning www-authenticate x-att-deviceid
x-content-duration x-content-security-policy x-content-type-options x-correlation-id x-forwarded-for
x-forwarded-host x-forwarded-proto x-frame-options x-http-method-override x-powered-by x-redirected-by
x-request-id x-requested-with x-ua-compatible x-wap-profile x-webkit-csp x-xss-protection`) {
		allowedHeaders[h] = true
	}
}

func headerValue(h model.Header) string {
	if allowedHeaders[strings.ToLower(strings.TrimSpace(h.Name))] {
		return h.Value
	}
	return "<redacted>"
}

// initiatorChain lists the requests that led to r, from the first.
func (f *formatter) initiatorChain(r *model.Request) []*model.Request {
	var chain []*model.Request
	seen := map[*model.Request]bool{r: true}
	for cur := f.initiator(r); cur != nil; cur = f.initiator(cur) {
		if seen[cur] {
			return nil
		}
		seen[cur] = true
		chain = append([]*model.Request{cur}, chain...)
	}
	return chain
}

func (f *formatter) initiator(r *model.Request) *model.Request { return f.r.initiators[r] }

func (f *formatter) baseTime(r *model.Request) float64 {
	if nav := f.r.navFor(r); nav != nil {
		return nav.TS
	}
	return f.r.bounds.Min
}

// networkRequests formats requests, one in detail or several compactly, as
// DevTools' trace formatter does.
func (f *formatter) networkRequests(reqs []*model.Request, verbose bool, title string) string {
	if len(reqs) == 0 {
		return ""
	}
	if verbose {
		var parts []string
		for _, r := range reqs {
			parts = append(parts, f.requestVerbose(r, title))
		}
		return strings.Join(parts, "\n")
	}
	index := map[string]int{}
	var urls []string
	idx := func(u string) int {
		if i, ok := index[u]; ok {
			return i
		}
		index[u] = len(urls)
		urls = append(urls, u)
		return len(urls) - 1
	}
	var lines []string
	for _, r := range reqs {
		ui := idx(f.filteredURL(r))
		base := f.baseTime(r)
		var hdrs []string
		for _, h := range f.responseHeaders(r) {
			hdrs = append(hdrs, h.Name+": "+headerValue(h))
		}
		var redirects []string
		if f.sameOrigin(r) {
			for _, rd := range r.Redirects {
				redirects = append(redirects, fmt.Sprintf("[%d|%s|%s]", idx(rd.URL), micros(rd.TS-base), micros(rd.Dur)))
			}
		}
		var inits []string
		for _, in := range f.initiatorChain(r) {
			inits = append(inits, strconv.Itoa(idx(f.filteredURL(in))))
		}
		rb, sw := "f", "f"
		if r.BlocksRendering() {
			rb = "t"
		}
		if r.FromServiceWorker {
			sw = "t"
		}
		lines = append(lines, strings.Join([]string{
			strconv.Itoa(ui), syntheticKey(r.Index),
			micros(r.TS - base), micros(r.SendStartTime - base), micros(r.FinishTime - base), micros(r.TS + r.Dur - base),
			micros(r.Dur), micros(r.FinishTime - r.DownloadStart), micros(r.TS + r.Dur - r.FinishTime),
			strconv.Itoa(r.StatusCode), r.MimeType, r.Priority, r.InitialPriority, r.Priority, rb, r.Protocol, sw,
			strings.Join(inits, ","), "[" + strings.Join(redirects, ",") + "]", "[" + strings.Join(hdrs, "|") + "]",
		}, ";"))
	}
	var all []string
	for i, u := range urls {
		all = append(all, fmt.Sprintf("%d: %s", i, u))
	}
	return "\nNetwork requests data:\n\n\n\nallUrls = [" + strings.Join(all, ", ") + "]\n\n" + strings.Join(lines, "\n")
}

func (f *formatter) requestVerbose(r *model.Request, title string) string {
	if title == "" {
		title = "Network request"
	}
	base := f.baseTime(r)
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %s\n", title, f.filteredURL(r))
	fmt.Fprintf(&b, "eventKey: %s\n", syntheticKey(r.Index))
	b.WriteString("Timings:\n")
	fmt.Fprintf(&b, "- Queued at: %s\n", micros(r.TS-base))
	fmt.Fprintf(&b, "- Request sent at: %s\n", micros(r.SendStartTime-base))
	fmt.Fprintf(&b, "- Download complete at: %s\n", micros(r.FinishTime-base))
	fmt.Fprintf(&b, "- Main thread processing completed at: %s\n", micros(r.TS+r.Dur-base))
	b.WriteString("Durations:\n")
	fmt.Fprintf(&b, "- Download time: %s\n", micros(r.FinishTime-r.DownloadStart))
	fmt.Fprintf(&b, "- Main thread processing time: %s\n", micros(r.TS+r.Dur-r.FinishTime))
	fmt.Fprintf(&b, "- Total duration: %s", micros(r.Dur))
	if in := f.initiator(r); in != nil {
		fmt.Fprintf(&b, "\nInitiator: %s", f.filteredURL(in))
	}
	b.WriteString("\nRedirects:")
	if f.sameOrigin(r) && len(r.Redirects) > 0 {
		for i, rd := range r.Redirects {
			fmt.Fprintf(&b, "\n#### Redirect %d: %s\n- Start time: %s\n- Duration: %s", i+1, rd.URL, micros(rd.TS-base), micros(rd.Dur))
		}
	} else {
		b.WriteString(" no redirects")
	}
	fmt.Fprintf(&b, "\nStatus code: %d\n", r.StatusCode)
	fmt.Fprintf(&b, "MIME Type: %s\n", r.MimeType)
	fmt.Fprintf(&b, "Protocol: %s\n", r.Protocol)
	if r.InitialPriority == r.Priority {
		fmt.Fprintf(&b, "Priority: %s\n", r.Priority)
	} else {
		fmt.Fprintf(&b, "Initial priority: %s\nFinal priority: %s\n", r.InitialPriority, r.Priority)
	}
	yes := func(v bool) string {
		if v {
			return "Yes"
		}
		return "No"
	}
	fmt.Fprintf(&b, "Render-blocking: %s\n", yes(r.BlocksRendering()))
	fmt.Fprintf(&b, "From a service worker: %s\n", yes(r.FromServiceWorker))
	var inits []string
	for _, in := range f.initiatorChain(r) {
		inits = append(inits, f.filteredURL(in))
	}
	chain := strings.Join(inits, ", ")
	if chain == "" {
		chain = "none"
	}
	fmt.Fprintf(&b, "Initiators (root request to the request that directly loaded this one): %s\n", chain)
	var lines string
	for _, h := range f.responseHeaders(r) {
		line := "- " + h.Name + ": " + headerValue(h) + "\n"
		if len(lines)+len(line) > 1000 {
			break
		}
		lines += line
	}
	if lines = strings.TrimSpace(lines); lines != "" {
		b.WriteString("Response headers\n" + lines)
	}
	return b.String()
}

func (f *formatter) lcpContext(c *context, lcp *LCP) string {
	if c.nav == nil {
		return ""
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("The Largest Contentful Paint (LCP) time for this navigation was %s.", micros(lcp.Value)))
	element := "The LCP element"
	if lcp.NodeName != "" {
		element = fmt.Sprintf("The LCP element (%s, nodeId: %d)", lcp.NodeName, lcp.NodeID)
		if d := f.node(lcp.NodeID, lcp.NodeName); d != "" {
			element = fmt.Sprintf("The LCP element (%s, nodeId: %d, on the page: %s)", lcp.NodeName, lcp.NodeID, d)
		}
	}
	if req := c.a.Load.LCPRequest[c.nav.ID]; req != nil {
		parts = append(parts, fmt.Sprintf("%s is an image fetched from %s.", element, f.requestRef(req)))
		parts = append(parts, f.networkRequests([]*model.Request{req}, true, "LCP resource network request"))
	} else {
		parts = append(parts, element+" is text and was not fetched from the network.")
	}
	return strings.Join(parts, "\n")
}

func (f *formatter) lcpBreakdown(c *context, lcp *LCP) string {
	if len(lcp.Parts) == 0 {
		return ""
	}
	var lines []string
	for _, p := range lcp.Parts {
		pct := p.Duration() / 1000 / (lcp.Value / 1000) * 100
		lines = append(lines, fmt.Sprintf("- %s: %s (%s%% of total LCP time)", p.Label, millis(p.Duration()/1000), jsfmt.ToFixed(pct, 1)))
	}
	return fmt.Sprintf("%s\n\nThe LCP time is the sum of these %d subparts:\n\n%s", f.lcpContext(c, lcp), len(lcp.Parts), strings.Join(lines, "\n"))
}

func passed(v bool) string {
	if v {
		return "PASSED"
	}
	return "FAILED"
}

func (f *formatter) lcpDiscovery(c *context, ch discoveryChecks) string {
	lcp := f.set.LCP
	if lcp == nil {
		return ""
	}
	hint := "fetchpriority=high was set on the request"
	if !ch.priorityHinted {
		hint = "fetchpriority=high should be set on the request"
		if ch.preload {
			hint = "fetchpriority=high should be set on the image's preload"
		}
	}
	return fmt.Sprintf("%s\n\nThe checks of this insight:\n- %s: %s\n- The LCP resource is not lazy-loaded: %s\n- The request can be found in the initial HTML (or is preloaded): %s",
		f.lcpContext(c, lcp), hint, passed(ch.priorityHinted), passed(ch.eager), passed(ch.discoverable))
}

func (f *formatter) renderBlocking(reqs []*model.Request) string {
	s := f.networkRequests(reqs, false, "")
	if s == "" {
		return "No network request blocked rendering."
	}
	return "These network requests blocked rendering, with their timings:\n\n" + s
}

func (f *formatter) documentLatency(c *context, doc *model.Request, ch latencyChecks) string {
	lcp := ""
	if f.set.LCP != nil {
		lcp = f.lcpContext(c, f.set.LCP)
	}
	return fmt.Sprintf("%s\n\n%s\n\nThe checks of this insight:\n- The request was not redirected: %s\n- The server responded quickly (%s): %s\n- The response was compressed: %s",
		lcp, f.networkRequests([]*model.Request{doc}, true, "Document network request"),
		passed(ch.noRedirects), millis(ch.serverResponse), passed(ch.fastServer), passed(ch.compressed))
}

func (f *formatter) clsCulprits(c *context, worst *model.Cluster, causes map[*model.Shift]*rootCauses) string {
	if worst == nil {
		return "The page had no layout shifts."
	}
	base := f.r.bounds.Min
	var shifts []string
	for i, s := range worst.Shifts {
		shifts = append(shifts, f.layoutShift(s, i, causes[s], base))
	}
	return fmt.Sprintf("The worst cluster of layout shifts started at %s and ended at %s, %s in all.\nIts score is %s.\n\nLayout shifts in this cluster:\n%s",
		micros(worst.TS-base), micros(worst.TS+worst.Dur-base), micros(worst.Dur), jsfmt.ToFixed(worst.Score, 4), strings.Join(shifts, "\n"))
}

func (f *formatter) layoutShift(s *model.Shift, i int, rc *rootCauses, base float64) string {
	var causes []string
	if rc != nil {
		for _, fr := range rc.iframes {
			u := fr.url
			if u == "" {
				u = "unknown"
			}
			causes = append(causes, fmt.Sprintf("- An iframe injected into the page (id: %s, url: %s)", fr.frame, u))
		}
		for _, r := range rc.fonts {
			causes = append(causes, fmt.Sprintf("- A web font loaded over the network: %s.", f.requestRef(r)))
		}
		for _, an := range rc.animations {
			name := an.DisplayName
			if name == "" {
				name = "(unnamed)"
			}
			causes = append(causes, fmt.Sprintf("- An animation that could not run on the compositor: `%s`", name))
		}
		for _, img := range rc.unsizedImages {
			what := fmt.Sprintf("id: %d", img.NodeID)
			if img.URL != "" {
				what = "url: " + f.urlRef(img.URL)
			}
			causes = append(causes, fmt.Sprintf("- An image without width and height (%s) (%s).", img.NodeName, what))
		}
	}
	rootText := "- No likely cause was found"
	if len(causes) > 0 {
		rootText = "- Likely causes:\n  " + strings.Join(causes, "\n")
	}
	var names []string
	for _, n := range s.Impacted {
		if n.DebugName != "" {
			names = append(names, n.DebugName)
		}
	}
	impacted := ""
	if len(names) > 0 {
		impacted = "\n- Impacted elements:\n  - " + strings.Join(names, "\n  - ") + "\n"
	}
	return fmt.Sprintf("### Layout shift %d:%s\n- Start time: %s\n- Score: %s\n%s", i+1, impacted, millis((s.TS-base)/1000), jsfmt.ToFixed(s.Score, 4), rootText)
}

// urlRef names a URL with its request's event, when there is one.
func (f *formatter) urlRef(u string) string {
	for _, r := range f.r.requests {
		if r.URL == u {
			return f.requestRef(r)
		}
	}
	return u
}

func (f *formatter) networkDependencyTree(c *context, roots []*chainNode, maxTime float64, fail bool) string {
	var b strings.Builder
	if fail {
		b.WriteString("The checks of the network dependency tree found problems.\n\n")
	} else {
		b.WriteString("The checks of the network dependency tree found no problems, though some optimizations may still help.\n\n")
	}
	if len(roots) > 0 {
		fmt.Fprintf(&b, "The longest critical path takes %s.\n\n", micros(maxTime))
		b.WriteString("The critical request chains:\n")
		var walk func(n *chainNode, indent string)
		walk = func(n *chainNode, indent string) {
			longest := ""
			if n.longest {
				longest = " (longest chain)"
			}
			ref := f.requestRef(n.req)
			if n.copy {
				ref = fmt.Sprintf("%s %s", f.filteredURL(n.req), eventRef("null", n.req.TS))
			}
			fmt.Fprintf(&b, "%s- %s (%s)%s\n", indent, ref, micros(n.time), longest)
			for _, ch := range n.children {
				walk(ch, indent+"  ")
			}
		}
		for _, n := range roots {
			walk(n, "")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("No rendering tasks were delayed by network requests.\n\n")
	}
	var pre []string
	if c.nav != nil {
		for _, p := range c.a.Net.Preconnect {
			pre = append(pre, "  - "+p.URL+"\n    - Source: 'DOM'")
		}
		if doc := c.a.Net.ByID[c.nav.ID]; doc != nil {
			for _, h := range doc.Headers {
				if strings.EqualFold(h.Name, "link") {
					for _, o := range linkPreconnects(h.Value) {
						pre = append(pre, "  - "+o+"\n    - Source: 'ResponseHeader'")
					}
				}
			}
		}
	}
	if len(pre) > 0 {
		b.WriteString("Preconnected origins:\n" + strings.Join(pre, "\n"))
		if len(pre) > 4 {
			b.WriteString("\n\n**Warning**: more than 4 preconnects; use them sparingly, for the most important origins only.")
		}
	} else {
		b.WriteString("No origins were preconnected.")
	}
	return b.String()
}

// linkPreconnects returns the URLs a Link header preconnects to.
func linkPreconnects(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "<") {
			continue
		}
		end := strings.IndexByte(part, '>')
		if end < 0 {
			continue
		}
		u := strings.TrimSpace(part[1:end])
		for _, param := range strings.Split(part[end+1:], ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(param), "=")
			if ok && strings.ToLower(strings.TrimSpace(k)) == "rel" && strings.Trim(strings.TrimSpace(val), `"`) == "preconnect" && u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

func (f *formatter) cache(entries []cacheEntry) string {
	if len(entries) == 0 {
		return "No static resource needs a longer cache lifetime."
	}
	var b strings.Builder
	b.WriteString("These resources have short cache lifetimes:\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "\n- %s\n  - Cache Time to Live (TTL): %s seconds\n  - Wasted bytes: %s", f.requestRef(e.req), jsfmt.Number(e.ttl), formatBytes(e.wasted))
	}
	b.WriteString("\n\nA long cache lifetime (and a new URL for each new version) lets repeat visits skip these downloads.")
	return b.String()
}

func (f *formatter) domSize(state string, stats *model.DOMStats, layouts, styles []*model.LayoutEvent) string {
	if state == statePass {
		return "No DOM size issue was found."
	}
	var b strings.Builder
	b.WriteString("Large DOMs make style and layout slower.\n")
	if stats != nil {
		b.WriteString("\nStatistics:\n\n")
		fmt.Fprintf(&b, "Total elements: %s.\n", jsfmt.Number(stats.TotalElements))
		if d := stats.MaxDepth; d != nil {
			fmt.Fprintf(&b, "DOM depth: %s nodes, starting with element '%s' (node id: %d).\n", jsfmt.Number(d.Depth), d.NodeName, d.NodeID)
		}
		if ch := stats.MaxChildren; ch != nil {
			fmt.Fprintf(&b, "Most children: %s, for parent '%s' (node id: %d).\n", jsfmt.Number(ch.NumChildren), ch.NodeName, ch.NodeID)
		}
	}
	if len(layouts)+len(styles) > 0 {
		b.WriteString("\nLarge layout updates/style calculations:\n")
	}
	for _, l := range layouts {
		fmt.Fprintf(&b, "\n  - Layout update: Duration: %s, with %s of %s nodes needing layout.", micros(l.Dur), jsfmt.Number(l.DirtyObjects), jsfmt.Number(l.TotalObjects))
	}
	for _, s := range styles {
		fmt.Fprintf(&b, "\n  - Style recalculation: Duration: %s, with %s elements affected.", micros(s.Dur), jsfmt.Number(s.ElementCount))
	}
	return b.String()
}

func (f *formatter) thirdParties(summaries []*entitySummary, first *model.Entity) string {
	var third []*entitySummary
	for _, s := range summaries {
		if s.entity != first {
			third = append(third, s)
		}
	}
	if len(third) == 0 {
		return "No resources or scripts from other sites were found on this page."
	}
	var b strings.Builder
	bySize := append([]*entitySummary(nil), third...)
	model.SortStable(bySize, func(a, b *entitySummary) bool { return a.transfer > b.transfer })
	b.WriteString("Bytes transferred from other sites, largest first:\n\n")
	for _, s := range bySize {
		if s.transfer > 0 {
			fmt.Fprintf(&b, "- %s: %s\n", s.entity.Name, formatBytes(s.transfer))
		}
	}
	b.WriteString("\n")
	byTime := append([]*entitySummary(nil), third...)
	model.SortStable(byTime, func(a, b *entitySummary) bool { return a.mainTime > b.mainTime })
	b.WriteString("Main-thread time of other sites' scripts, longest first:\n\n")
	for _, s := range byTime {
		if s.mainTime > 0 {
			fmt.Fprintf(&b, "- %s: %s\n", s.entity.Name, millis(s.mainTime))
		}
	}
	b.WriteString("\nLoad what other sites provide after the page's own content, or not at all when it is not needed.")
	return b.String()
}

func callFrameText(fr *model.CallFrame) string {
	if fr == nil {
		return "(unattributed)"
	}
	name := fr.FunctionName
	if name == "" {
		name = "(anonymous)"
	}
	if fr.URL == "" {
		return name + " @ unknown location"
	}
	return fmt.Sprintf("%s @ %s:%s:%s", name, fr.URL, jsfmt.Number(fr.LineNumber), jsfmt.Number(fr.ColumnNumber))
}

func (f *formatter) forcedReflow(hasTop bool, top *model.CallFrame, topTotal float64, aggregated []*reflowData) string {
	var b strings.Builder
	b.WriteString("A forced reflow happens when script reads layout (offsetWidth, getBoundingClientRect, ...) after changing the DOM, so the browser must lay out at once.\n\n")
	if !hasTop && len(aggregated) == 0 {
		b.WriteString("No forced reflow was found.")
		return b.String()
	}
	b.WriteString("Forced reflows were found.\n\n")
	if hasTop {
		b.WriteString("The function whose calls forced the most:\n\n - " + callFrameText(top))
		fmt.Fprintf(&b, "\n\nTotal reflow time: %s\n", micros(topTotal))
	} else {
		b.WriteString("No top-level function could be named.\n")
	}
	if len(aggregated) > 0 {
		b.WriteString("\nWhere script forced them (with their total time):\n")
		for _, d := range aggregated {
			fmt.Fprintf(&b, "\n - %s in %s", micros(d.total), callFrameText(d.frame))
		}
	}
	return b.String()
}

func (f *formatter) duplicatedJavaScript(wasted float64, grouped []*duplication) string {
	if len(grouped) == 0 {
		return "No JavaScript module was found in more than one script."
	}
	var lines []string
	for _, d := range grouped {
		lines = append(lines, fmt.Sprintf("- Source: %s - Duplicated bytes: %s bytes", d.source, jsfmt.Number(d.bytes)))
	}
	return fmt.Sprintf("Total wasted bytes: %s bytes.\n\nDuplication grouped by Node modules: %s", jsfmt.Number(wasted), strings.Join(lines, "\n"))
}

func (f *formatter) inpBreakdown(it *model.Interaction) string {
	if it == nil {
		return ""
	}
	return fmt.Sprintf("The longest interaction on the page was a `%s` that took `%s` in all. Its three subparts:\n\n1. Input delay: %s\n2. Processing duration: %s\n3. Presentation delay: %s.",
		it.Type, micros(it.Dur), micros(it.InputDelay), micros(it.Processing), micros(it.Presentation))
}

func (f *formatter) imageDelivery(wasted float64, images []*optimizableImage) string {
	if len(images) == 0 {
		return "No image on this page needs optimizing."
	}
	var parts []string
	for _, img := range images {
		var opts []string
		for _, o := range img.optimizations {
			var msg string
			switch o.kind {
			case "ADJUST_COMPRESSION":
				msg = "Increasing the image's compression could shrink it"
			case "MODERN_FORMAT_OR_COMPRESSION":
				msg = "A modern format (WebP, AVIF) or more compression could shrink it"
			case "VIDEO_FORMAT":
				msg = "A video instead of an animated GIF could shrink it"
			case "RESPONSIVE_SIZE":
				msg = fmt.Sprintf("The file (%sx%s) is larger than it is shown (%sx%s); responsive images could shrink it",
					jsfmt.Number(o.fileW), jsfmt.Number(o.fileH), jsfmt.Number(o.displayW), jsfmt.Number(o.displa))
			}
			opts = append(opts, fmt.Sprintf("%s (Est %s)", msg, formatBytes(o.savings)))
		}
		parts = append(parts, fmt.Sprintf("### %s\n- Potential savings: %s\n- Optimizations:\n%s", f.requestRef(img.req), formatBytes(img.savings), strings.Join(opts, "\n")))
	}
	return fmt.Sprintf("Total potential savings: %s\n\nThese images could be optimized:\n\n%s", formatBytes(wasted), strings.Join(parts, "\n\n"))
}

func (f *formatter) fontDisplay(fonts []fontIssue) string {
	if len(fonts) == 0 {
		return "No font-display issue was found."
	}
	var b strings.Builder
	b.WriteString("These web fonts can hide text while they load:\n")
	for _, ft := range fonts {
		name := ft.name
		if name == "" {
			if u, err := url.Parse(f.filteredURL(ft.req)); err == nil {
				name = u.Path[strings.LastIndexByte(u.Path, '/')+1:]
			}
			if name == "" {
				name = "(not available)"
			}
		}
		fmt.Fprintf(&b, "\n - Font name: %s, URL: %s, Property 'font-display' set to: '%s', Wasted time: %s.", name, f.requestRef(ft.req), ft.display, millis(ft.wasted))
	}
	b.WriteString("\n\nWith font-display: swap (or optional), text shows at once in a fallback font.")
	return b.String()
}

func (f *formatter) viewport(optimized *bool, vp *model.MetaViewport) string {
	var b strings.Builder
	if optimized != nil && *optimized {
		b.WriteString("The webpage is already optimized for mobile viewing.\n")
	} else {
		b.WriteString("The webpage is not optimized for mobile viewing.\n")
	}
	if vp != nil {
		fmt.Fprintf(&b, "\nThe viewport meta tag was found: `%s`.", vp.Content)
	} else {
		b.WriteString("\nThe viewport meta tag is missing.\n\nAdd <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"> to the head.")
	}
	return b.String()
}

func (f *formatter) modernHTTP(reqs []*model.Request) string {
	s := f.networkRequests(reqs, len(reqs) == 1, "")
	if s == "" {
		return "No request was served over an old HTTP protocol."
	}
	return "These network requests were served over an old HTTP protocol:\n" + s
}
