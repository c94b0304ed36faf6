package cdpconn_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// ctx60 is a budget for moving megabytes through the fake pipe, generous
// for a loaded machine running the race detector.
func ctx60(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// streamCall runs CallStream in the background.
func streamCall(t *testing.T, c *cdpconn.Conn, w *bytes.Buffer) <-chan streamResult {
	done := make(chan streamResult, 1)
	go func() {
		raw, n, err := c.CallStream(ctx60(t), "Page.captureScreenshot", map[string]any{"format": "png"}, "data", w)
		done <- streamResult{string(raw), n, err}
	}()
	return done
}

type streamResult struct {
	raw string
	n   int64
	err error
}

// TestCallStream: a reply's base64 string, many times the channel's read
// limit, is decoded to the writer as it is read, whatever the chunks it
// arrives in; the reply comes without it, and the calls and events around
// it are read as usual. An error reply fails the call.
func TestCallStream(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{MaxMessageBytes: 64 << 10})
	a, err := root.Attach(ctx5(t), "TA", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, 1<<20+2) // 16 times the read limit; not a multiple of 3, so the string ends in padding
	rand.Read(img)
	var got bytes.Buffer
	done := streamCall(t, a, &got)
	c := f.next()
	if c.Method != "Page.captureScreenshot" || c.SessionID != "S1" {
		t.Fatalf("command %+v", c)
	}
	f.send(`{"method":"Before.event","params":{},"sessionId":"S1"}`)
	data := strings.ReplaceAll(base64.StdEncoding.EncodeToString(img), "/", `\/`) // escaped as some JSON writers do
	f.reply(c, `{"data":"`+data+`"}`)
	f.send(`{"method":"After.event","params":{},"sessionId":"S1"}`)
	r := <-done
	if r.err != nil || r.raw != `{"data":""}` || r.n != int64(len(img)) || !bytes.Equal(got.Bytes(), img) {
		t.Fatalf("CallStream = %q, %d, %v; wrote %d bytes, equal %v", r.raw, r.n, r.err, got.Len(), bytes.Equal(got.Bytes(), img))
	}
	// The event sent after the reply may be read after the call returned:
	// wait for it.
	var methods []string
	wait := ctx60(t)
	for {
		for _, e := range a.Take() {
			methods = append(methods, e.Method)
		}
		if len(methods) >= 2 {
			break
		}
		select {
		case <-a.Ready():
		case <-wait.Done():
			t.Fatalf("events %v, want two", methods)
		}
	}
	if strings.Join(methods, " ") != "Before.event After.event" {
		t.Errorf("events %v", methods)
	}

	// An error reply.
	got.Reset()
	done = streamCall(t, a, &got)
	c = f.next()
	f.send(`{"id":` + strconv.FormatUint(c.ID, 10) + `,"error":{"code":-32000,"message":"Unable to capture screenshot"},"sessionId":"S1"}`)
	if r := <-done; r.err == nil || !strings.Contains(r.err.Error(), "Unable to capture screenshot") || got.Len() != 0 {
		t.Errorf("error reply: %+v, wrote %d bytes", r, got.Len())
	}

	// A writer that fails: the reply is still read whole, the call fails
	// with the writer's error, and the next call works.
	done2 := make(chan streamResult, 1)
	go func() {
		raw, n, err := a.CallStream(ctx60(t), "Page.captureScreenshot", nil, "data", failAfter{})
		done2 <- streamResult{string(raw), n, err}
	}()
	f.reply(f.next(), `{"data":"`+data+`"}`)
	if r := <-done2; !errors.Is(r.err, errFull) {
		t.Errorf("failing writer: %+v", r)
	}
	var ok struct{ OK bool }
	call2 := call(ctx5(t), a, "Next.call", &ok)
	f.reply(f.next(), `{"ok":true}`)
	if err := <-call2; err != nil || !ok.OK {
		t.Errorf("call after: %v %v", ok, err)
	}
}

var errFull = errors.New("disk full")

type failAfter struct{}

func (failAfter) Write(p []byte) (int, error) { return 0, errFull }

// sendPieces writes one message to the connection in pieces, each read
// apart from the next: the reader sees the message cut at those places.
func (f *fakePipe) sendPieces(pieces ...string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	for _, p := range pieces {
		f.w.Write([]byte(p))
	}
	f.w.Write([]byte{0})
}

// TestCallStreamCutAnywhere: the reply is decoded the same wherever the
// reads cut it: in the id, in the field name, in a base64 group, between
// an escape's backslash and its slash, and at the closing quote.
func TestCallStreamCutAnywhere(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	a, err := root.Attach(ctx5(t), "TA", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, 301)
	rand.Read(img)
	data := strings.ReplaceAll(base64.StdEncoding.EncodeToString(img), "/", `\/`)
	for cut := 1; ; cut++ {
		var got bytes.Buffer
		done := streamCall(t, a, &got)
		c := f.next()
		msg := `{"id":` + strconv.FormatUint(c.ID, 10) + `,"result":{"data":"` + data + `"},"sessionId":"S1"}`
		if cut >= len(msg) {
			f.sendPieces(msg)
			<-done
			break
		}
		f.sendPieces(msg[:cut], msg[cut:])
		if r := <-done; r.err != nil || r.raw != `{"data":""}` || !bytes.Equal(got.Bytes(), img) {
			t.Fatalf("cut at %d (%q|%q): CallStream = %q, %d, %v; equal %v", cut, msg[max(0, cut-8):cut], msg[cut:min(len(msg), cut+8)], r.raw, r.n, r.err, bytes.Equal(got.Bytes(), img))
		}
	}
}

// TestCallStreamOtherLayouts: a reply laid out otherwise than Chrome's
// (its id last) is read whole and its string still decoded to the writer;
// a string that is not base64 fails the call in words; a call given up
// by its context writes nothing more and the next call works.
func TestCallStreamOtherLayouts(t *testing.T) {
	root, f := newPipe(t, cdpconn.Options{})
	a, err := root.Attach(ctx5(t), "TA", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	img := []byte("a small image")
	data := base64.StdEncoding.EncodeToString(img)

	var got bytes.Buffer
	done := streamCall(t, a, &got)
	c := f.next()
	f.send(`{"result":{"data":"` + data + `","more":1},"sessionId":"S1","id":` + strconv.FormatUint(c.ID, 10) + `}`)
	if r := <-done; r.err != nil || !strings.Contains(r.raw, `"data":""`) || !strings.Contains(r.raw, `"more":1`) || got.String() != string(img) {
		t.Errorf("id last: CallStream = %q, %d, %v; wrote %q", r.raw, r.n, r.err, got.String())
	}

	got.Reset()
	done = streamCall(t, a, &got)
	f.reply(f.next(), `{"data":"not*base64!"}`)
	if r := <-done; r.err == nil || !strings.Contains(r.err.Error(), "not base64") {
		t.Errorf("not base64: %+v", r)
	}

	got.Reset()
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, _, err := a.CallStream(ctx, "Page.captureScreenshot", nil, "data", &got)
		gone <- err
	}()
	c = f.next()
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	f.reply(c, `{"data":"`+data+`"}`) // too late: read and dropped
	var ok struct{ OK bool }
	call2 := call(ctx5(t), a, "Next.call", &ok)
	f.reply(f.next(), `{"ok":true}`)
	if err := <-call2; err != nil || !ok.OK || got.Len() != 0 {
		t.Errorf("call after a cancelled one: %v %v; the cancelled one wrote %d bytes", ok, err, got.Len())
	}
}
