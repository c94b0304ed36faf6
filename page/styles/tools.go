package styles

// get_css_styles, the capability's one tool.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/page/css"
	"github.com/tabhive/tabhive/transport/tool"
)

// stylesBudget bounds get_css_styles: turning the CSS domain on waits for
// the page's style sheets to load, and a page with thousands of rules
// takes a while to match.
const stylesBudget = 30 * time.Second

// Tools returns the tools that inspect an element's styles.
func Tools() []*tool.Tool {
	return []*tool.Tool{
		tool.Define(tool.Tool{Name: "get_css_styles", Page: true, ReadOnly: true, Description: `Retrieve matched CSS rules, inline styles (element.style), inherited styles, custom properties, and cascade wrappers (@layer, @media, @container, @scope) for an element identified by its UID.
Rules are ordered from highest to lowest cascade precedence and include source line numbers (e.g. index:196). Active (winning) declarations have no prefix tag, while (losing) overridden declarations are prefixed with [overloaded].
Treat the output as authoritative and complete.
Results are paginated (10 rules per page by default); use pageIdx to page through the remaining rules. Requires a UID from take_snapshot.`},
			tool.Fixed[stylesArgs](stylesBudget), runStyles),
	}
}

type stylesArgs struct {
	UID      string `json:"uid" required:"true" desc:"The uid of the element on the page from the page content snapshot to inspect CSS styles for"`
	PageSize *int   `json:"pageSize" min:"1" desc:"Maximum number of CSS rules to return per page. Defaults to 10."`
	PageIdx  *int   `json:"pageIdx" min:"0" desc:"Page number to return (0-based). Defaults to 0 (the first page)."`
}

// defaultPageSize is get_css_styles' page size when none is given.
const defaultPageSize = 10

func runStyles(ctx context.Context, c tool.Call, a *stylesArgs) error {
	st, err := Of(c.Page()).Styles(ctx, a.UID)
	if errors.Is(err, ErrNotElement) {
		// Upstream's sentence, with its "Error: " prefix.
		return fmt.Errorf("Element with uid %q is not an element node and has no parent element.", a.UID)
	}
	if err != nil {
		return err
	}
	c.Reply().State(st.State)
	// Upstream always pages: its schema fills in both defaults.
	size, idx := defaultPageSize, 0
	if a.PageSize != nil {
		size = *a.PageSize
	}
	if a.PageIdx != nil {
		idx = *a.PageIdx
	}
	p := collectors.Paginate(st.Rules, collectors.PageOptions{PageSize: &size, PageIdx: &idx})
	for _, l := range tool.Pagination(p) {
		c.Reply().Line("%s", l)
	}
	c.Reply().Line("%s", css.Render(st.Element, a.UID, p.Items))
	return nil
}
