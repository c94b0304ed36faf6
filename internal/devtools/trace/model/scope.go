package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Chrome records a trace of the whole browser, whichever page asked for
// it: every tab's renderer, with its URLs, timings and script sources, and
// the browser process's work for every tab. A server that hands one
// agent's trace to that agent must first take out what belongs to the
// others' pages. A Scope is what of a trace belongs to the page that
// recorded it, as the trace itself says: the frames Chrome listed when
// tracing started on that page (TracingStartedInBrowser), those that
// committed in it later (FrameCommittedInBrowser, which Chrome emits for
// the traced page only), and the renderer processes those frames ran in.
type Scope struct {
	pids   map[int64]bool  // renderer processes of the page's frames
	frames map[string]bool // the page's frames
	shared map[int64]bool  // the browser and GPU processes
	pseudo map[string]bool // process pseudo-ids of the page's frames, until ready
	// requests are the ids of the requests the page's frames sent
	// (ResourceSendRequest), which the browser process's network events
	// name without a frame.
	requests map[string]bool
	browser  int64
}

// PageScope reads a trace and returns the part of it that belongs to the
// page it was recorded on.
func PageScope(r io.Reader) (*Scope, error) {
	s := &Scope{pids: map[int64]bool{}, frames: map[string]bool{}, shared: map[int64]bool{}, pseudo: map[string]bool{}, requests: map[string]bool{}}
	type frame struct {
		Frame           string `json:"frame"`
		ProcessID       int64  `json:"processId"`
		ProcessPseudoID string `json:"processPseudoId"`
	}
	add := func(f frame) {
		if f.Frame != "" {
			s.frames[f.Frame] = true
		}
		if f.ProcessID != 0 {
			s.pids[f.ProcessID] = true
		}
		if f.ProcessPseudoID != "" {
			s.pseudo[f.ProcessPseudoID] = true
		}
	}
	var ready []struct {
		pseudo string
		pid    int64
	}
	sent := map[string]string{} // request id: the frame that sent it
	_, err := scanFile(r, func(ev *event) error {
		switch ev.Name {
		case "TracingStartedInBrowser":
			var a struct {
				Data struct {
					Frames []frame `json:"frames"`
				} `json:"data"`
			}
			if ev.unmarshalArgs(&a) {
				s.browser = ev.PID
				s.shared[ev.PID] = true
				for _, f := range a.Data.Frames {
					add(f)
				}
			}
		case "FrameCommittedInBrowser":
			var a struct {
				Data frame `json:"data"`
			}
			if ev.unmarshalArgs(&a) {
				add(a.Data)
			}
		case "ProcessReadyInBrowser":
			var a struct {
				Data struct {
					ProcessPseudoID string `json:"processPseudoId"`
					ProcessID       int64  `json:"processId"`
				} `json:"data"`
			}
			if ev.unmarshalArgs(&a) {
				ready = append(ready, struct {
					pseudo string
					pid    int64
				}{a.Data.ProcessPseudoID, a.Data.ProcessID})
			}
		case "ResourceSendRequest":
			var a struct {
				Data struct {
					RequestID string `json:"requestId"`
					Frame     string `json:"frame"`
				} `json:"data"`
			}
			if ev.unmarshalArgs(&a) && a.Data.RequestID != "" && a.Data.Frame != "" {
				sent[a.Data.RequestID] = a.Data.Frame
			}
		case "process_name":
			var a struct {
				Name string `json:"name"`
			}
			if ev.Ph == "M" && ev.unmarshalArgs(&a) && (a.Name == "Browser" || a.Name == "GPU Process") {
				s.shared[ev.PID] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range ready {
		if s.pseudo[r.pseudo] {
			s.pids[r.pid] = true
		}
	}
	for id, frame := range sent {
		if s.frames[frame] {
			s.requests[id] = true
		}
	}
	if s.browser == 0 {
		return nil, fmt.Errorf("%w: it does not say which page it was recorded on (no TracingStartedInBrowser)", ErrNotTrace)
	}
	return s, nil
}

// keeps reports whether ev belongs to the scope's page. Everything of the
// page's renderer processes does (a renderer never holds another browser
// context's pages). Of the browser and GPU processes, what an allow-list
// says: an event that carries nothing (metadata, empty args), one that
// names one of the page's frames, requests or processes, and the
// compositor's events named in compositorEvents, whose args are layer and
// frame numbers. Any other event of those processes may be another
// page's, whatever it looks like (a navigation there names its URL, a
// data: or about: one too, its browser context and its process, under
// keys of Chrome's choosing), and is left out. Nothing of any other
// process is kept.
func (s *Scope) keeps(ev *event) bool {
	if s.pids[ev.PID] {
		return true
	}
	if !s.shared[ev.PID] {
		return false
	}
	args := bytes.TrimSpace(ev.Args)
	if ev.Ph == "M" || len(args) == 0 || bytes.Equal(args, []byte("{}")) || ev.Name == "TracingStartedInBrowser" {
		// TracingStartedInBrowser lists the traced page's frames alone.
		return true
	}
	if compositorEvents[ev.Name] {
		return true
	}
	var a struct {
		Frame string `json:"frame"`
		Data  struct {
			Frame     string `json:"frame"`
			RequestID string `json:"requestId"`
			ProcessID int64  `json:"processId"`
		} `json:"data"`
	}
	if json.Unmarshal(args, &a) != nil {
		return false
	}
	switch {
	case a.Frame != "" || a.Data.Frame != "":
		return s.frames[a.Frame] || s.frames[a.Data.Frame]
	case a.Data.RequestID != "":
		return s.requests[a.Data.RequestID]
	case ev.Name == "ProcessReadyInBrowser":
		return s.pids[a.Data.ProcessID]
	}
	return false
}

// compositorEvents are the browser's and GPU process's compositor and
// scheduler events kept in a page's trace: their args are layer, tile and
// frame numbers and timings, which say nothing of what another page is.
var compositorEvents = map[string]bool{
	"ActivateLayerTree":          true,
	"BeginFrame":                 true,
	"BeginMainThreadFrame":       true,
	"Commit":                     true,
	"DrawFrame":                  true,
	"NeedsBeginFrameChanged":     true,
	"PipelineReporter":           true,
	"RasterTask":                 true,
	"RequestMainThreadFrame":     true,
	"SendBeginMainFrameToCommit": true,
	"UpdateLayer":                true,
}

// Filter copies the trace r to w with only the events of s's page, as a
// trace file ({"traceEvents": [...], "metadata": {...}}) that DevTools and
// Perfetto load. It streams: the trace is never held in memory whole.
func Filter(r io.Reader, w io.Writer, s *Scope) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.WriteString(`{"traceEvents":[`); err != nil {
		return err
	}
	n := 0
	metadata, err := scanFile(r, func(ev *event) error {
		if !s.keeps(ev) {
			return nil
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		_, err := bw.Write(ev.raw)
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString("]")
	if metadata != nil {
		bw.WriteString(`,"metadata":`)
		bw.Write(metadata)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}
