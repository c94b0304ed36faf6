package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/transport/sandbox"
)

// pdfBudget bounds save_pdf: Chrome lays out and renders every page of
// the document before the first byte comes back.
const pdfBudget = 60 * time.Second

// maxPDF bounds the file save_pdf writes, as maxResultFile bounds
// evaluate_script's.
const maxPDF = 256 << 20

// pdfTools print pages to PDF files.
func (s *Server) pdfTools() []*tool {
	return []*tool{
		define(tool{name: "save_pdf", description: "Saves the page as a PDF file, as the browser prints it (headless browser only).", page: true},
			fixed[pdfArgs](pdfBudget), runSavePDF),
	}
}

type pdfArgs struct {
	FilePath        string   `json:"filePath" desc:"The absolute path, or a path relative to the current working directory, of the PDF file to write. Default: a new file in the session's private directory, named page-<random>.pdf; the reply says where."`
	Landscape       bool     `json:"landscape" desc:"Paper orientation: landscape if true. Default false (portrait)."`
	PrintBackground bool     `json:"printBackground" desc:"Whether to print background colors and images. Default false."`
	Scale           *float64 `json:"scale" min:"0.1" max:"2" desc:"Rendering scale, from 0.1 to 2. Default 1."`
	PaperWidth      *float64 `json:"paperWidth" min:"0.1" max:"200" desc:"Paper width in inches. Default 8.5 (Letter)."`
	PaperHeight     *float64 `json:"paperHeight" min:"0.1" max:"200" desc:"Paper height in inches. Default 11 (Letter)."`
	PageRanges      string   `json:"pageRanges" desc:"Pages to print, one-based, such as \"1-5, 8, 11-13\". Default: all."`
}

// errPDFHeadful is save_pdf's sentence for a browser with a window.
var errPDFHeadful = errors.New("save_pdf needs a headless browser: Chrome prints to PDF only when headless. Start tabhive with --headless, or connect it to a headless Chrome.")

func runSavePDF(ctx context.Context, c *call, a *pdfArgs) error {
	sb := c.sandbox(ctx)
	if a.FilePath != "" {
		if _, err := sb.Resolve(a.FilePath); err != nil {
			return err
		}
	}
	opts := page.PDFOptions{Landscape: a.Landscape, PrintBackground: a.PrintBackground, PageRanges: a.PageRanges}
	for _, v := range []struct {
		dst *float64
		src *float64
	}{{&opts.Scale, a.Scale}, {&opts.PaperWidth, a.PaperWidth}, {&opts.PaperHeight, a.PaperHeight}} {
		if v.src != nil {
			*v.dst = *v.src
		}
	}
	var f interface {
		io.Writer
		finish(error) error
		name() string
	}
	if a.FilePath != "" {
		f = &namedPDF{&resultFile{sb: sb, path: a.FilePath, ext: ".pdf"}}
	} else {
		f = &privatePDF{sb: sb}
	}
	pdf, err := c.page.PrintPDF(ctx, opts, f, maxPDF)
	if err = f.finish(err); err != nil {
		if errors.Is(err, page.ErrPDFHeadful) {
			return errPDFHeadful
		}
		return err
	}
	c.r.state(pdf.State)
	c.r.line("Saved the page as a PDF of %s to %s.", plural(int(pdf.Bytes), "byte"), f.name())
	return nil
}

// namedPDF is save_pdf's file at the agent's filePath.
type namedPDF struct{ *resultFile }

func (f *namedPDF) name() string { return f.saved }

// privatePDF is save_pdf's file when the agent names none: a new file in
// the session's private directory (page-<random>.pdf, as @playwright/mcp's
// browser_pdf_save names one when given no filename), created on the
// first write, as a resultFile is, and removed if the print fails. Like a
// resultFile it refuses a write that comes after the call gave up.
type privatePDF struct {
	sb *sandbox.Sandbox

	mu     sync.Mutex
	f      *sandbox.File // nil until the first write
	closed bool          // set by finish
}

func (p *privatePDF) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, errResultClosed
	}
	if p.f == nil {
		f, err := p.sb.CreateTemp("page.pdf")
		if err != nil {
			return 0, err
		}
		p.f = f
	}
	return p.f.Write(b)
}

func (p *privatePDF) name() string { return p.f.Name() }

func (p *privatePDF) finish(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.f == nil {
		return err
	}
	if cerr := p.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("could not write %s: %w", p.f.Name(), cerr)
	}
	if err != nil {
		os.Remove(p.f.Name())
	}
	return err
}
