// Package lighthouse tests lighthouse_audit through the tabhive binary:
// audits beside other sessions, the one-time DevTools endpoint an audit
// opens and keeps from pages, and installing the Lighthouse CLI. Each
// audit takes minutes on a loaded machine, so they are a test binary of
// their own, beside cmd/tabhive's, so that each stays well within go
// test's default timeout of 10 minutes.
package lighthouse

import (
	"testing"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
)

func TestMain(m *testing.M) { tabhivetest.Main(m) }
