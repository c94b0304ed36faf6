package transport_test

import "github.com/tabhive/tabhive/transport/transporttest"

// checkGolden is transporttest's, under the short name the tests of this
// package use; the golden replies are under testdata/replies.
var checkGolden = transporttest.CheckGolden
