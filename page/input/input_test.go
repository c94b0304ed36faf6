package input_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/tabhive/tabhive/browser/browsertest"
	"github.com/tabhive/tabhive/page"
	"github.com/tabhive/tabhive/page/axsnapshot/axsnapshottest"
	"github.com/tabhive/tabhive/page/input"
	"github.com/tabhive/tabhive/page/pagetest"
	"github.com/tabhive/tabhive/transport/transporttest"
)

func TestMain(m *testing.M) { transporttest.Main(m) }

var (
	open  = pagetest.Open
	ctx   = pagetest.Ctx
	serve = pagetest.Serve
	uidOf = pagetest.UIDOf
	snap  = axsnapshottest.Text
)

// statusOf reads the text of the element with id "status" from a snapshot,
// which test pages use to report what they saw.
func statusOf(t *testing.T, a *page.Actor) string {
	t.Helper()
	s := snap(t, a)
	i := strings.Index(s, `"status: `)
	if i < 0 {
		t.Fatalf("no status line in:\n%s", s)
	}
	rest := s[i+len(`"status: `):]
	return rest[:strings.Index(rest, `"`)]
}

const statusScript = `<p id=report>status: none</p><script>function report(s) { document.getElementById('report').textContent = 'status: ' + s }</script>`

func TestClickDoubleAndHover(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Mouse", `<button ondblclick="report('dbl')" onclick="report('single')">Target</button>
<div onmouseover="report('hovered')" style="width:100px;height:40px">Hover zone</div>`+statusScript),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Target"), true, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "dbl" {
		t.Errorf("after double click, status = %q", got)
	}
	if _, err := input.Hover(ctx(t), a, uidOf(t, snap(t, a), "", "Hover zone"), page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "hovered" {
		t.Errorf("after hover, status = %q", got)
	}
	res, err := input.ClickAt(ctx(t), a, 20, 12, false, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Snapshot, "status: single") {
		t.Errorf("click_at on the button's coordinates did not click it:\n%s", res.Snapshot)
	}
}

func TestClickOptionSelectsIt(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Select", `<select id=s onchange="report(this.value)">
<option value=r>Red</option><optgroup label=Warm><option value=o>Orange</option></optgroup><option value=b>Blue</option></select>`+statusScript),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "option", "Orange"), false, page.InputOptions{}); err != nil {
		t.Fatalf("click on option in an optgroup = %v", err)
	}
	if got := statusOf(t, a); got != "o" {
		t.Errorf("status = %q, want o", got)
	}
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "option", "Blue"), false, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "b" {
		t.Errorf("status = %q, want b", got)
	}
}

func TestFillKinds(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Form", `<label>Name <input id=name></label>
<label>Agree <input type=checkbox id=agree onchange="report('agree=' + this.checked)"></label>
<label><input type=radio name=size value=s onchange="report('size=s')">Small</label>
<label><input type=radio name=size value=l onchange="report('size=l')">Large</label>
<div role=switch tabindex=0 aria-checked=false aria-label=Wifi style="width:40px;height:20px" onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') !== 'true'); report('wifi=' + this.getAttribute('aria-checked'))"></div>
<label>Color <select id=color onchange="report('color=' + this.value)"><option value="">Pick one</option><option value=r>Red</option><option value=g>Green</option></select></label>
<label>When <input type=date id=when onchange="report('when=' + this.value)"></label>
<label>Notes <textarea id=notes></textarea></label>`+statusScript),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	fill := func(role, name, value string) error {
		_, err := input.Fill(ctx(t), a, uidOf(t, s, role, name), value, page.InputOptions{})
		return err
	}
	for _, tt := range []struct{ role, name, value, want string }{
		{"checkbox", "Agree", "true", "agree=true"},
		{"checkbox", "Agree", "false", "agree=false"},
		{"radio", "Large", "true", "size=l"},
		{"switch", "Wifi", "true", "wifi=true"},
		{"combobox", "Color", "Green", "color=g"},
		{"combobox", "Color", "Pick one", "color="},
	} {
		if err := fill(tt.role, tt.name, tt.value); err != nil {
			t.Fatalf("Fill(%s %q, %q) = %v", tt.role, tt.name, tt.value, err)
		}
		if got := statusOf(t, a); got != tt.want {
			t.Errorf("Fill(%s %q, %q): status %q, want %q", tt.role, tt.name, tt.value, got, tt.want)
		}
	}
	// A toggle that is already in the asked state is left alone.
	if err := fill("switch", "Wifi", "true"); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "color=" {
		t.Errorf("filling a switch with its current state changed it: status %q", got)
	}
	var fe *input.FillValueError
	if err := fill("checkbox", "Agree", "yes"); !errors.As(err, &fe) || fe.Msg != `Checkboxes, radio boxes and toggles require "true" or "false" value, but yes was used` {
		t.Errorf("Fill(checkbox, yes) = %v", err)
	}
	if err := fill("combobox", "Color", "Purple"); !errors.As(err, &fe) || fe.Msg != `Could not find option with text "Purple"` {
		t.Errorf("Fill(select, Purple) = %v", err)
	}
	long := strings.Repeat("A long line of text. ", 200)
	if err := fill("textbox", "Notes", long); err != nil {
		t.Fatalf("Fill(textarea, long) = %v", err)
	}
	if !strings.Contains(snap(t, a), strings.TrimSpace(long[:100])) {
		t.Error("long text not in the textarea")
	}
	if err := fill("textbox", "Name", "Ada"); err != nil {
		t.Fatal(err)
	}
	if got := snap(t, a); !strings.Contains(got, `textbox "Name" focusable focused value="Ada"`) {
		t.Errorf("text not filled:\n%s", got)
	}
}

// TestFillFormFillsEachInOrder: two text inputs and a checkbox, each value
// landing in its own field.
func TestFillFormFillsEachInOrder(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Form", `<label>First <input id=a></label><label>Last <input id=b></label>
<label>Agree <input type=checkbox></label>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	res, err := input.FillForm(ctx(t), a, []input.FormField{
		{UID: uidOf(t, s, "textbox", "First"), Value: "Ada"},
		{UID: uidOf(t, s, "textbox", "Last"), Value: "Lovelace"},
		{UID: uidOf(t, s, "checkbox", "Agree"), Value: "true"},
	}, page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`textbox "First" value="Ada"`, `textbox "Last" value="Lovelace"`, `checkbox "Agree" checked focusable focused`} {
		if !strings.Contains(res.Snapshot, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, res.Snapshot)
		}
	}
}

