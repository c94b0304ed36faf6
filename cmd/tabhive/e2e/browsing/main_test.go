// Package browsing tests, through the tabhive binary, how sessions share
// and bound the browser: sessions and their pages, storage state, client
// roots, the URL policy and the security tests around it, speculative
// loading, Chromium's arguments, a remote browser and routes. They are a
// test binary of their own, beside cmd/tabhive's, so that each stays well
// within go test's default timeout of 10 minutes on a loaded machine.
package browsing

import (
	"testing"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
)

func TestMain(m *testing.M) { tabhivetest.Main(m) }
