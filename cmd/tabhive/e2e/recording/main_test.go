// Package recording tests, through the tabhive binary, what records the
// screen at length: screencasts and their flags, the bounds on the files a
// session writes (a FIFO, a full disk, a recording that must end on its
// own) and a large screenshot's memory. Recordings take wall-clock time
// the browser sets, so they are a test binary of their own, beside
// cmd/tabhive's, so that each stays well within go test's default timeout
// of 10 minutes on a loaded machine.
package recording

import (
	"testing"

	"github.com/tabhive/tabhive/cmd/tabhive/internal/tabhivetest"
)

func TestMain(m *testing.M) { tabhivetest.Main(m) }
