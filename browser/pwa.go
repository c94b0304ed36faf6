package browser

// Progressive Web Apps: installing one from its manifest id (the PWA
// domain installs without the install dialog), launching it in its own
// window (a tab target holding a page, which becomes a page like any
// other), reading its OS integration state and uninstalling it. As the
// extension calls, these are browser-wide commands on the supervisor's
// connection, made on the caller's goroutine under its context.

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// PWA is the handle on the browser's installed web apps:
// [Supervisor.PWA]. Its methods run on the caller's goroutine.
type PWA struct{ s *Supervisor }

// PWA returns the handle on the browser's installed web apps.
func (s *Supervisor) PWA() PWA { return PWA{s} }

// AppState is an installed web app's OS integration state.
type AppState struct {
	BadgeCount int
	// FileHandlers is the browser's list of the app's file handlers, as
	// JSON.
	FileHandlers json.RawMessage
}

// Install installs the web app manifestID from installURL (its page, or
// a signed web bundle for an isolated web app), then sets its display
// mode if displayMode is not empty. The browser fetches the manifest: a
// first "Couldn't fetch install info" is retried once, as
// chrome-devtools-mcp does, for a manifest still loading.
func (h PWA) Install(ctx context.Context, manifestID, installURL, displayMode string) error {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return err
	}
	args := map[string]any{"manifestId": manifestID}
	if installURL != "" {
		args["installUrlOrBundleUrl"] = installURL
	}
	err = invoke(ctx, conn, "PWA.install", args, nil)
	if pe, ok := err.(*ProtocolError); ok && strings.Contains(pe.Message, "Couldn't fetch install info") {
		err = invoke(ctx, conn, "PWA.install", args, nil)
	}
	if err != nil || displayMode == "" {
		return err
	}
	return invoke(ctx, conn, "PWA.changeAppUserSettings", map[string]any{"manifestId": manifestID, "displayMode": displayMode}, nil)
}

// Uninstall uninstalls the web app manifestID and closes its windows.
func (h PWA) Uninstall(ctx context.Context, manifestID string) error {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return err
	}
	return invoke(ctx, conn, "PWA.uninstall", map[string]any{"manifestId": manifestID}, nil)
}

// State returns the OS integration state of the installed web app
// manifestID.
func (h PWA) State(ctx context.Context, manifestID string) (AppState, error) {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return AppState{}, err
	}
	var reply struct {
		BadgeCount   int             `json:"badgeCount"`
		FileHandlers json.RawMessage `json:"fileHandlers"`
	}
	if err := invoke(ctx, conn, "PWA.getOsAppState", map[string]any{"manifestId": manifestID}, &reply); err != nil {
		return AppState{}, err
	}
	if len(reply.FileHandlers) == 0 {
		reply.FileHandlers = json.RawMessage("[]")
	}
	return AppState{BadgeCount: reply.BadgeCount, FileHandlers: reply.FileHandlers}, nil
}

// launchLoad bounds the wait for a launched app's first document, as
// chrome-devtools-mcp waits for it: past it, the page is reported as it
// is.
const launchLoad = 10 * time.Second

// Launch launches the installed web app manifestID, at url if given,
// else at its start URL, and returns the page its window shows once the
// supervisor has registered it (and, within a bound, its document has a
// URL).
func (h PWA) Launch(ctx context.Context, manifestID, url string) (PageInfo, error) {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return PageInfo{}, err
	}
	args := map[string]any{"manifestId": manifestID}
	if url != "" {
		args["url"] = url
	}
	var reply struct {
		TargetID string `json:"targetId"`
	}
	if err := invoke(ctx, conn, "PWA.launch", args, &reply); err != nil {
		return PageInfo{}, err
	}
	// PWA.launch names the window's tab; the page is the tab's child.
	target, err := tabChild(ctx, conn, reply.TargetID)
	if err != nil {
		return PageInfo{}, err
	}
	info, err := h.waitPage(ctx, target, func(PageInfo) bool { return true })
	if err != nil {
		return PageInfo{}, err
	}
	lctx, cancel := context.WithTimeout(ctx, launchLoad)
	defer cancel()
	if loaded, err := h.waitPage(lctx, target, func(p PageInfo) bool { return p.URL != "" && p.URL != "about:blank" }); err == nil {
		info = loaded
	}
	// Past the bound, the page is reported as it is.
	if a, err := h.s.Page(lctx, info.ID); err == nil && a.WaitLoaded(lctx) == nil {
		if now, ok := h.s.Info(info.ID); ok {
			info = now
		}
	}
	return info, nil
}

// waitPage waits until the registry lists page target targetID in a state
// ok accepts. The registry is published after each Target event the
// supervisor applies; it is looked at again each time events may have
// arrived, at most every 20 ms.
func (h PWA) waitPage(ctx context.Context, targetID string, ok func(PageInfo) bool) (PageInfo, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, e := range h.s.view.Load().pages {
			if e.TargetID == targetID && ok(e.PageInfo) {
				return e.PageInfo, nil
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return PageInfo{}, ctx.Err()
		}
	}
}
