package cdpconn_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// streamCall runs CallStream in the background.
func streamCall(t *testing.T, c *cdpconn.Conn, w *bytes.Buffer) <-chan streamResult {
	done := make(chan streamResult, 1)
	go func() {
		raw, n, err := c.CallStream(ctx5(t), "Page.captureScreenshot", map[string]any{"format": "png"}, "data", w)
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
	img := make([]byte, 3<<20+2) // not a multiple of 3: the string ends in padding
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
	var methods []string
	for _, e := range a.Take() {
		methods = append(methods, e.Method)
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
		raw, n, err := a.CallStream(ctx5(t), "Page.captureScreenshot", nil, "data", failAfter{})
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
