package cdpconn_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/browser/cdpconn"
)

// fakeChrome answers every request with an empty result, after sending the
// events it was given, in order.
func fakeChrome(t *testing.T, events []string) string {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
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
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
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
	c, err := cdpconn.Dial(ctx, url, func(m string) bool { return !strings.HasPrefix(m, "Noise.") })
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

func TestOversizedMessageRefused(t *testing.T) {
	url := fakeChrome(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := cdpconn.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := map[string]string{"expression": strings.Repeat("x", 5<<20)}
	err = rpcc.Invoke(ctx, "Runtime.evaluate", big, nil, c.RPC())
	if err == nil || !strings.Contains(err.Error(), "over the 4 MiB") {
		t.Fatalf("oversized message: %v", err)
	}
	// The connection is still good.
	if err := rpcc.Invoke(ctx, "Runtime.evaluate", map[string]string{"expression": "1"}, nil, c.RPC()); err != nil {
		t.Fatalf("after an oversized message: %v", err)
	}
}
