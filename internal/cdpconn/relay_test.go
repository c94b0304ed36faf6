package cdpconn_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mafredri/cdp/protocol/runtime"

	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/internal/testwait"
)

// relayed collects what a relay delivers.
type relayed struct {
	mu   sync.Mutex
	msgs []map[string]any
	wake chan struct{}
}

func (r *relayed) deliver(b []byte) {
	var m map[string]any
	json.Unmarshal(b, &m)
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wait returns the first message match accepts.
func (r *relayed) wait(t *testing.T, ctx context.Context, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	for {
		r.mu.Lock()
		for _, m := range r.msgs {
			if match(m) {
				r.mu.Unlock()
				return m
			}
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-ctx.Done():
			t.Fatalf("no %s relayed", what)
		}
	}
}

func reply(id float64, session string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id && m["sessionId"] == session }
}

// Against real Chromium: a relay carries an outside client's calls on a
// session it attached, numbered as the client numbered them, adopts the
// sessions Chrome attaches under it (a worker), and detaches them all on
// Close, while the page's own session goes on.
func TestChromiumRelay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	root, tr := chromiumTab(t, ctx, cdpconn.Options{})
	own, err := root.Attach(ctx, string(tr.TargetID), cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}

	got := &relayed{wake: make(chan struct{}, 1)}
	rl := root.NewRelay(got.deliver)
	sid, err := rl.Attach(ctx, string(tr.TargetID))
	if err != nil {
		t.Fatal(err)
	}
	if err := rl.Send(sid, 7, "Runtime.evaluate", json.RawMessage(`{"expression":"6*7","returnByValue":true}`)); err != nil {
		t.Fatal(err)
	}
	m := got.wait(t, ctx, "the reply to call 7", reply(7, sid))
	if v := m["result"].(map[string]any)["result"].(map[string]any)["value"]; v != 42.0 {
		t.Errorf("call 7 = %v", m)
	}

	// A worker the page starts is attached under the relayed session, and
	// relayed too.
	rl.Send(sid, 8, "Target.setAutoAttach", json.RawMessage(`{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":true}`))
	got.wait(t, ctx, "the reply to setAutoAttach", reply(8, sid))
	rl.Send(sid, 9, "Runtime.evaluate", json.RawMessage(`{"expression":"window.w = new Worker(URL.createObjectURL(new Blob(['setInterval(() => {}, 1000)']))); 1"}`))
	att := got.wait(t, ctx, "the worker's attachment", func(m map[string]any) bool {
		return m["method"] == "Target.attachedToTarget" && m["sessionId"] == sid
	})
	child := att["params"].(map[string]any)["sessionId"].(string)
	if !rl.Owns(child) {
		t.Fatal("the worker's session is not relayed")
	}
	rl.Send(child, 10, "Runtime.evaluate", json.RawMessage(`{"expression":"typeof importScripts","returnByValue":true}`))
	m = got.wait(t, ctx, "the worker's reply", reply(10, child))
	if v := m["result"].(map[string]any)["result"].(map[string]any)["value"]; v != "function" {
		t.Errorf("the worker's reply = %v", m)
	}

	if !workerAttached(t, ctx, root) {
		t.Fatal("Chrome does not list the relayed worker as attached")
	}
	rl.Close()
	if err := rl.Send(sid, 11, "Runtime.evaluate", json.RawMessage(`{"expression":"1"}`)); err == nil {
		t.Error("a relay's session took a call after Close")
	}
	// The page's own session goes on.
	rep, err := own.Client.Runtime.Evaluate(ctx, runtime.NewEvaluateArgs("6*7").SetReturnByValue(true))
	if err != nil || string(rep.Result.Value) != "42" {
		t.Fatalf("the page's own session after the relay closed: %v %v", rep, err)
	}
	// Chrome was told to detach: the worker has no client left.
	testwait.Until(t, "the worker to be detached after the relay closed", func() bool { return !workerAttached(t, ctx, root) })
}

func workerAttached(t *testing.T, ctx context.Context, root *cdpconn.Conn) bool {
	t.Helper()
	ts, err := root.Client.Target.GetTargets(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range ts.TargetInfos {
		if ti.Type == "worker" && ti.Attached {
			return true
		}
	}
	return false
}
