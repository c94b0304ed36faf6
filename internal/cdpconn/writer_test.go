package cdpconn_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mafredri/cdp/rpcc"
	"go.uber.org/goleak"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// hangBound is far above what any step here takes on a loaded machine,
// and far below forever, which is what each took before the channel had
// its own writer.
const hangBound = 20 * time.Second

// returns runs f and fails the test if it has not returned within
// hangBound.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(hangBound):
		t.Fatalf("%s did not return within %v: it hangs on the stalled browser", what, hangBound)
	}
}

// A browser that stops reading its end of the channel (a stalled socket)
// holds up no caller: calls on every session fail at their own deadlines,
// Send and a session's Close return at once, a full queue refuses a call
// at once, and closing the connection ends its writer.
func TestStalledBrowserHangsNoCaller(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	toConnR, toConnW := io.Pipe()
	toPeerR, toPeerW := io.Pipe()
	stalled := make(chan struct{})
	release := make(chan struct{})
	peerDone := make(chan struct{})
	go func() { // the browser: answers attaches, then stops reading
		defer close(peerDone)
		br := bufio.NewReader(toPeerR)
		n := 0
		for {
			c, err := readCommand(br)
			if err != nil {
				return
			}
			switch c.Method {
			case "Target.attachToTarget":
				n++
				toConnW.Write(fmt.Appendf(nil, `{"id":%d,"result":{"sessionId":"S%d"}}`+"\x00", c.ID, n))
			case "Test.stall":
				close(stalled)
				<-release
				return
			}
		}
	}()

	ctx := ctx5(t)
	c, err := cdpconn.DialPipe(ctx, toConnR, toPeerW, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s1, err := c.Attach(ctx, "T1", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c.Attach(ctx, "T2", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send("Test.stall", nil); err != nil {
		t.Fatal(err)
	}
	<-stalled

	// Every session's calls end at their deadlines.
	errs := make(chan error, 3)
	for _, conn := range []*cdpconn.Conn{c, s1, s2} {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			errs <- rpcc.Invoke(ctx, "Runtime.evaluate", map[string]string{"expression": "1"}, nil, conn.RPC())
		}()
	}
	for range 3 {
		select {
		case err := <-errs:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("call on a stalled browser: %v, want its deadline", err)
			}
		case <-time.After(hangBound):
			t.Fatal("a call on a stalled browser outlived its deadline")
		}
	}

	returns(t, "Send", func() {
		if err := s2.Send("Fetch.continueRequest", map[string]string{"requestId": "1"}); err != nil {
			t.Errorf("Send on a stalled browser: %v, want it queued", err)
		}
	})
	returns(t, "a session's Close", func() { s1.Close() })

	// The queue is bounded: once full, a call is refused at once, with a
	// sentence.
	returns(t, "filling the queue", func() {
		for i := range 2000 {
			err := s2.Send("Runtime.evaluate", map[string]string{"expression": "1"})
			if err == nil {
				continue
			}
			if !errors.Is(err, cdpconn.ErrQueueFull) {
				t.Fatalf("send %d on a full queue: %v, want ErrQueueFull", i, err)
			}
			if i > 1100 {
				t.Errorf("the queue took %d messages, want about 1024", i)
			}
			return
		}
		t.Error("2000 messages queued for a browser that reads none: the queue is not bounded")
	})
	call, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if err := rpcc.Invoke(call, "Runtime.evaluate", nil, nil, s2.RPC()); !errors.Is(err, cdpconn.ErrQueueFull) {
		t.Errorf("call on a full queue: %v, want ErrQueueFull", err)
	}

	returns(t, "the browser connection's Close", func() { c.Close() })
	close(release)
	<-peerDone
	toConnW.Close()
	toPeerR.Close()
	// goleak (deferred) checks that the writer ended.
}

// A write that the browser does not take within the write deadline (it
// stopped reading a pipe whose buffer is full) closes the connection:
// the call fails as closed well before its own, longer deadline, and the
// connection's Done fires.
func TestWriteDeadlineClosesStalledPipe(t *testing.T) {
	// Chrome's input stays open, never read: writes block once its buffer
	// is full.
	fromChrome, _, _, toChrome := chromePipes(t)
	c, err := cdpconn.DialPipe(ctx5(t), fromChrome, toChrome, cdpconn.Options{WriteTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*hangBound)
	defer cancel()
	start := time.Now()
	big := map[string]string{"expression": strings.Repeat("x", 4<<20)} // far more than a pipe buffers
	err = rpcc.Invoke(ctx, "Runtime.evaluate", big, nil, c.RPC())
	if !cdpconn.IsClosed(err) {
		t.Fatalf("write to a browser that stopped reading: %v, want the connection closed", err)
	}
	if d := time.Since(start); d > hangBound {
		t.Errorf("the write took %v to fail, want about its 500ms deadline", d)
	}
	select {
	case <-c.Done():
	case <-time.After(hangBound):
		t.Fatal("the connection's Done did not fire after its write outran the deadline")
	}
}
