package transport_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tabhive/tabhive/transport"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestClosePageKeepsALastPage: two sessions close the last pages they see,
// 20 close_page calls at once, and a page always stays open: of the
// browser when sessions share it, of each session when they are isolated.
// The last-page check and the close are one decision of the supervisor's,
// so two calls cannot both find "another page is left" and close the last
// two.
func TestClosePageKeepsALastPage(t *testing.T) {
	t.Parallel()
	for _, isolate := range []bool{false, true} {
		t.Run(fmt.Sprintf("isolate=%v", isolate), func(t *testing.T) {
			t.Parallel()
			srv := transporttest.Start(t, transporttest.Options{Config: transport.Config{IsolateSessions: isolate}})
			sessions := []*mcp.ClientSession{srv.Connect(t), srv.Connect(t)}
			// Each session opens a page: sharing, the browser has three
			// (its first one too), all of them every session's; isolated,
			// each session has two of its own (the one it is given first,
			// and the one it opened).
			var mine [2][]int
			for i, cs := range sessions {
				must(t, cs, "list_pages", nil) // isolated: the session's first page
				must(t, cs, "new_page", map[string]any{"url": "about:blank"})
				mine[i] = pageIDs(t, must(t, cs, "list_pages", nil))
				if want := 2; isolate && len(mine[i]) != want {
					t.Fatalf("session %d lists %v, want %d pages of its own", i, mine[i], want)
				}
			}
			if !isolate {
				mine[0] = pageIDs(t, must(t, sessions[1], "list_pages", nil))
				mine[1] = mine[0]
			}

			var wg sync.WaitGroup
			replies := make([]string, 20)
			for n := range replies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := n % 2
					id := mine[s][(n/2)%len(mine[s])]
					text, _ := call(t, sessions[s], "close_page", map[string]any{"pageId": id})
					replies[n] = text
				}()
			}
			wg.Wait()
			for n, text := range replies {
				switch {
				case strings.Contains(text, "The last open page cannot be closed."),
					strings.Contains(text, "Error: No page found with id"),
					strings.Contains(text, "## Pages\n") && !strings.Contains(text, "Error"):
				default:
					t.Errorf("close_page %d: unexpected reply:\n%s", n, text)
				}
			}

			all, err := srv.Browser.Pages(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(all) == 0 {
				t.Fatalf("no page left open in the browser")
			}
			if isolate {
				// A session left with none would be given a new page by its
				// next call: the test asks the registry, not the session.
				for i := range sessions {
					left := 0
					for _, p := range all {
						if slices.Contains(mine[i], p.ID) {
							left++
						}
					}
					if left == 0 {
						t.Errorf("session %d has none of its pages %v left open (browser: %v)", i, mine[i], all)
					}
				}
			}
		})
	}
}

// pageIDs returns the ids of a page list.
func pageIDs(t *testing.T, list string) []int {
	t.Helper()
	var ids []int
	for _, m := range regexp.MustCompile(`(?m)^(\d+): `).FindAllStringSubmatch(list, -1) {
		var id int
		fmt.Sscan(m[1], &id)
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		t.Fatalf("no page in the list:\n%s", list)
	}
	return ids
}
