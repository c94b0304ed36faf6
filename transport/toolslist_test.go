package transport_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/transport/transporttest"
)

// TestNewToolsListed: tools/list offers the tools of agent state and
// network control.
func TestNewToolsListed(t *testing.T) {
	t.Parallel()
	cs := inMemory(t)
	names := transporttest.ToolNames(t, cs)
	all := strings.Join(names, " ")
	for _, want := range []string{"list_cookies", "set_cookie", "delete_cookies", "get_web_storage", "set_web_storage", "delete_web_storage",
		"save_storage_state", "load_storage_state", "route_requests", "list_routes", "unroute_requests", "save_pdf"} {
		if !regexp.MustCompile(`\b` + want + `\b`).MatchString(all) {
			t.Errorf("tools/list lacks %s: %s", want, all)
		}
	}
}
