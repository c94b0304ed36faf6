package collectors

import (
	"fmt"
	"reflect"
	"testing"
)

var mainNavigation = Navigation{FrameID: mainFrame, MainFrame: true}

func logged(text string, args ...string) ConsoleEvent {
	return ConsoleEvent{Type: "log", Text: text, Args: args}
}

func msgIDs(msgs []Message) []int {
	out := make([]int, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func texts(msgs []Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text
	}
	return out
}

func TestConsoleSources(t *testing.T) {
	c := NewConsole(Config{})
	stack := []CallFrame{{Function: "f", URL: "https://a.test/app.js", Line: 9, Column: 4}}
	c.ConsoleAPICalled(ConsoleEvent{Type: "warning", Text: "careful", Args: []string{"careful"}, Stack: stack})
	c.ExceptionThrown(ExceptionEvent{
		Text:   "Uncaught Error: boom",
		Stack:  stack,
		Causes: []Cause{{Text: "TypeError: x is undefined"}},
	})
	c.IssueAdded(IssueEvent{Code: "MixedContentIssue", Key: "k1", Title: "Mixed content", Details: `{"url":"http://x"}`})
	c.ConsoleAPICalled(ConsoleEvent{Type: "startGroupCollapsed", Text: "group"})

	want := []Message{
		{ID: 1, Type: "warn", Text: "careful", Args: []string{"careful"}, Stack: stack},
		{ID: 2, Type: "error", Text: "Uncaught Error: boom", Stack: stack, Causes: []Cause{{Text: "TypeError: x is undefined"}}},
		{ID: 3, Type: TypeIssue, Text: "Mixed content", IssueCode: "MixedContentIssue", Count: 1, IssueDetails: []string{`{"url":"http://x"}`}},
		{ID: 4, Type: "startGroupCollapsed", Text: "group"},
	}
	if got := c.List(MessageFilter{}); !reflect.DeepEqual(got, want) {
		t.Errorf("List() =\n%+v\nwant\n%+v", got, want)
	}
	if got, ok := c.Message(2); !ok || !reflect.DeepEqual(got, want[1]) {
		t.Errorf("Message(2) = %+v, %v, want %+v, true", got, ok, want[1])
	}
	if _, ok := c.Message(5); ok {
		t.Errorf("Message(5) = true, want false")
	}
}

func TestConsoleFilterKeepsIDs(t *testing.T) {
	c := NewConsole(Config{})
	c.ConsoleAPICalled(logged("a"))
	c.ConsoleAPICalled(ConsoleEvent{Type: "error", Text: "b"})
	c.ConsoleAPICalled(ConsoleEvent{Type: "warning", Text: "c"})
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k"})
	c.ConsoleAPICalled(logged("e"))

	tests := []struct {
		types []string
		want  []int
	}{
		{types: nil, want: []int{1, 2, 3, 4, 5}},
		{types: []string{"log"}, want: []int{1, 5}},
		{types: []string{"warn", "issue"}, want: []int{3, 4}},
		{types: []string{"warning"}, want: []int{}},
		{types: []string{"debug"}, want: []int{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.types), func(t *testing.T) {
			if got := msgIDs(c.List(MessageFilter{Types: tt.types})); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("List(Types: %q) ids = %v, want %v", tt.types, got, tt.want)
			}
		})
	}
}

