package browsing

import (
	"strings"
	"testing"
	"time"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
	"github.com/tabhive/tabhive/internal/testwait"
	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestSpeculationRulesThroughBinary: with --allowed-url-pattern, speculation
// rules an agent's script adds (prefetch and prerender of a site outside
// the list) reach nothing, and the page's navigation there is refused
// rather than served from a speculative copy.
func TestSpeculationRulesThroughBinary(t *testing.T) {
	outside := newWitness(t, map[string]string{"/secret": "<title>Outside</title><p>outside content</p>"})
	allowed := newWitness(t, map[string]string{"/": "<title>Allowed</title><p>allowed</p>"})
	in := tabhivetest.StartHTTP(t, "--allowed-url-pattern", allowed.url+"/*")
	cs := in.Client(nil)
	transporttest.Must(t, cs, "navigate_page", map[string]any{"url": allowed.url + "/", "timeout": 60000})
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": `() => {
  const s = document.createElement('script'); s.type = 'speculationrules';
  s.textContent = JSON.stringify({prefetch: [{source: 'list', urls: ['` + outside.url + `/secret', '/allowed-prefetch']}],
    prerender: [{source: 'list', urls: ['` + outside.url + `/secret', '/allowed-prerender']}]});
  document.head.append(s); return 1 }`})
	// With speculative loading on, the allowed candidates are fetched at
	// once; with it off nothing comes: a non-event, watched for 3 s.
	testwait.Poll(3*time.Second, func() bool { return allowed.asked("/allowed-prerender") })
	transporttest.Must(t, cs, "evaluate_script", map[string]any{"function": `() => { setTimeout(() => location.href = '` + outside.url + `/secret'); return 1 }`})
	testwait.Until(t, "the page to leave", func() bool {
		return !strings.Contains(transporttest.Must(t, cs, "take_snapshot", nil), `"Allowed"`)
	})
	if got := transporttest.Must(t, cs, "take_snapshot", nil); strings.Contains(got, "outside content") {
		t.Errorf("the page shows the site outside the allow list:\n%s", got)
	}
	if p := outside.paths(); len(p) > 0 {
		t.Errorf("the site outside the allow list was asked for %v", p)
	}
}
