package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/internal/devtools/trace/model"
)

// eventKeys are DevTools' event keys, made of an event's position in the
// file: a filtered file numbers its events anew.
var eventKeys = regexp.MustCompile(`\b[rs]-\d+\b`)

// The recorded traces hold one tab each: taking out what is not the
// page's changes nothing of its analysis — the same summary (bounds,
// insight sets, metrics, flagged insights) and the same findings of each
// insight, event keys aside.
func TestFilterKeepsThePageAnalysis(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.json.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded traces: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json.gz"), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			scope, err := model.PageScope(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("PageScope = %v", err)
			}
			var filtered bytes.Buffer
			if err := model.Filter(bytes.NewReader(raw), &filtered, scope); err != nil {
				t.Fatalf("Filter = %v", err)
			}
			whole, err := Analyze(bytes.NewReader(raw), Options{})
			if err != nil {
				t.Fatal(err)
			}
			part, err := Analyze(bytes.NewReader(filtered.Bytes()), Options{})
			if err != nil {
				t.Fatalf("the filtered trace does not analyse: %v", err)
			}
			if got, want := eventKeys.ReplaceAllString(part.Summary(), "r-N"), eventKeys.ReplaceAllString(whole.Summary(), "r-N"); got != want {
				t.Errorf("the summary differs after filtering:\n got: %s\nwant: %s", got, want)
			}
			if len(part.Sets) != len(whole.Sets) {
				t.Fatalf("%d insight sets, want %d", len(part.Sets), len(whole.Sets))
			}
			for i, s := range whole.Sets {
				for _, name := range append([]string{""}, names(s)...) {
					want, _, _ := whole.Insight(s.ID, name)
					got, _, _ := part.Insight(part.Sets[i].ID, name)
					if name == "" {
						want, got = s.ID+s.URL, part.Sets[i].ID+part.Sets[i].URL
					}
					want, got = eventKeys.ReplaceAllString(want, "r-N"), eventKeys.ReplaceAllString(got, "r-N")
					if got != want {
						t.Errorf("set %s, insight %q differs after filtering:\n got: %s\nwant: %s", s.ID, name, got, want)
					}
				}
			}
		})
	}
}

func names(s *InsightSet) []string {
	var out []string
	for n := range s.States() {
		out = append(out, n)
	}
	return out
}