func TestTypeTextAndSubmit(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Type", `<form onsubmit="event.preventDefault(); report('sent ' + q.value)"><input id=q aria-label=Query autofocus></form>`+statusScript),
	})
	a := open(t, base+"/")
	if _, err := input.Click(ctx(t), a, uidOf(t, snap(t, a), "textbox", "Query"), false, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := input.TypeText(ctx(t), a, "Héllo wörld!", "Enter", page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "sent Héllo wörld!" {
		t.Errorf("status = %q", got)
	}
	var ke *input.KeyError
	if _, err := input.TypeText(ctx(t), a, "x", "Entr", page.InputOptions{}); !errors.As(err, &ke) {
		t.Errorf("TypeText with a bad submit key = %v, want KeyError", err)
	}
}

// TestPressKeyReleasesModifiersOnFailure: a key whose keydown handler opens
// an alert never has its press acknowledged; Control must still be released
// once the dialog is gone (upstream #2309).
func TestPressKeyReleasesModifiersOnFailure(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Keys", `<input aria-label=Box autofocus onkeydown="if (event.key === 'b') alert('stop'); report(event.key + (event.ctrlKey ? '+ctrl' : ''))">`+statusScript),
	})
	a := open(t, base+"/")
	if _, err := input.Click(ctx(t), a, uidOf(t, snap(t, a), "textbox", "Box"), false, page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := input.PressKey(ctx(t), a, "Control+b", page.InputOptions{})
	if err != nil {
		t.Fatalf("PressKey = %v", err)
	}
	if !res.Dialog {
		t.Fatalf("PressKey result %+v, want the dialog reported", res)
	}
	if _, err := a.HandleDialog(ctx(t), true, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := input.PressKey(ctx(t), a, "a", page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "a" {
		t.Errorf("after the failed Control+b, pressing a gives %q: Control is still held", got)
	}
}

func TestDrag(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Drag", `<div role=button draggable=true id=item ondragstart="event.dataTransfer.setData('text/plain', 'item')">Item</div>
<div id=zone role=region aria-label=Zone style="width:200px;height:100px;border:1px solid" ondragover="event.preventDefault()" ondrop="event.preventDefault(); report('dropped ' + event.dataTransfer.getData('text/plain'))">Drop here</div>`+statusScript),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	if _, err := input.Drag(ctx(t), a, uidOf(t, s, "button", "Item"), uidOf(t, s, "region", "Zone"), page.InputOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := statusOf(t, a); got != "dropped item" {
		t.Errorf("status = %q, want dropped item", got)
	}
}

func TestFillAndPressKey(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/": browsertest.HTML("Form", `<form onsubmit="event.preventDefault(); out.textContent = 'Submitted ' + first.value + ' ' + notes.value">
<label>First <input id=first value=old></label>
<label>Notes <textarea id=notes></textarea></label>
<button>Send</button></form><p id=out></p><p id=log></p>
<script>addEventListener('keydown', e => log.textContent += 'down:' + e.key + (e.ctrlKey ? '+ctrl' : '') + ' ');
addEventListener('keyup', e => log.textContent += 'up:' + e.key + ' ');</script>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "First"), "Ada", page.InputOptions{}); err != nil {
		t.Fatalf("Fill(input) = %v", err)
	}
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "Notes"), "line one\nline two", page.InputOptions{}); err != nil {
		t.Fatalf("Fill(textarea) = %v", err)
	}
	s = snap(t, a)
	if !strings.Contains(s, `textbox "First" focusable value="Ada"`) && !strings.Contains(s, `value="Ada"`) {
		t.Errorf("input not filled:\n%s", s)
	}
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "First"), "", page.InputOptions{}); err != nil {
		t.Fatalf("Fill(empty) = %v", err)
	}
	if strings.Contains(snap(t, a), `value="Ada"`) {
		t.Errorf("empty fill left the old value")
	}
	if _, err := input.Fill(ctx(t), a, uidOf(t, s, "textbox", "First"), "Grace", page.InputOptions{}); err != nil {
		t.Fatalf("Fill = %v", err)
	}
	res, err := input.PressKey(ctx(t), a, "Enter", page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("PressKey(Enter) = %v", err)
	}
	if !strings.Contains(res.Snapshot, "Submitted Grace line one") {
		t.Fatalf("Enter did not submit the form:\n%s", res.Snapshot)
	}
	res, err = input.PressKey(ctx(t), a, "Control+a", page.InputOptions{IncludeSnapshot: true})
	if err != nil {
		t.Fatalf("PressKey(Control+a) = %v", err)
	}
	if !strings.Contains(res.Snapshot, "down:Control+ctrl down:a+ctrl up:a up:Control") {
		t.Errorf("modifier not pressed and released in order:\n%s", res.Snapshot)
	}
	if _, err := input.PressKey(ctx(t), a, "Control+Nope", page.InputOptions{}); err == nil {
		t.Errorf("PressKey(unknown key) succeeded")
	}
}

func TestClickInIframe(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]http.Handler{
		"/":      browsertest.HTML("Outer", `<div style="height:300px">spacer</div><iframe src="/inner" style="margin-left:200px" width=400 height=200></iframe>`),
		"/inner": browsertest.HTML("Inner", `<div style="height:50px"></div><button onclick="this.textContent='Frame clicked'">Frame button</button>`),
	})
	a := open(t, base+"/")
	s := snap(t, a)
	if _, err := input.Click(ctx(t), a, uidOf(t, s, "button", "Frame button"), false, page.InputOptions{}); err != nil {
		t.Fatalf("Click = %v", err)
	}
	if got := snap(t, a); !strings.Contains(got, `button "Frame clicked"`) {
		t.Fatalf("click did not reach the button inside the iframe:\n%s", got)
	}
}
