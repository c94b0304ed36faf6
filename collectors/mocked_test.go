package collectors

import (
	"reflect"
	"testing"
)

// TestNetworkMocked: what a route did is kept with the hop it did it to,
// whether the interception reports it after the Network domain's event or
// before; the hop a fulfilled redirect leads to is not marked, nor is an
// unrelated request; a report for a hop never seen is kept within a bound.
func TestNetworkMocked(t *testing.T) {
	n := NewNetwork(Config{})
	n.RequestWillBeSent(sent("R1", "Fetch", "http://a.test/redir"))
	n.Mocked("R1", "http://a.test/redir", "fulfilled by route 1")
	next := sent("R1", "Fetch", "http://b.test/secret")
	next.RedirectResponse = &Response{Status: 302}
	n.RequestWillBeSent(next)
	n.LoadingFailed(FailedEvent{RequestID: "R1", ErrorText: "net::ERR_BLOCKED_BY_CLIENT"})

	n.Mocked("R2", "http://a.test/pic.png", "aborted by route 2") // before its request
	n.RequestWillBeSent(sent("R2", "Image", "http://a.test/pic.png"))
	n.RequestWillBeSent(sent("R3", "Fetch", "http://a.test/real"))

	var got []string
	for _, r := range n.List(RequestFilter{}) {
		got = append(got, r.Mocked)
	}
	if want := []string{"fulfilled by route 1", "", "aborted by route 2", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("Mocked of each hop = %q, want %q", got, want)
	}
	if r, _ := n.ByRequestID("R1"); r.RedirectChain[0].Mocked != "fulfilled by route 1" {
		t.Errorf("the redirect chain's hop lost its mark: %+v", r.RedirectChain[0])
	}

	for i := 0; i < 2*maxEarly; i++ {
		n.Mocked("never", "http://a.test/x", "fulfilled by route 1")
	}
	if len(n.earlyMocks) > maxEarly {
		t.Errorf("%d early route reports kept, want at most %d", len(n.earlyMocks), maxEarly)
	}
}
