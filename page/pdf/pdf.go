// Package pdf is the save_pdf capability: Page.printToPDF, streamed. Chrome renders the whole PDF, then
// hands it out through an IO stream a chunk at a time, so that neither the
// browser connection nor this process ever holds it in one message.

// It holds no state of its own on a page.
package pdf

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mafredri/cdp/rpcc"

	"github.com/tabhive/tabhive/page"
)

// hosts finds the Host a page's PDF printer prints through.
var hosts = page.RegisterStateless("pdf")

// Of returns page a's PDF printer.
func Of(a *page.Actor) *Printer { return &Printer{h: hosts.Of(a)} }

// Printer prints one page to PDF. It holds no state: its one method runs
// on the page's run goroutine, as every call to the page does.
type Printer struct{ h *page.Host }

// Options say how [Printer.Print] prints. The zero value prints every
// page on Letter paper, portrait, at scale 1, without backgrounds, as
// Chrome does.
type Options struct {
	Landscape       bool
	PrintBackground bool
	// Scale is the rendering scale, 0.1 to 2; 0 means 1.
	Scale float64
	// PaperWidth and PaperHeight are in inches; 0 means Chrome's 8.5 by 11.
	PaperWidth, PaperHeight float64
	// PageRanges are the pages to print, one-based, such as "1-5, 8"; ""
	// prints them all.
	PageRanges string
}

// PDF is what [Printer.Print] wrote.
type PDF struct {
	// Bytes is the size of the PDF written.
	Bytes int64
	page.State
}

// ErrHeadful is returned by [Printer.Print] when the browser cannot print
// to PDF: Chrome does so only when headless.
var ErrHeadful = errors.New("the browser prints to PDF only when headless")

// Error reports a PDF that cannot be made as asked: its Error text is
// the sentence the agent reads.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// pdfChunk is how much of the PDF each IO.read asks for.
const pdfChunk = 1 << 20

// Print prints the page to PDF into w, a chunk at a time, and fails with
// an [*Error] once more than max bytes would be written. w is written from
// a goroutine of the call, never after Print returns.
func (p *Printer) Print(ctx context.Context, opts Options, w io.Writer, max int64) (PDF, error) {
	h := p.h
	return page.Do(ctx, h, func(ctx context.Context) (PDF, error) {
		if err := h.NeedRenderer(); err != nil {
			return PDF{}, err
		}
		var n int64
		err := h.Call(ctx, func(ctx context.Context) (err error) {
			n, err = printPDF(ctx, h.Top().RPC(), opts, w, max)
			return err
		})
		return PDF{Bytes: n, State: h.State()}, err
	})
}

// printPDF asks for the PDF as a stream and copies it to w. It runs on a
// call goroutine.
func printPDF(ctx context.Context, rpc *rpcc.Conn, opts Options, w io.Writer, max int64) (int64, error) {
	args := map[string]any{"transferMode": "ReturnAsStream", "landscape": opts.Landscape, "printBackground": opts.PrintBackground}
	if opts.Scale != 0 {
		args["scale"] = opts.Scale
	}
	if opts.PaperWidth != 0 {
		args["paperWidth"] = opts.PaperWidth
	}
	if opts.PaperHeight != 0 {
		args["paperHeight"] = opts.PaperHeight
	}
	if opts.PageRanges != "" {
		args["pageRanges"] = opts.PageRanges
	}
	var printed struct {
		Stream string `json:"stream"`
	}
	if err := rpcc.Invoke(ctx, "Page.printToPDF", args, &printed, rpc); err != nil {
		return 0, pdfError(err, opts)
	}
	if printed.Stream == "" {
		return 0, errors.New("print to PDF: Chrome returned no stream")
	}
	defer func() {
		// The stream holds the PDF in the browser until closed, even when
		// the caller gave up.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		rpcc.Invoke(cctx, "IO.close", map[string]string{"handle": printed.Stream}, nil, rpc)
	}()
	var written int64
	for {
		var chunk struct {
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
			Base64Encoded bool   `json:"base64Encoded"`
		}
		if err := rpcc.Invoke(ctx, "IO.read", map[string]any{"handle": printed.Stream, "size": pdfChunk}, &chunk, rpc); err != nil {
			return written, fmt.Errorf("read the PDF from the browser: %w", err)
		}
		data := []byte(chunk.Data)
		if chunk.Base64Encoded {
			var err error
			if data, err = base64.StdEncoding.DecodeString(chunk.Data); err != nil {
				return written, fmt.Errorf("read the PDF from the browser: %w", err)
			}
		}
		if written+int64(len(data)) > max {
			return written, &Error{Msg: fmt.Sprintf("The PDF is larger than %d MB, the most save_pdf writes. Print fewer pages with pageRanges.", max>>20)}
		}
		n, err := w.Write(data)
		written += int64(n)
		if err != nil {
			return written, err
		}
		if chunk.EOF {
			return written, nil
		}
	}
}

// pdfError words Chrome's refusals of Page.printToPDF.
func pdfError(err error, opts Options) error {
	var re *rpcc.ResponseError
	if !errors.As(err, &re) {
		return fmt.Errorf("print to PDF: %w", err)
	}
	msg := strings.ToLower(re.Message)
	switch {
	case strings.Contains(msg, "not implemented") || strings.Contains(msg, "not available"):
		return ErrHeadful
	case strings.Contains(msg, "page range"):
		return &Error{Msg: fmt.Sprintf("Invalid pageRanges %q: %s. Give pages such as \"1-5, 8\" within the document.", opts.PageRanges, strings.TrimSuffix(re.Message, "."))}
	case strings.Contains(msg, "invalid") || strings.Contains(msg, "out of range"):
		return &Error{Msg: fmt.Sprintf("Chrome cannot print with these settings: %s.", strings.TrimSuffix(re.Message, "."))}
	}
	return fmt.Errorf("print to PDF: %w", err)
}
