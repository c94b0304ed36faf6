package model

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/tabhive/tabhive/internal/jsfmt"
)

// maxScriptText bounds the script sources kept for the duplication check:
// Chrome puts every script's text in the trace, and only scripts with a
// source map need theirs.
const maxScriptText = 64 << 20

// Script is a script the trace saw compiled.
type Script struct {
	key, scriptID string
	Frame         string
	TS            float64
	URL           string
	SourceURL     string
	SourceMapURL  string
	mapElided     bool
	Content       *strings.Builder
	noMap         bool // known to have no source map: its text is not kept
	Request       *Request
	SourceMap     *sourceMap
}

// Scripts gathers scripts and their sources, as DevTools' scripts handler
// does.
type Scripts struct {
	byKey          map[string]*Script
	Order          []*Script
	frameByIsolate map[string]string
	textKept       int
}

func newScripts() *Scripts {
	return &Scripts{byKey: map[string]*Script{}, frameByIsolate: map[string]string{}}
}

// v8Script is how V8's events name a script: its isolate, and its id there.
type v8Script struct {
	Isolate  any `json:"isolate"`
	ScriptID any `json:"scriptId"`
}

func (s *Scripts) get(id v8Script, ts float64) *Script {
	key := JSString(id.Isolate) + "." + JSString(id.ScriptID)
	sc := s.byKey[key]
	if sc == nil {
		sc = &Script{key: key, scriptID: JSString(id.ScriptID), TS: ts}
		s.byKey[key] = sc
		s.Order = append(s.Order, sc)
	}
	return sc
}

func (s *Scripts) handle(ev *event) {
	switch {
	case ev.Cat == "disabled-by-default-devtools.target-rundown":
		d, ok := eventData[*struct {
			v8Script
			Frame string `json:"frame"`
		}](ev)
		if ok && d != nil {
			sc := s.get(d.v8Script, ev.TS)
			sc.Frame, sc.TS = d.Frame, ev.TS
		}
	case ev.Cat == "disabled-by-default-devtools.v8-source-rundown" && ev.Name == "ScriptCatchup":
		d, ok := eventData[struct {
			v8Script
			URL                string `json:"url"`
			SourceURL          string `json:"sourceUrl"`
			SourceMapURL       string `json:"sourceMapUrl"`
			SourceMapURLElided bool   `json:"sourceMapUrlElided"`
		}](ev)
		if !ok {
			return
		}
		sc := s.get(d.v8Script, ev.TS)
		if sc.Frame == "" {
			sc.Frame = s.frameByIsolate[JSString(d.Isolate)]
		}
		sc.URL, sc.TS = d.URL, ev.TS
		if d.SourceURL != "" {
			sc.SourceURL = d.SourceURL
		}
		switch {
		case d.SourceMapURLElided:
			sc.mapElided = true
		case d.SourceMapURL != "":
			sc.SourceMapURL = d.SourceMapURL
		}
		if !sc.mapElided && sc.SourceMapURL == "" {
			sc.noMap = true
			s.dropText(sc)
		}
	case ev.Cat == "disabled-by-default-devtools.v8-source-rundown-sources" && (ev.Name == "ScriptCatchup" || ev.Name == "LargeScriptCatchup"):
		d, ok := eventData[struct {
			v8Script
			SourceText string `json:"sourceText"`
		}](ev)
		if !ok {
			return
		}
		sc := s.get(d.v8Script, ev.TS)
		if ev.Name == "ScriptCatchup" {
			s.dropText(sc)
		}
		if sc.noMap || s.textKept+len(d.SourceText) > maxScriptText {
			return
		}
		if sc.Content == nil {
			sc.Content = &strings.Builder{}
		}
		sc.Content.WriteString(d.SourceText)
		s.textKept += len(d.SourceText)
	case ev.Name == "FunctionCall" && ev.Ph == "X":
		if !containsAny(ev.Args, `"isolate"`) {
			return
		}
		var a struct {
			Data *struct {
				Isolate any    `json:"isolate"`
				Frame   string `json:"frame"`
			} `json:"data"`
		}
		if !ev.unmarshalArgs(&a) || a.Data == nil || a.Data.Isolate == nil || a.Data.Frame == "" {
			return
		}
		iso := JSString(a.Data.Isolate)
		if s.frameByIsolate[iso] != a.Data.Frame {
			s.frameByIsolate[iso] = a.Data.Frame
			for _, sc := range s.Order {
				if sc.Frame == "" && strings.HasPrefix(sc.key, iso+".") {
					sc.Frame = a.Data.Frame
				}
			}
		}
	}
}