func TestGroup(t *testing.T) {
	a := Message{Type: "log", Text: "A", Args: []string{"A"}}
	b := Message{Type: "log", Text: "B", Args: []string{"B"}}
	issue := Message{Type: TypeIssue, Text: "Issue", IssueCode: "CookieIssue", Count: 1}
	with := func(m Message, id int) Message { m.ID = id; return m }

	type entry struct {
		id    int
		text  string
		times int
	}
	tests := []struct {
		name string
		msgs []Message
		want []entry
	}{
		{name: "empty", msgs: nil, want: []entry{}},
		{
			name: "A A B A",
			msgs: []Message{with(a, 1), with(a, 2), with(b, 3), with(a, 4)},
			want: []entry{{1, "A", 2}, {3, "B", 1}, {4, "A", 1}},
		},
		{
			name: "run of three keeps the first id",
			msgs: []Message{with(b, 7), with(a, 8), with(a, 9), with(a, 10)},
			want: []entry{{7, "B", 1}, {8, "A", 3}},
		},
		{
			name: "different args",
			msgs: []Message{with(a, 1), {ID: 2, Type: "log", Text: "A", Args: []string{"A", "x"}}},
			want: []entry{{1, "A", 1}, {2, "A", 1}},
		},
		{
			name: "different type",
			msgs: []Message{with(a, 1), {ID: 2, Type: "error", Text: "A", Args: []string{"A"}}},
			want: []entry{{1, "A", 1}, {2, "A", 1}},
		},
		{
			name: "issues are not grouped",
			msgs: []Message{with(issue, 1), with(issue, 2)},
			want: []entry{{1, "Issue", 1}, {2, "Issue", 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []entry{}
			for _, g := range Group(tt.msgs) {
				got = append(got, entry{g.ID, g.Text, g.Times})
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Group() = %v, want %v", got, tt.want)
			}
		})
	}
}

// Pagination applies after grouping, as upstream does.
func TestGroupThenPaginate(t *testing.T) {
	c := NewConsole(Config{})
	for _, text := range []string{"A", "A", "A", "B", "C", "C", "D"} {
		c.ConsoleAPICalled(logged(text, text))
	}
	page := Paginate(Group(c.List(MessageFilter{})), PageOptions{PageSize: new(2), PageIdx: new(1)})
	var got []string
	for _, g := range page.Items {
		got = append(got, fmt.Sprintf("%d:%s×%d", g.ID, g.Text, g.Times))
	}
	if want := []string{"5:C×2", "7:D×1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("page 1 = %q, want %q", got, want)
	}
	if page.Total != 4 || page.TotalPages != 2 {
		t.Errorf("Total, TotalPages = %d, %d, want 4, 2", page.Total, page.TotalPages)
	}
}

func TestConsoleIssueDeduplication(t *testing.T) {
	tests := []struct {
		name       string
		issues     []IssueEvent
		wantCodes  []string
		wantCounts []int
	}{
		{
			name:       "same key twice",
			issues:     []IssueEvent{{Code: "CookieIssue", Key: "k1"}, {Code: "CookieIssue", Key: "k1"}},
			wantCodes:  []string{"CookieIssue"},
			wantCounts: []int{1},
		},
		{
			name:       "two keys, same code",
			issues:     []IssueEvent{{Code: "CookieIssue", Key: "k1"}, {Code: "CookieIssue", Key: "k2"}},
			wantCodes:  []string{"CookieIssue"},
			wantCounts: []int{2},
		},
		{
			name:       "same key, different codes",
			issues:     []IssueEvent{{Code: "CookieIssue", Key: "k1"}, {Code: "MixedContentIssue", Key: "k1"}},
			wantCodes:  []string{"CookieIssue", "MixedContentIssue"},
			wantCounts: []int{1, 1},
		},
		{
			name: "repeated updates of an aggregate",
			issues: []IssueEvent{
				{Code: "CookieIssue", Key: "k1"}, {Code: "MixedContentIssue", Key: "m"},
				{Code: "CookieIssue", Key: "k2"}, {Code: "CookieIssue", Key: "k3"}, {Code: "CookieIssue", Key: "k2"},
			},
			wantCodes:  []string{"CookieIssue", "MixedContentIssue"},
			wantCounts: []int{3, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConsole(Config{})
			for _, ev := range tt.issues {
				c.IssueAdded(ev)
			}
			var codes []string
			var counts []int
			for _, m := range c.List(MessageFilter{}) {
				codes = append(codes, m.IssueCode)
				counts = append(counts, m.Count)
				if len(m.IssueDetails) != m.Count {
					t.Errorf("%s: len(IssueDetails) = %d, want Count %d", m.IssueCode, len(m.IssueDetails), m.Count)
				}
			}
			if !reflect.DeepEqual(codes, tt.wantCodes) || !reflect.DeepEqual(counts, tt.wantCounts) {
				t.Errorf("items = %q counts %v, want %q counts %v", codes, counts, tt.wantCodes, tt.wantCounts)
			}
		})
	}
}

func TestConsoleIssueCachesResetOnNavigation(t *testing.T) {
	c := NewConsole(Config{})
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k1", Title: "Cookie"})
	c.FrameNavigated(Navigation{FrameID: "CHILD"}) // not a split
	c.FrameNavigated(Navigation{FrameID: mainFrame, MainFrame: true, SameDocument: true})
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k1"})
	if got := c.List(MessageFilter{}); len(got) != 1 || got[0].Count != 1 {
		t.Fatalf("before navigation: List() = %+v, want one issue with count 1", got)
	}

	c.FrameNavigated(mainNavigation)
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k1", Title: "Cookie"})
	cur := c.List(MessageFilter{})
	if got, want := msgIDs(cur), []int{2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after navigation: ids = %v, want %v (a new aggregate)", got, want)
	}
	if cur[0].Count != 1 {
		t.Errorf("after navigation: Count = %d, want 1", cur[0].Count)
	}
	old, _ := c.Message(1)
	if old.Count != 1 {
		t.Errorf("old document's aggregate Count = %d, want 1 (not updated)", old.Count)
	}
}

func TestConsoleIssueAggregateDroppedByLimit(t *testing.T) {
	c := NewConsole(Config{MaxMessages: 2})
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k1"})
	c.ConsoleAPICalled(logged("a"))
	c.ConsoleAPICalled(logged("b")) // drops the aggregate
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "k2"})
	got := c.List(MessageFilter{})
	if want := []int{3, 4}; !reflect.DeepEqual(msgIDs(got), want) {
		t.Fatalf("ids = %v, want %v", msgIDs(got), want)
	}
	if got[1].Type != TypeIssue || got[1].Count != 1 {
		t.Errorf("new aggregate = %+v, want an issue with count 1", got[1])
	}
	if got, want := len(c.aggregates), 1; got != want {
		t.Errorf("len(aggregates) = %d, want %d", got, want)
	}
}

