// Package devtools tests, through the tabhive binary, the tools that drive
// Chromium's DevTools at length: performance traces and heap snapshots.
// They are a test binary of their own, beside cmd/tabhive's, so that each
// stays well within go test's default timeout of 10 minutes on a loaded
// machine.
package devtools

import (
	"testing"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
)

func TestMain(m *testing.M) { tabhivetest.Main(m) }
