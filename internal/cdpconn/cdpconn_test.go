package cdpconn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/internal/cdpconn"
)

// serveWS serves one WebSocket browser endpoint per connection, talking
// through browser, until the test ends, and returns the endpoint's URL.
func serveWS(t *testing.T, browser func(c *websocket.Conn)) string {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		browser(c)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// fakeChrome answers every request with an empty result, after sending the
// events it was given, in order.
func fakeChrome(t *testing.T, events []string) string {
	return serveWS(t, func(c *websocket.Conn) {
		for {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			var req struct {
				ID uint64 `json:"id"`
			}
			json.Unmarshal(msg, &req)
			for _, e := range events {
				c.WriteMessage(websocket.TextMessage, []byte(e))
			}
			c.WriteMessage(websocket.TextMessage, []byte(`{"id":`+strconvU(req.ID)+`,"result":{}}`))
		}
	})
}

// chromePipes are the two pipes of a browser launched with
// --remote-debugging-pipe: what it writes (fromChrome, chromeOut) and what
// it reads (chromeIn, toChrome). The browser's ends are closed when the
// test ends.
func chromePipes(t *testing.T) (fromChrome, chromeOut, chromeIn, toChrome *os.File) {
	t.Helper()
	fromChrome, chromeOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chromeOut.Close() })
	chromeIn, toChrome, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chromeIn.Close() })
	return fromChrome, chromeOut, chromeIn, toChrome
}

func strconvU(u uint64) string { b, _ := json.Marshal(u); return string(b) }

func TestEventsInOrderAndFiltered(t *testing.T) {
	url := fakeChrome(t, []string{
		`{"method":"Network.requestWillBeSent","params":{"n":1}}`,
		`{"method":"Noise.ignored","params":{}}`,
		`{"method":"Page.frameNavigated","params":{"n":2}}`,
		`{"method":"Network.loadingFinished","params":{"n":3}}`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdpconn.Dial(ctx, url, cdpconn.Options{Keep: func(m string) bool { return !strings.HasPrefix(m, "Noise.") }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := rpcc.Invoke(ctx, "Page.enable", nil, nil, c.RPC()); err != nil {
		t.Fatalf("Invoke = %v", err)
	}
	// The events came before the reply on the socket, so they are queued.
	var got []string
	for _, e := range c.Take() {
		got = append(got, e.Method+string(e.Params))
	}
	want := []string{`Network.requestWillBeSent{"n":1}`, `Page.frameNavigated{"n":2}`, `Network.loadingFinished{"n":3}`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events = %v, want %v", got, want)
	}
}

// A message far bigger than one write buffer goes out whole, as several
// frames. The deadline only stops a hung test: 5 MiB through a WebSocket
// under -race took more than 5 s on a loaded 2-core machine.
func TestLargeMessage(t *testing.T) {
	url := fakeChrome(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := cdpconn.Dial(ctx, url, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := map[string]string{"expression": strings.Repeat("x", 5<<20)}
	if err := rpcc.Invoke(ctx, "Runtime.evaluate", big, nil, c.RPC()); err != nil {
		t.Fatalf("5 MiB message: %v", err)
	}
}

// A call cut short by the connection closing is told apart from an error
// Chrome answered with.
func TestIsClosed(t *testing.T) {
	url := serveWS(t, func(c *websocket.Conn) {
		// The first request gets an error reply; the second closes the
		// socket, as a target going away does.
		var req struct {
			ID uint64 `json:"id"`
		}
		_, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		json.Unmarshal(msg, &req)
		c.WriteMessage(websocket.TextMessage, []byte(`{"id":`+strconvU(req.ID)+`,"error":{"code":-32000,"message":"No node with given id"}}`))
		c.ReadMessage()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdpconn.Dial(ctx, url, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Client.DOM.DescribeNode(ctx, nil)
	if err == nil || cdpconn.IsClosed(err) {
		t.Fatalf("error reply: IsClosed(%v) = true, want false", err)
	}
	_, err = c.Client.DOM.DescribeNode(ctx, nil)
	if !cdpconn.IsClosed(err) {
		t.Fatalf("closed socket: IsClosed(%v) = false, want true", err)
	}
	if cdpconn.IsClosed(nil) {
		t.Fatal("IsClosed(nil) = true")
	}
}

// A call whose write fails because Chrome's end of the pipe is gone (the
// browser died, and the reader has not seen the end of its output yet) is
// a closed connection too, not the pipe's own "broken pipe" error: agents
// got "Snapshot: cdp.Runtime: CallFunctionOn: write |1: broken pipe." from
// TestStress when a call wrote in that moment.
func TestIsClosedOnBrokenPipe(t *testing.T) {
	fromChrome, _, chromeIn, toChrome := chromePipes(t) // Chrome's output kept open: the reader sees no end
	chromeIn.Close()                                    // Chrome is gone: writes fail with EPIPE
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdpconn.DialPipe(ctx, fromChrome, toChrome, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Client.DOM.DescribeNode(ctx, nil)
	if !cdpconn.IsClosed(err) {
		t.Fatalf("write on a broken pipe: IsClosed(%v) = false, want true", err)
	}
}
