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

// trackWorker records t if it is an extension's service worker, and
// reports whether it is one. Run goroutine only.
func (s *Supervisor) trackWorker(t target.Info) bool {
	if t.Type != "service_worker" || !strings.HasPrefix(t.URL, "chrome-extension://") {
		return false
	}
	id := string(t.TargetID)
	if s.workers == nil {
		s.workers = map[string]*workerEntry{}
	}
	e := s.workers[id]
	if e == nil {
		if s.gone[id] {
			return true
		}
		s.workerSeq++
		e = &workerEntry{WorkerInfo: WorkerInfo{ID: fmt.Sprintf("sw-%d", s.workerSeq), TargetID: id}}
		s.workers[id] = e
		if s.cfg.ExtensionWorkers {
			s.spawnWorker(e)
		}
	}
	e.URL = t.URL
	s.publishWorkers()
	return true
}

// untrackWorker forgets a worker target that went away. Run goroutine
// only.
func (s *Supervisor) untrackWorker(targetID string) {
	e := s.workers[targetID]
	if e == nil {
		return
	}
	delete(s.workers, targetID)
	s.gone[targetID] = true
	if a := e.actor; a != nil {
		s.stops.Add(1)
		go func() { defer s.stops.Done(); a.Stop(page.ErrClosed) }()
	}
	s.publishWorkers()
}

// stopWorkers forgets every worker, stopping their actors with cause: the
// browser went away, or the supervisor is closing (then after its run
// goroutine exited, whose state is the caller's).
func (s *Supervisor) stopWorkers(cause error) {
	for id, e := range s.workers {
		delete(s.workers, id)
		if a := e.actor; a != nil {
			s.stops.Add(1)
			go func() { defer s.stops.Done(); a.Stop(cause) }()
		}
	}
	s.publishWorkers()
}

// spawnWorker starts e's actor on the current connection. Run goroutine
// only.
func (s *Supervisor) spawnWorker(e *workerEntry) *worker.Worker {
	if e.actor != nil && e.actor.Err() == nil {
		return e.actor
	}
	conn, targetID := s.conn, e.TargetID
	e.actor = worker.Start(worker.Config{
		ID:       e.ID,
		TargetID: targetID,
		Attach: func(ctx context.Context, opts cdpconn.Options) (*cdpconn.Conn, error) {
			return conn.Attach(ctx, targetID, opts)
		},
		Logger: s.cfg.Logger,
	})
	return e.actor
}

func (s *Supervisor) publishWorkers() {
	list := make([]WorkerInfo, 0, len(s.workers))
	for _, e := range s.workers {
		list = append(list, e.WorkerInfo)
	}
	slices.SortFunc(list, func(a, b WorkerInfo) int { return workerNum(a.ID) - workerNum(b.ID) })
	s.workerView.Store(&list)
}

func workerNum(id string) int {
	var n int
	fmt.Sscanf(id, "sw-%d", &n)
	return n
}

// Workers lists the extensions' service workers running now, by id. It
// never starts the browser.
func (s *Supervisor) Workers() []WorkerInfo {
	if p := s.workerView.Load(); p != nil {
		return slices.Clone(*p)
	}
	return nil
}

// Worker returns the actor of service worker id, starting it if need be,
// or [ErrNoWorker].
func (s *Supervisor) Worker(ctx context.Context, id string) (*worker.Worker, error) {
	if err := s.Ensure(ctx); err != nil {
		return nil, err
	}
	return actor.Ask(ctx, s.act, func(context.Context) (*worker.Worker, error) {
		(*supervisorEvents)(s).Apply()
		for _, e := range s.workers {
			if e.ID == id {
				return s.spawnWorker(e), nil
			}
		}
		return nil, ErrNoWorker
	})
}
