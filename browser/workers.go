package browser

// Extensions' service workers. The supervisor gives each one it sees (a
// service_worker target at a chrome-extension:// URL) an id, sw-1, sw-2,
// ..., never reused, and a [worker.Worker] actor: at once with
// ExtensionWorkers, so that the worker's console is collected from its
// start, else when first used. A worker that stops (Chrome ends an idle
// extension worker) goes, and comes back under a new id when it restarts.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mafredri/cdp/protocol/target"

	"github.com/tabhive/tabhive/actor"
	"github.com/tabhive/tabhive/internal/cdpconn"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/worker"
)

// Workers is the handle on the extensions' service workers:
// [Supervisor.Workers]. Their registry is the supervisor's, kept on its run
// goroutine; each method says which goroutine may call it.
type Workers struct{ s *Supervisor }

// Workers returns the handle on the extensions' service workers.
func (s *Supervisor) Workers() Workers { return Workers{s} }

// WorkerInfo is an extension's service worker.
type WorkerInfo struct {
	// ID is the worker's id for serviceWorkerId: sw-1, sw-2, ...
	ID       string
	TargetID string
	URL      string
}

type workerEntry struct {
	WorkerInfo
	actor *worker.Worker // nil until first needed without ExtensionWorkers
}

// ErrNoWorker is returned for a service worker id that names no running
// extension service worker.
var ErrNoWorker = fmt.Errorf("no service worker with that id")

// track records t if it is an extension's service worker, and
// reports whether it is one. Run goroutine only.
func (h Workers) track(t target.Info) bool {
	if t.Type != "service_worker" || !strings.HasPrefix(t.URL, "chrome-extension://") {
		return false
	}
	id := string(t.TargetID)
	if h.s.workers == nil {
		h.s.workers = map[string]*workerEntry{}
	}
	e := h.s.workers[id]
	if e == nil {
		if h.s.gone[id] {
			return true
		}
		h.s.workerSeq++
		e = &workerEntry{WorkerInfo: WorkerInfo{ID: fmt.Sprintf("sw-%d", h.s.workerSeq), TargetID: id}}
		h.s.workers[id] = e
		if h.s.cfg.ExtensionWorkers {
			h.spawn(e)
		}
	}
	e.URL = t.URL
	h.publish()
	return true
}

// untrack forgets a worker target that went away. Run goroutine
// only.
func (h Workers) untrack(targetID string) {
	e := h.s.workers[targetID]
	if e == nil {
		return
	}
	delete(h.s.workers, targetID)
	h.s.gone[targetID] = true
	if a := e.actor; a != nil {
		h.s.stops.Add(1)
		go func() { defer h.s.stops.Done(); a.Stop(page.ErrClosed) }()
	}
	h.publish()
}

// stop forgets every worker, stopping their actors with cause: the
// browser went away, or the supervisor is closing (then after its run
// goroutine exited, whose state is the caller's).
func (h Workers) stop(cause error) {
	for id, e := range h.s.workers {
		delete(h.s.workers, id)
		if a := e.actor; a != nil {
			h.s.stops.Add(1)
			go func() { defer h.s.stops.Done(); a.Stop(cause) }()
		}
	}
	h.publish()
}

// spawn starts e's actor on the current connection. Run goroutine
// only.
func (h Workers) spawn(e *workerEntry) *worker.Worker {
	if e.actor != nil && e.actor.Err() == nil {
		return e.actor
	}
	conn, targetID := h.s.conn, e.TargetID
	e.actor = worker.Start(worker.Config{
		ID:       e.ID,
		TargetID: targetID,
		Attach: func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error) {
			return conn.Attach(ctx, targetID, opts)
		},
		Logger: h.s.cfg.Logger,
	})
	return e.actor
}

func (h Workers) publish() {
	list := make([]WorkerInfo, 0, len(h.s.workers))
	for _, e := range h.s.workers {
		list = append(list, e.WorkerInfo)
	}
	slices.SortFunc(list, func(a, b WorkerInfo) int { return workerNum(a.ID) - workerNum(b.ID) })
	h.s.workerView.Store(&list)
}

func workerNum(id string) int {
	var n int
	fmt.Sscanf(id, "sw-%d", &n)
	return n
}

// List lists the extensions' service workers running now, by id. It
// never starts the browser.
func (h Workers) List() []WorkerInfo {
	if p := h.s.workerView.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// Get returns the actor of service worker id, starting it if need be,
// or [ErrNoWorker].
func (h Workers) Get(ctx context.Context, id string) (*worker.Worker, error) {
	if err := h.s.Ensure(ctx); err != nil {
		return nil, err
	}
	return actor.Ask(ctx, h.s.act, func(context.Context) (*worker.Worker, error) {
		(*supervisorEvents)(h.s).Apply()
		for _, e := range h.s.workers {
			if e.ID == id {
				return h.spawn(e), nil
			}
		}
		return nil, ErrNoWorker
	})
}
