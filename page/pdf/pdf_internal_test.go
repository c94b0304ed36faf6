package pdf

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mafredri/cdp/rpcc"
)

// TestPDFError: Chrome's refusals of Page.printToPDF become sentences; a
// browser with a window (which cannot print to PDF) is ErrHeadful. A
// headed Chromium cannot run here, so its answer is given as Chrome words
// it.
func TestPDFError(t *testing.T) {
	opts := Options{PageRanges: "9"}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&rpcc.ResponseError{Code: -32000, Message: "PrintToPDF is not implemented"}, ErrHeadful.Error()},
		{fmt.Errorf("call: %w", &rpcc.ResponseError{Code: -32000, Message: "Page range exceeds page count"}), `Invalid pageRanges "9": Page range exceeds page count. Give pages such as "1-5, 8" within the document.`},
		{&rpcc.ResponseError{Code: -32602, Message: "invalid scale"}, "Chrome cannot print with these settings: invalid scale."},
		{errors.New("socket closed"), "print to PDF: socket closed"},
	} {
		if got := pdfError(tt.err, opts).Error(); got != tt.want {
			t.Errorf("pdfError(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
