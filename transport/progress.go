package transport

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressForwarder sends a call's progress notifications from a goroutine
// of its own, so that the page's goroutine, which reports progress, never
// waits on the client. Only the latest report waits to be sent.
type progressForwarder struct {
	latest chan [2]int
	done   chan struct{}
	wg     sync.WaitGroup
}

func startProgress(ctx context.Context, ss *mcp.ServerSession, token any, message func(done, total int) string) *progressForwarder {
	p := &progressForwarder{latest: make(chan [2]int, 1), done: make(chan struct{})}
	p.wg.Add(1)
	go func() { // owned by the call: stop waits for it
		defer p.wg.Done()
		for {
			select {
			case v := <-p.latest:
				// Best effort: a client that cannot take a notification
				// loses it, and the work goes on.
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(v[0]), Total: float64(v[1]),
					Message: message(v[0], v[1])})
			case <-p.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// report queues a progress report, replacing one not yet sent; it never
// blocks.
func (p *progressForwarder) report(done, total int) {
	for {
		select {
		case p.latest <- [2]int{done, total}:
			return
		default:
		}
		select {
		case <-p.latest:
		default:
		}
	}
}

func (p *progressForwarder) stop() {
	close(p.done)
	p.wg.Wait()
}

// notifyWait bounds how long [call.Notify] waits for the client to take
// one notification.
const notifyWait = 5 * time.Second

// Notify sends one progress notification to the call's client, if it
// asked for them: best effort and bounded, so that a client that cannot
// take it loses it and the work goes on.
func (c *call) Notify(ctx context.Context, progress float64, message string) {
	if c.progressToken == nil || c.sess.ss == nil {
		return
	}
	nctx, cancel := context.WithTimeout(ctx, notifyWait)
	defer cancel()
	_ = c.sess.ss.NotifyProgress(nctx, &mcp.ProgressNotificationParams{ProgressToken: c.progressToken, Progress: progress, Message: message})
}
