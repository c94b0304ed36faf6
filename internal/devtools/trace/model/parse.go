package model

import (
	"encoding/json"
	"fmt"
	"io"
)

// Trace is what a trace file's events say, kept as DevTools' trace
// handlers keep it: the navigations and frames, the network requests, the
// paints and LCP candidates, the layout shifts, the interactions, the main
// threads' events and the scripts.
type Trace struct {
	events   int
	Meta     *Meta         // processes, frames, navigations, bounds
	Net      *Network      // network requests
	Load     *PageLoad     // paints, LCP candidates, page-load marks
	Shifts   *Shifts       // layout shifts and what can cause them
	Inter    *Interactions // user interactions and viewport events
	Rend     *Renderer     // the renderers' main threads
	Scripts  *Scripts      // scripts, their sources and source maps
	Entities *Entities     // the sites of URLs

	// CPUThrottling and NetworkThrottling are what the file's metadata
	// says was emulated while it was recorded; nil when it says nothing.
	CPUThrottling     *float64
	NetworkThrottling *string
}

// Parse reads a trace file (the JSON trace-event format, as Chrome writes
// it and DevTools saves it, plain or gzip-compressed) as a stream and
// follows its events. It fails with an error wrapping [ErrNotTrace] for a
// file that is not a trace.
func Parse(r io.Reader) (*Trace, error) {
	t := &Trace{
		Meta:     newMeta(),
		Net:      newNetwork(),
		Load:     newPageLoad(),
		Shifts:   newShifts(),
		Inter:    &Interactions{},
		Rend:     newRenderer(),
		Scripts:  newScripts(),
		Entities: newEntities(),
	}
	metadata, err := scanFile(r, t.handle)
	if err != nil {
		return nil, err
	}
	if t.events == 0 {
		return nil, fmt.Errorf("%w: it has no events", ErrNotTrace)
	}
	var md struct {
		CPUThrottling     *float64            `json:"cpuThrottling"`
		NetworkThrottling *string             `json:"networkThrottling"`
		HostDPR           float64             `json:"hostDPR"`
		SourceMaps        []metadataSourceMap `json:"sourceMaps"`
	}
	if metadata != nil {
		json.Unmarshal(metadata, &md) // best effort: the events are what matters
	}
	t.CPUThrottling, t.NetworkThrottling = md.CPUThrottling, md.NetworkThrottling
	t.finalize(md.HostDPR, md.SourceMaps)
	return t, nil
}

func (t *Trace) handle(ev *event) error {
	t.events++
	t.Meta.handle(ev)
	t.Net.handle(ev)
	t.Load.handle(ev)
	t.Shifts.handle(ev)
	t.Inter.handle(ev)
	t.Rend.handle(ev, t.Meta)
	t.Scripts.handle(ev)
	return nil
}

func (t *Trace) finalize(hostDPR float64, maps []metadataSourceMap) {
	t.Meta.finalize()
	t.Net.finalize()
	t.Load.finalize(t.Meta, t.Net)
	t.Shifts.finalize(t.Meta)
	t.Inter.finalize(t.Meta)
	t.Rend.finalize()
	t.Scripts.finalize(t.Meta, t.Net, maps)
	if hostDPR > 0 && t.Meta.dpr > 0 {
		for _, p := range t.Shifts.PaintImages {
			p.CorrectedW = p.Width / hostDPR * t.Meta.dpr
			p.CorrectedH = p.Height / hostDPR * t.Meta.dpr
			p.Corrected = true
		}
	}
}
