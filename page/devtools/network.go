package devtools

// The network: requests as collected (slice.go), with their bodies read
// from Chrome when asked for.

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/mafredri/cdp"
	"github.com/mafredri/cdp/protocol/network"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/page"
)

// ErrNoRequest is returned by [Slice.NetworkRequest] for a reqid that names
// no request kept for the page.
var ErrNoRequest = errors.New("no network request with that reqid")

// NetworkFilter selects requests for [Slice.NetworkRequests].
type NetworkFilter struct {
	// ResourceTypes keeps only requests of these resource types, compared
	// without regard to case ("xhr" matches CDP's "XHR"); empty keeps all.
	ResourceTypes []string
	// IncludePreserved lists the current and the two previous navigations
	// instead of the current one only.
	IncludePreserved bool
}

// NetworkList is a page's network requests.
type NetworkList struct {
	// Requests are in the order they were sent; each hop of a redirect is
	// a request of its own.
	Requests []collectors.Request
	page.State
}

// NetworkRequests returns the page's network requests that f selects.
func (sl *Slice) NetworkRequests(ctx context.Context, f NetworkFilter) (NetworkList, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (NetworkList, error) {
		h.ApplyEvents()
		reqs := sl.network.List(collectors.RequestFilter{ResourceTypes: f.ResourceTypes, IncludePreserved: f.IncludePreserved})
		return NetworkList{Requests: reqs, State: h.State()}, nil
	})
}

// NetworkDetail is one request with its bodies read from the page.
type NetworkDetail struct {
	collectors.Request
	// PostData is the request body, if the request has one; PostDataOK
	// reports whether it could be read.
	PostData   []byte
	PostDataOK bool
	// Body is the response body, if the request has a response; BodyOK
	// reports whether it could be read: not for a redirect, a failed load,
	// or a body Chrome no longer keeps.
	Body   []byte
	BodyOK bool
	page.State
}

// maxBodyRead bounds reading one body from the page.
const maxBodyRead = 10 * time.Second

// NetworkRequest returns the request with the given reqid with its request
// and response bodies, or [ErrNoRequest]. Like every tool that needs the
// renderer, it fails with a [*page.DialogError] while a dialog is open.
func (sl *Slice) NetworkRequest(ctx context.Context, id int) (NetworkDetail, error) {
	h := sl.h
	return page.Do(ctx, h, func(ctx context.Context) (NetworkDetail, error) {
		if err := h.NeedRenderer(); err != nil {
			return NetworkDetail{}, err
		}
		h.ApplyEvents()
		r, ok := sl.network.Request(id)
		if !ok {
			return NetworkDetail{}, ErrNoRequest
		}
		d := NetworkDetail{Request: r}
		if r.HasPostData {
			if r.PostData != "" {
				d.PostData, d.PostDataOK = []byte(r.PostData), true
			} else {
				d.PostData, d.PostDataOK = sl.requestBody(ctx, h.SessionOf(r.FrameID).Client(), r.RequestID)
			}
		}
		// A redirected hop shares its CDP id with the next hop, whose body
		// Chrome would return; Puppeteer reports none for it, and none for
		// a load that failed after its response.
		if latest, ok := sl.network.ByRequestID(r.RequestID); r.Response != nil && !r.Failed && ok && latest.ID == r.ID {
			d.Body, d.BodyOK = sl.responseBody(ctx, h.SessionOf(r.FrameID).Client(), r.RequestID)
		}
		d.State = h.State()
		return d, nil
	})
}

// requestBody reads a request's body through c, the client of the session
// that saw it: an out-of-process iframe's requests are its session's.
func (sl *Slice) requestBody(ctx context.Context, c *cdp.Client, requestID string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, maxBodyRead)
	defer cancel()
	var reply *network.GetRequestPostDataReply
	err := sl.h.Call(ctx, func(ctx context.Context) (err error) {
		reply, err = c.Network.GetRequestPostData(ctx, network.NewGetRequestPostDataArgs(network.RequestID(requestID)))
		return err
	})
	if err != nil || reply.PostData == "" {
		return nil, false
	}
	return []byte(reply.PostData), true
}

// responseBody reads a response's body through c, as requestBody.
func (sl *Slice) responseBody(ctx context.Context, c *cdp.Client, requestID string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(ctx, maxBodyRead)
	defer cancel()
	var reply *network.GetResponseBodyReply
	err := sl.h.Call(ctx, func(ctx context.Context) (err error) {
		reply, err = c.Network.GetResponseBody(ctx, network.NewGetResponseBodyArgs(network.RequestID(requestID)))
		return err
	})
	if err != nil {
		return nil, false
	}
	if !reply.Base64Encoded {
		return []byte(reply.Body), true
	}
	body, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, strings.NewReader(reply.Body)))
	if err != nil {
		return nil, false
	}
	return body, true
}
