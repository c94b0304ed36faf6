package browser

// Extensions: loading an unpacked extension from a directory, listing,
// uninstalling and reloading them, and clicking an extension's toolbar
// action on a tab (the Extensions domain, which Chrome serves on a browser
// driven over its DevTools pipe, as tabhive launches it). These are
// browser-wide calls on the supervisor's connection, made by the caller's
// goroutine under its context: they touch no state of the supervisor's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// Extensions is the handle on the browser's unpacked extensions:
// [Supervisor.Extensions]. Its methods run on the caller's goroutine.
type Extensions struct{ s *Supervisor }

// Extensions returns the handle on the browser's unpacked extensions.
func (s *Supervisor) Extensions() Extensions { return Extensions{s} }

// ProtocolError is the browser's answer to a DevTools command it refused:
// the command and Chrome's own message, such as "File path cannot be
// resolved." for Extensions.loadUnpacked.
type ProtocolError struct {
	Method  string
	Message string
}

func (e *ProtocolError) Error() string { return e.Method + ": " + e.Message }

// invoke sends one browser-level command under ctx. A refusal becomes a
// [*ProtocolError]; a connection that closed, [ErrBrowserLost].
func invoke(ctx context.Context, conn *cdpconn.Conn, method string, args, reply any) error {
	err := rpcc.Invoke(ctx, method, args, reply, conn.RPC())
	var re *rpcc.ResponseError
	if errors.As(err, &re) {
		return &ProtocolError{Method: method, Message: re.Message}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", method, lostIfClosed(err))
	}
	return nil
}

// Extension is an unpacked extension the browser has loaded.
type Extension struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Path    string `json:"path"`
	Enabled bool   `json:"enabled"`
}

// ErrNoExtension is returned for an extension id the browser does not list.
var ErrNoExtension = errors.New("no extension with that id")

// Install loads the unpacked extension in dir (an absolute path
// on the browser's machine) and returns its id. Loading one already loaded
// reloads it.
func (h Extensions) Install(ctx context.Context, dir string) (string, error) {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return "", err
	}
	var reply struct {
		ID string `json:"id"`
	}
	if err := invoke(ctx, conn, "Extensions.loadUnpacked", map[string]any{"path": dir, "enableInIncognito": false}, &reply); err != nil {
		return "", err
	}
	return reply.ID, nil
}

// List lists the unpacked extensions the browser has loaded, by id.
func (h Extensions) List(ctx context.Context) ([]Extension, error) {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return nil, err
	}
	var reply struct {
		Extensions []Extension `json:"extensions"`
	}
	if err := invoke(ctx, conn, "Extensions.getExtensions", nil, &reply); err != nil {
		return nil, err
	}
	return reply.Extensions, nil
}

// Get returns the loaded extension id, or [ErrNoExtension].
func (h Extensions) Get(ctx context.Context, id string) (Extension, error) {
	all, err := h.List(ctx)
	if err != nil {
		return Extension{}, err
	}
	for _, e := range all {
		if e.ID == id {
			return e, nil
		}
	}
	return Extension{}, ErrNoExtension
}

// Uninstall removes the unpacked extension id from the profile.
func (h Extensions) Uninstall(ctx context.Context, id string) error {
	conn, err := h.s.connection(ctx)
	if err != nil {
		return err
	}
	return invoke(ctx, conn, "Extensions.uninstall", map[string]any{"id": id}, nil)
}

// TriggerAction runs extension id's default action (a click on
// its toolbar button) in the window of page pageID's tab, or fails with
// [ErrNoExtension] or [ErrNoPage]. Chrome runs it on that window's active
// tab: the caller brings the page to front first.
func (h Extensions) TriggerAction(ctx context.Context, id string, pageID int) error {
	if _, err := h.Get(ctx, id); err != nil {
		return err
	}
	info, ok := h.s.Info(pageID)
	if !ok {
		return ErrNoPage
	}
	conn, err := h.s.connection(ctx)
	if err != nil {
		return err
	}
	tab, err := tabOf(ctx, conn, info.TargetID, info.URL)
	if err != nil {
		return err
	}
	return invoke(ctx, conn, "Extensions.triggerAction", map[string]any{"id": id, "targetId": tab}, nil)
}

// tabOf returns the id of the tab target that holds page target pageID:
// an action runs on a tab, and Chrome names a page's tab only to a session
// attached to the tab, as the child it auto-attaches. Tabs showing the
// page's URL are asked first.
func tabOf(ctx context.Context, conn *cdpconn.Conn, pageID, url string) (string, error) {
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
			URL      string `json:"url"`
		} `json:"targetInfos"`
	}
	if err := invoke(ctx, conn, "Target.getTargets", map[string]any{"filter": []map[string]any{{"type": "tab"}}}, &targets); err != nil {
		return "", err
	}
	tabs := targets.TargetInfos
	sort.SliceStable(tabs, func(i, j int) bool { return tabs[i].URL == url && tabs[j].URL != url })
	for _, t := range tabs {
		if t.Type != "tab" {
			continue
		}
		child, err := tabChild(ctx, conn, t.TargetID)
		if err != nil {
			return "", err
		}
		if child == pageID {
			return t.TargetID, nil
		}
	}
	return "", ErrNoPage
}

// tabChild attaches to tab target tab just long enough to learn the page
// target it holds.
func tabChild(ctx context.Context, conn *cdpconn.Conn, tab string) (string, error) {
	// A tab that holds no page (one opening or closing) is given up on.
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ready := make(chan struct{}, 1)
	sess, err := conn.Attach(ctx, tab, cdpconn.Options{Keep: func(m string) bool { return m == "Target.attachedToTarget" }, Ready: ready})
	if err != nil {
		return "", lostIfClosed(err)
	}
	defer sess.Close() // detaches the page session auto-attached under it too
	err = invoke(ctx, sess, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}, nil)
	if err != nil {
		return "", err
	}
	// Chrome reports the tab's page as attached right after the reply, if
	// not before it.
	for {
		for _, ev := range sess.Take() {
			var e struct {
				TargetInfo struct {
					TargetID string `json:"targetId"`
					Type     string `json:"type"`
				} `json:"targetInfo"`
			}
			if json.Unmarshal(ev.Params, &e) == nil && e.TargetInfo.Type == "page" {
				return e.TargetInfo.TargetID, nil
			}
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