func TestConsoleIssueKeysBounded(t *testing.T) {
	c := NewConsole(Config{})
	for i := range maxIssueKeys + 50 {
		c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: fmt.Sprint(i)})
	}
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "0"}) // a repeat is still recognised
	msgs := c.List(MessageFilter{})
	if len(msgs) != 1 || msgs[0].Count != maxIssueKeys {
		t.Errorf("List() = %d items, count %d, want 1 item, count %d", len(msgs), msgs[0].Count, maxIssueKeys)
	}
	if got := len(c.seenIssues); got > maxIssueKeys {
		t.Errorf("len(seenIssues) = %d, want <= %d", got, maxIssueKeys)
	}
	c.FrameNavigated(mainNavigation)
	c.IssueAdded(IssueEvent{Code: "CookieIssue", Key: "new"})
	if got := c.List(MessageFilter{}); len(got) != 1 || got[0].Count != 1 {
		t.Errorf("after navigation: List() = %+v, want one issue with count 1", got)
	}
}

func TestConsoleKeepsThreeNavigations(t *testing.T) {
	c := NewConsole(Config{})
	for i := 1; i <= 4; i++ {
		if i > 1 {
			c.FrameNavigated(mainNavigation)
		}
		c.ConsoleAPICalled(logged(fmt.Sprintf("nav%d", i)))
	}
	if got, want := texts(c.List(MessageFilter{IncludePreserved: true})), []string{"nav2", "nav3", "nav4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List(IncludePreserved) = %q, want %q", got, want)
	}
	if got, want := msgIDs(c.List(MessageFilter{})), []int{4}; !reflect.DeepEqual(got, want) {
		t.Errorf("List() ids = %v, want %v", got, want)
	}
	if _, ok := c.Message(1); ok {
		t.Errorf("Message(1) = true after its navigation was dropped, want false")
	}
}

func TestConsoleLimit(t *testing.T) {
	c := NewConsole(Config{})
	for i := 1; i <= DefaultMaxMessages+1; i++ {
		c.ConsoleAPICalled(logged(fmt.Sprint(i)))
	}
	msgs := c.List(MessageFilter{})
	if got, want := len(msgs), DefaultMaxMessages; got != want {
		t.Fatalf("len(List()) = %d, want %d", got, want)
	}
	if msgs[0].ID != 2 || msgs[0].Text != "2" {
		t.Errorf("first kept = %d %q, want 2 %q", msgs[0].ID, msgs[0].Text, "2")
	}
	if _, ok := c.Message(1); ok {
		t.Errorf("Message(1) = true after it was dropped, want false")
	}

	// A page logging forever stays bounded.
	for i := range 20_000 {
		c.ConsoleAPICalled(logged("spam"))
		if i%5000 == 0 {
			c.FrameNavigated(mainNavigation)
		}
	}
	if got, max := c.store.Len(), keptSegments*DefaultMaxMessages; got > max {
		t.Errorf("store.Len() = %d, want <= %d", got, max)
	}
}
