package transport

import (
	"slices"
	"testing"
)

// everyTool returns every tool the server can offer: each category on,
// the coordinate tools, and the slim tools too.
func everyTool() []*tool {
	on := map[string]bool{}
	for c := range Categories {
		on[c] = true
	}
	full := (&Server{cfg: Config{ExperimentalVision: true, Surface: SurfaceConfig{Categories: on}}}).toolList()
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