func (s *Scripts) dropText(sc *Script) {
	if sc.Content != nil {
		s.textKept -= sc.Content.Len()
		sc.Content = nil
	}
}

// metadataSourceMap is a source map DevTools saved in a trace's metadata.
type metadataSourceMap struct {
	URL          string          `json:"url"`
	SourceMapURL string          `json:"sourceMapUrl"`
	SourceMap    json.RawMessage `json:"sourceMap"`
}

func (s *Scripts) finalize(m *Meta, n *Network, saved []metadataSourceMap) {
	docs := map[string]bool{}
	for _, frames := range m.framesByPID {
		for _, f := range frames {
			docs[f.URL] = true
		}
	}
	for _, sc := range s.Order {
		if sc.URL != "" {
			for _, r := range n.ByTime {
				if r.URL == sc.URL {
					sc.Request = r
					break
				}
			}
		}
		if sc.Frame == "" || sc.URL == "" || (sc.SourceMapURL == "" && !sc.mapElided) {
			continue
		}
		frameURL := ""
		for _, frames := range m.framesByPID {
			if f, ok := frames[sc.Frame]; ok {
				frameURL = f.URL
				break
			}
		}
		if frameURL == "" {
			continue
		}
		sourceURL := sc.URL
		if sc.SourceURL != "" {
			if u := completeURL(frameURL, sc.SourceURL); u != "" {
				sourceURL = u
			} else {
				sourceURL = sc.SourceURL
			}
		}
		var raw []byte
		mapURL := ""
		if sc.SourceMapURL != "" {
			mapURL = completeURL(sourceURL, sc.SourceMapURL)
			if mapURL == "" {
				continue
			}
		}
		switch {
		case strings.HasPrefix(mapURL, "data:"):
			raw = decodeDataURL(mapURL)
		case sc.mapElided:
			for _, sm := range saved {
				if sm.URL == sc.URL {
					raw = sm.SourceMap
					break
				}
			}
		default:
			for _, sm := range saved {
				if sm.SourceMapURL == mapURL {
					raw = sm.SourceMap
					break
				}
			}
		}
		if raw == nil {
			continue
		}
		base := mapURL
		if base == "" || strings.HasPrefix(base, "data:") {
			base = sc.URL
		}
		sc.SourceMap = parseSourceMap(raw, base)
	}
}

// completeURL resolves u against base, as DevTools does (data:, blob: and
// the like are kept as they are); "" if it cannot.
func completeURL(base, u string) string {
	for _, p := range []string{"data:", "blob:", "javascript:", "mailto:"} {
		if strings.HasPrefix(u, p) {
			return u
		}
	}
	b, err := url.Parse(base)
	if err != nil {
		return ""
	}
	r, err := b.Parse(u)
	if err != nil {
		return ""
	}
	return r.String()
}

// decodeDataURL returns the body of a data: URL, or nil.
func decodeDataURL(u string) []byte {
	head, body, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok {
		return nil
	}
	if strings.HasSuffix(head, ";base64") {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(body, "="))
			if err != nil {
				return nil
			}
		}
		return b
	}
	s, err := url.PathUnescape(body)
	if err != nil {
		return nil
	}
	return []byte(s)
}

// mapping is one segment of a source map: a generated position and, when
// it maps to a source, that source's URL.
type mapping struct {
	line, col int
	source    string // "" for a segment without a source
}

