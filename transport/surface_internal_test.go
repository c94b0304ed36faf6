package transport

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/tabhive/tabhive/page/input"
)

// everyTool returns every tool the server can offer: each category on,
// the coordinate tools, and the slim tools too.
func everyTool() []*tool {
	on := map[string]bool{}
	for c := range Categories {
		on[c] = true
	}
	full := (&Server{cfg: Config{Input: input.Config{ExperimentalVision: true}, Surface: SurfaceConfig{Categories: on}}}).toolList()
	slim := (&Server{cfg: Config{Surface: SurfaceConfig{Slim: true}}}).toolList()
	return append(full, slim...)
}

// TestEveryToolHasACategory: every tool is in one of chrome-devtools-mcp's
// groups, so that --category-* reaches it; a tool in none would be listed
// whatever the flags say.
func TestEveryToolHasACategory(t *testing.T) {
	tools := everyTool()
	if len(tools) < 40 {
		t.Fatalf("everyTool found %d tools", len(tools))
	}
	for _, tl := range tools {
		cat, ok := toolCategory[tl.name]
		if !ok {
			t.Errorf("%s is in no category", tl.name)
			continue
		}
		if _, known := Categories[cat]; !known {
			t.Errorf("%s is in category %q, which is not one of Categories", tl.name, cat)
		}
	}
	for _, name := range slimTools {
		if !slices.ContainsFunc(tools, func(tl *tool) bool { return tl.name == name }) {
			t.Errorf("slim tool %s is not defined", name)
		}
	}
}

// TestUpstreamDescriptions: the tools of the extension, PWA, WebMCP,
// third-party and slim groups read as chrome-devtools-mcp 1.11's, whose
// descriptions testdata/cdm-1.11-tools.json holds.
func TestUpstreamDescriptions(t *testing.T) {
	b, err := os.ReadFile("../testdata/cdm-1.11-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		Tools map[string]struct {
			Description string `json:"description"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tl := range everyTool() {
		switch toolCategory[tl.name] {
		case "extensions", "pwa", "experimentalWebmcp", "experimentalThirdParty":
		default:
			if !slices.Contains(slimTools, tl.name) {
				continue
			}
		}
		n++
		if want := u.Tools[tl.name].Description; tl.description != want {
			t.Errorf("%s's description = %q, want chrome-devtools-mcp's %q", tl.name, tl.description, want)
		}
	}
	if n != 16 {
		t.Errorf("compared %d tools' descriptions, want 16", n)
	}
}
