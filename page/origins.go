package page

import (
	"context"
	"net/url"
	"slices"

	"github.com/tabhive/tabhive/actor"
)

// Origins returns the http and https origins the page's frames show, the
// main frame's first, from what the actor knows (no renderer is asked).
func (a *Actor) Origins(ctx context.Context) ([]string, error) {
	return actor.Ask(ctx, a.act, func(context.Context) ([]string, error) {
		var out []string
		if o := OriginOf(a.frames.url); o != "" {
			out = append(out, o)
		}
		for _, f := range a.frames.byID {
			if o := OriginOf(f.url); o != "" && !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		return out, nil
	})
}

// OriginOf returns the origin of an http or https URL, as
// scheme://host[:port]; "" for any other URL.
func OriginOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