type sourceMap struct {
	Sources  []string // resolved source URLs, unique, in order
	mappings []mapping
}

// parseSourceMap decodes a version 3 source map; sections (index maps) are
// flattened. base resolves the sources.
func parseSourceMap(raw []byte, base string) *sourceMap {
	var m struct {
		Sources    []string `json:"sources"`
		SourceRoot string   `json:"sourceRoot"`
		Mappings   string   `json:"mappings"`
		Sections   []struct {
			Offset struct {
				Line   int `json:"line"`
				Column int `json:"column"`
			} `json:"offset"`
			Map json.RawMessage `json:"map"`
		} `json:"sections"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	sm := &sourceMap{}
	seen := map[string]bool{}
	if len(m.Sections) > 0 {
		for _, sec := range m.Sections {
			sub := parseSourceMap(sec.Map, base)
			if sub == nil {
				continue
			}
			for _, s := range sub.Sources {
				if !seen[s] {
					seen[s] = true
					sm.Sources = append(sm.Sources, s)
				}
			}
			for _, mp := range sub.mappings {
				if mp.line == 0 {
					mp.col += sec.Offset.Column
				}
				mp.line += sec.Offset.Line
				sm.mappings = append(sm.mappings, mp)
			}
		}
		return sm
	}
	resolved := make([]string, len(m.Sources))
	for i, s := range m.Sources {
		u := completeURL(base, m.SourceRoot+s)
		if u == "" {
			u = m.SourceRoot + s
		}
		resolved[i] = u
		if !seen[u] {
			seen[u] = true
			sm.Sources = append(sm.Sources, u)
		}
	}
	line, col, src := 0, 0, 0
	for _, lineStr := range strings.Split(m.Mappings, ";") {
		col = 0
		for _, seg := range strings.Split(lineStr, ",") {
			if seg == "" {
				continue
			}
			vals := decodeVLQ(seg)
			if len(vals) == 0 {
				continue
			}
			col += vals[0]
			mp := mapping{line: line, col: col}
			if len(vals) >= 4 {
				src += vals[1]
				if src >= 0 && src < len(resolved) {
					mp.source = resolved[src]
				}
			}
			sm.mappings = append(sm.mappings, mp)
		}
		line++
	}
	SortStable(sm.mappings, func(a, b mapping) bool {
		return a.line < b.line || (a.line == b.line && a.col < b.col)
	})
	return sm
}

const vlqChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

func decodeVLQ(s string) []int {
	var out []int
	shift, value := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(vlqChars, s[i])
		if d < 0 {
			return out
		}
		value += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		v := value >> 1
		if value&1 != 0 {
			v = -v
		}
		out = append(out, v)
		shift, value = 0, 0
	}
	return out
}

// GeneratedSizes attributes the script's text to its sources: the bytes
// (UTF-16 code units, as JavaScript counts them) between each mapping and
// the next on its line. ok is false when a mapping falls outside the text.
func (sc *Script) GeneratedSizes() (files map[string]int, ok bool) {
	if sc.SourceMap == nil {
		return nil, false
	}
	content := ""
	if sc.Content != nil {
		content = sc.Content.String()
	}
	lines := strings.Split(content, "\n")
	lengths := make([]int, len(lines))
	for i, l := range lines {
		lengths[i] = jsfmt.Length(l)
	}
	files = map[string]int{}
	ms := sc.SourceMap.mappings
	for i, mp := range ms {
		if mp.source == "" {
			continue
		}
		if mp.line >= len(lengths) {
			return nil, false
		}
		lineLen := lengths[mp.line]
		if mp.col > lineLen {
			return nil, false
		}
		var size int
		if i+1 < len(ms) && ms[i+1].line == mp.line {
			end := ms[i+1].col
			if end > lineLen {
				return nil, false
			}
			size = end - mp.col
		} else {
			size = lineLen - mp.col + 1
		}
		files[mp.source] += size
	}
	return files, true
}
