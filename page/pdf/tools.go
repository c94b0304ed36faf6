package pdf

// save_pdf, the capability's one tool.

import (
	"context"
	"errors"
	"time"

	"github.com/tabhive/tabhive/transport/sandbox"
	"github.com/tabhive/tabhive/transport/tool"
)

// pdfBudget bounds save_pdf: Chrome lays out and renders every page of
// the document before the first byte comes back.
const pdfBudget = 60 * time.Second

// maxPDF bounds the file save_pdf writes, as page/script's maxResultFile
// bounds evaluate_script's.
const maxPDF = 256 << 20

// Tools returns the tools that print pages to PDF files.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "save_pdf", Description: "Saves the page as a PDF file, as the browser prints it (headless browser only).", Page: true},
			tool.Fixed[pdfArgs](pdfBudget), runSavePDF),
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

func runSavePDF(ctx context.Context, c tool.Call, a *pdfArgs) error {
	sb := c.Sandbox(ctx)
	if a.FilePath != "" {
		if _, err := sb.Resolve(a.FilePath); err != nil {
			return err
		}
	}
	opts := Options{Landscape: a.Landscape, PrintBackground: a.PrintBackground, PageRanges: a.PageRanges}
	for _, v := range []struct {
		dst *float64
		src *float64
	}{{&opts.Scale, a.Scale}, {&opts.PaperWidth, a.PaperWidth}, {&opts.PaperHeight, a.PaperHeight}} {
		if v.src != nil {
			*v.dst = *v.src
		}
	}
	// A new file in the session's private directory when the agent names
	// none (page-<random>.pdf, as @playwright/mcp's browser_pdf_save names
	// one when given no filename).
	f := sb.Lazy(sandbox.LazyOptions{Path: a.FilePath, Ext: ".pdf", Temp: "page.pdf"})
	pdf, err := Of(c.Page()).Print(ctx, opts, f, maxPDF)
	if err = f.Finish(err); err != nil {
		if errors.Is(err, ErrHeadful) {
			return errPDFHeadful
		}
		return err
	}
	c.Reply().State(pdf.State)
	c.Reply().Line("Saved the page as a PDF of %s to %s.", tool.Plural(int(pdf.Bytes), "byte"), f.Name())
	return nil
}
