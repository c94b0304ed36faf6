package storagestate

import (
	"fmt"
	"strings"
	"testing"
)

// TestPendingScript: the script names each pending origin's items in one
// string literal, parsed only in a document of one of them; a state of
// 3,000 origins of one item each stays near 150 KB.
func TestPendingScript(t *testing.T) {
	if s, err := PendingScript(nil); s != "" || err != nil {
		t.Errorf("PendingScript(nil) = %q, %v", s, err)
	}
	origins := map[string][]Item{}
	for i := range 3000 {
		origins[fmt.Sprintf("https://s%05d.example", i)] = []Item{{Name: "k", Value: fmt.Sprint("v", i)}}
	}
	s, err := PendingScript(origins)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("3,000 origins: %d bytes of script", len(s))
	if len(s) > 200<<10 {
		t.Errorf("the script of 3,000 origins is %d bytes", len(s))
	}
	if !strings.Contains(s, `\"https://s02999.example\":[[\"k\",\"v2999\"]]`) {
		t.Errorf("the script lacks an origin's items:\n%.300s", s)
	}
}
