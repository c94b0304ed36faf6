package collectors

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var mainNavigation = Navigation{FrameID: mainFrame, MainFrame: true}

func logged(text string, args ...string) ConsoleEvent {
	return ConsoleEvent{Type: "log", Text: text, Args: values(args...)}
}

func values(vs ...string) []Arg {
	var args []Arg
	for _, v := range vs {
		args = append(args, Arg{Value: v})
	}
	return args
}

func msgIDs(msgs []Message) []int   { return pluck(msgs, func(m Message) int { return m.ID }) }
func texts(msgs []Message) []string { return pluck(msgs, func(m Message) string { return m.Text }) }

func TestConsoleSources(t *testing.T) {
	c := NewConsole(Config{})
	stack := []CallFrame{{Function: "f", URL: "https://a.test/app.js", Line: 9, Column: 4}}
	c.ConsoleAPICalled(ConsoleEvent{Type: "warning", Text: "careful", Args: values("careful"), Stack: stack})
	c.ExceptionThrown(ExceptionEvent{Text: "Uncaught Error: boom", Stack: stack, Ref: "obj-1"})
	c.IssueAdded(IssueEvent{Code: "MixedContentIssue", Key: "k1", Title: "Mixed content", Details: `{"url":"http://x"}`})
	c.ConsoleAPICalled(ConsoleEvent{Type: "startGroupCollapsed", Text: "group"})

	want := []Message{
		{ID: 1, Type: "warn", Text: "careful", Args: values("careful"), ArgCount: 1, Stack: stack},
		{ID: 2, Type: "error", Text: "Uncaught Error: boom", Stack: stack, Ref: "obj-1"},
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

	// The cause chain is read later and recorded on the message; a copy
	// handed out before does not change.
	before, _ := c.Message(2)
	c.SetCauses(2, []Cause{{Text: "TypeError: x is undefined"}})
	after, _ := c.Message(2)
	if !after.CausesRead || len(after.Causes) != 1 || after.Causes[0].Text != "TypeError: x is undefined" {
		t.Errorf("after SetCauses: Message(2) = %+v", after)
	}
	if before.CausesRead || before.Causes != nil {
		t.Errorf("copy taken before SetCauses changed: %+v", before)
	}
	c.SetCauses(99, nil) // unknown id: nothing happens
}

// TestConsoleLogEntries: the browser's own messages take ids in the
// stream of console calls, at the level they were logged, with no
// arguments, and group as upstream's do.
func TestConsoleLogEntries(t *testing.T) {
	c := NewConsole(Config{})
	const failed = "Failed to load resource: the server responded with a status of 404 (Not Found)"
	c.ConsoleAPICalled(logged("hi", "hi"))
	c.LogEntryAdded(LogEvent{Level: "error", Text: failed})
	c.LogEntryAdded(LogEvent{Level: "error", Text: failed})
	c.LogEntryAdded(LogEvent{Level: "warning", Text: "intervention"})
	c.ConsoleAPICalled(logged("bye", "bye"))
	want := []Message{
		{ID: 1, Type: "log", Text: "hi", Args: values("hi"), ArgCount: 1},
		{ID: 2, Type: "error", Text: failed},
		{ID: 3, Type: "error", Text: failed},
		{ID: 4, Type: "warn", Text: "intervention"},
		{ID: 5, Type: "log", Text: "bye", Args: values("bye"), ArgCount: 1},
	}
	got := c.List(MessageFilter{})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List() =\n%+v\nwant\n%+v", got, want)
	}
	if g := Group(got); len(g) != 4 || g[1].ID != 2 || g[1].Times != 2 {
		t.Errorf("Group(List()) = %+v, want the two failures as msgid 2, 2 times", g)
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
	a := Message{Type: "log", Text: "A", Args: values("A"), ArgCount: 1}
	b := Message{Type: "log", Text: "B", Args: values("B"), ArgCount: 1}
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
			name: "different number of args",
			msgs: []Message{with(a, 1), {ID: 2, Type: "log", Text: "A", Args: values("A", "x"), ArgCount: 2}},
			want: []entry{{1, "A", 1}, {2, "A", 1}},
		},
		{
			// As upstream: the text and count decide, not the values
			// ({} and {a: 1} both read "[object Object]").
			name: "same text and count, different values",
			msgs: []Message{
				{ID: 1, Type: "log", Text: "[object Object]", Args: []Arg{{Value: "[object Object]", Ref: "1"}}, ArgCount: 1},
				{ID: 2, Type: "log", Text: "[object Object]", Args: []Arg{{Value: "[object Object]", Ref: "2"}}, ArgCount: 1},
			},
			want: []entry{{1, "[object Object]", 2}},
		},
		{
			name: "different type",
			msgs: []Message{with(a, 1), {ID: 2, Type: "error", Text: "A", Args: values("A"), ArgCount: 1}},
			want: []entry{{1, "A", 1}, {2, "A", 1}},
		},
		{
			name: "uncaught errors are grouped",
			msgs: []Message{{ID: 1, Type: "error", Text: "Uncaught (in promise)"}, {ID: 2, Type: "error", Text: "Uncaught (in promise)"}},
			want: []entry{{1, "Uncaught (in promise)", 2}},
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

func TestConsoleBoundsOneMessage(t *testing.T) {
	c := NewConsole(Config{})
	var args []Arg
	for range maxArgs + 5 {
		args = append(args, Arg{Value: strings.Repeat("x", maxField+10)})
	}
	stack := make([]CallFrame, maxFrames+7)
	c.ConsoleAPICalled(ConsoleEvent{Type: "log", Text: strings.Repeat("y", maxField+1), Args: args, Stack: stack})
	m, _ := c.Message(1)
	if m.ArgCount != maxArgs+5 || len(m.Args) != maxArgs {
		t.Errorf("ArgCount, len(Args) = %d, %d, want %d, %d", m.ArgCount, len(m.Args), maxArgs+5, maxArgs)
	}
	if !strings.HasSuffix(m.Text, truncated) || !strings.HasSuffix(m.Args[0].Value, truncated) {
		t.Errorf("long text and argument not cut short")
	}
	if len(m.Stack) != maxFrames || m.MoreFrames != 7 {
		t.Errorf("len(Stack), MoreFrames = %d, %d, want %d, 7", len(m.Stack), m.MoreFrames, maxFrames)
	}
	c.ExceptionThrown(ExceptionEvent{Text: "Uncaught Error: x", Stack: stack})
	c.SetCauses(2, []Cause{{Text: "Error: cause", Stack: stack}})
	m, _ = c.Message(2)
	if len(m.Stack) != maxFrames || m.MoreFrames != 7 || len(m.Causes[0].Stack) != maxFrames || m.Causes[0].MoreFrames != 7 {
		t.Errorf("exception stack not cut to %d lines: %d+%d, cause %d+%d", maxFrames, len(m.Stack), m.MoreFrames, len(m.Causes[0].Stack), m.Causes[0].MoreFrames)
	}
}

// A page that logs huge messages forever is bounded by bytes, not only by
// count.
func TestConsoleByteBudget(t *testing.T) {
	c := NewConsole(Config{MaxBytes: 1 << 20})
	big := strings.Repeat("z", maxField)
	for range 1000 {
		c.ConsoleAPICalled(ConsoleEvent{Type: "log", Text: big, Args: values(big)})
	}
	n := len(c.List(MessageFilter{}))
	if n == 0 || n*2*maxField > 1<<20+2*maxField+1024 {
		t.Errorf("kept %d messages of %d bytes, want them to fit in 1 MiB", n, 2*maxField)
	}
}

func TestConsoleIssueDetailsBounded(t *testing.T) {
	c := NewConsole(Config{})
	for i := range maxIssueDetails + 20 {
		c.IssueAdded(IssueEvent{Code: "CorsIssue::InvalidHeaders", Key: fmt.Sprint(i), Details: "d"})
	}
	m, _ := c.Message(1)
	if m.Count != maxIssueDetails+20 || len(m.IssueDetails) != maxIssueDetails {
		t.Errorf("Count, len(IssueDetails) = %d, %d, want %d, %d", m.Count, len(m.IssueDetails), maxIssueDetails+20, maxIssueDetails)
	}
}

func TestIssueTitle(t *testing.T) {
	tests := []struct {
		code, want string
		ok         bool
	}{
		{"QuirksModeIssue", "Page layout may be unexpected due to Quirks Mode", true},
		{"GenericIssue::FormLabelForNameError", "Incorrect use of <label for=FORM_ELEMENT>", true},
		{"DeprecationIssue::UnloadHandler", "Deprecated feature used", true},
		{"CorsIssue::InvalidHeaders", "Ensure CORS response header values are valid", true},
		{"SomethingNewIssue", "", false},
	}
	for _, tt := range tests {
		if got, ok := IssueTitle(tt.code); got != tt.want || ok != tt.ok {
			t.Errorf("IssueTitle(%q) = %q, %v, want %q, %v", tt.code, got, ok, tt.want, tt.ok)
		}
	}
}
