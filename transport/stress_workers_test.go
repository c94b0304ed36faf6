// The stress suite's page workers (see stress_test.go): each drives one
// page of one session as an agent would, and keeps its own log of what the
// page must record.

package transport_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tabhive/tabhive/internal/testwait"
)

// stressWorker drives one page of one session, as one agent would: it
// keeps a page open, acts on it at random, answers what faults do to it,
// and keeps its own log of what the page's DOM must record.
type stressWorker struct {
	r    *stressRun
	s    *stressSession
	name string // "s3p1": session 3, page slot 1
	rng  *rand.Rand
	// pageID is the page the worker drives, 0 while it has none. The fault
	// goroutine reads it to pick its victims.
	pageID atomic.Int64

	// Owned by the worker's goroutine.
	id     int // the page the worker drives
	lastID int // the last page it drove, after it closed it
	visits int // numbers the documents it loads
	// label names the document loaded in the page; "" when the worker
	// no longer knows (a navigation failed, the renderer crashed), and
	// must load a fresh one before acting.
	label string
	// button and field are the uids of the record page's controls in the
	// page's latest snapshot; "" until the worker takes one.
	button, field string
	seq           int // numbers fill values and eval tokens
	want          stressRecord
	lastCheck     time.Time
	checking      bool // a read-back is under way
}

// stressRecord is a worker's log of what it did to the current document,
// which the document's DOM must match. An action whose call failed may or
// may not have happened ("maybe"); one that succeeded must be there.
type stressRecord struct {
	clicks, maybeClicks int
	entries             []stressEntry // fills and evals, in the order sent
	// history lists the worker's actions on the document and the first
	// line of their replies, for the failure message.
	history []string
}

type stressEntry struct {
	text    string // as the page records it
	certain bool
}

func (r *stressRun) newWorker(s *stressSession, session, slot int) *stressWorker {
	return &stressWorker{
		r: r, s: s,
		name: fmt.Sprintf("s%dp%d", session, slot),
		rng:  rand.New(rand.NewPCG(r.seed, uint64(1+session*r.cfg.pages+slot))),
	}
}

func (w *stressWorker) call(tool string, args map[string]any) stressReply {
	return w.r.call(w.s, w.name, tool, args)
}

// did notes an action and its reply in the worker's history of the
// document.
func (w *stressWorker) did(what string, rep stressReply) {
	first, _, _ := strings.Cut(rep.text, "\n")
	w.want.history = append(w.want.history, fmt.Sprintf("%s %s: %s", w.r.since(), what, first))
}

func (w *stressWorker) failf(format string, args ...any) {
	w.r.failf(w.name+": "+format+"\n(at %s; faults on page %d: %s)", append(args, w.r.since(), w.id, w.r.faultsOn(w.id))...)
}

// work runs the worker until end, then reads its page back a last time and
// closes it.
func (w *stressWorker) work(end time.Time) {
	time.Sleep(time.Duration(w.rng.Int64N(int64(w.r.cfg.rampUp)))) // the load's ramp-up, not a wait
	if !w.reopen() {
		return
	}
	for time.Now().Before(end) {
		w.pause()
		if w.id == 0 {
			// An agent whose tab went away takes a while to notice and
			// open another; after the browser's death, all of them at
			// once would measure how fast Chromium opens tabs.
			time.Sleep(time.Duration(w.rng.Int64N(int64(w.r.cfg.rampUp / 2))))
			if !w.reopen() {
				return
			}
		}
		if w.label == "" {
			w.navigate()
			continue
		}
		switch n := w.rng.IntN(100); {
		case n < 15:
			w.snapshot()
		case n < 40:
			w.click()
		case n < 60:
			w.fill()
		case n < 80:
			w.evaluate()
		case n < 90:
			w.waitFor()
		default:
			w.navigate()
		}
		if w.label != "" && time.Since(w.lastCheck) >= w.r.cfg.checkEvery {
			w.check()
		}
	}
	// The final read-back must succeed: faults have stopped, but one
	// injected just before may still need answering first.
	for attempt := 1; ; attempt++ {
		if w.id == 0 && !w.reopen() {
			return
		}
		if w.label == "" {
			w.navigate()
		} else if w.check() {
			break
		}
		if attempt == 8 {
			w.failf("could not read page %d back at the end: every attempt met a fault", w.id)
			break
		}
	}
	w.closePage()
}

func (w *stressWorker) pause() {
	lo, hi := w.r.cfg.pause[0], w.r.cfg.pause[1]
	time.Sleep(lo + time.Duration(w.rng.Int64N(int64(hi-lo)))) // an agent's think time: the load's pace
}

// nextLabel names a fresh document of this worker's page.
func (w *stressWorker) nextLabel() string {
	w.visits++
	return fmt.Sprintf("%sv%d", w.name, w.visits)
}

func (w *stressWorker) url(label string) string { return w.r.site + "/rec?l=" + label }

// loaded resets the worker's view of its page to a fresh document.
func (w *stressWorker) loaded(label string) {
	w.label, w.button, w.field = label, "", ""
	w.want = stressRecord{}
	w.lastCheck = time.Now()
}

// stressLoadTimeout is the navigation timeout, in ms, of the suite's
// new_page and navigate_page calls (their budget is 10 s more). The suite
// checks what the replies say, not how fast they come: right after the
// browser is killed, every session opens its pages at once in a new
// Chromium, 16 renderers starting together, about 7 s of Chromium's CPU on
// a quiet machine; at load 20 on 2 cores (.ci/loadcheck) the 20 s budget of
// a 10 s timeout ran out for all 16.
const stressLoadTimeout = 30000

// reopen opens a new page on a fresh record document and makes it the
// worker's.
func (w *stressWorker) reopen() bool {
	for range 5 {
		label := w.nextLabel()
		url := w.url(label)
		rep := w.call("new_page", map[string]any{"url": url, "timeout": stressLoadTimeout})
		if rep.kind != "ok" {
			// The browser died while the page opened: try again, in the
			// new one.
			continue
		}
		m := regexp.MustCompile(`(?m)^(\d+): (?:.*\()?` + regexp.QuoteMeta(url) + `(?:\)|$| )`).FindStringSubmatch(rep.text)
		if m == nil {
			// The page opened, then the browser died before the reply
			// listed the pages: the list is the new browser's.
			if !w.r.killedDuring(rep) {
				w.failf("new_page(%s) reply does not list the page:\n%s", url, rep.text)
			}
			continue
		}
		var id int
		fmt.Sscan(m[1], &id)
		w.r.noteOpened(w.name, id)
		w.id = id
		w.pageID.Store(int64(id))
		w.loaded(label)
		return true
	}
	w.failf("could not open a page in 5 attempts")
	return false
}

// closePage closes the worker's page when it is done with it.
func (w *stressWorker) closePage() {
	if w.id == 0 {
		return
	}
	rep := w.call("close_page", map[string]any{"pageId": w.id})
	if rep.kind != "ok" && rep.kind != "no-page" && rep.kind != "went-away" {
		w.failf("close_page(%d): %s", w.id, rep.text)
	}
	w.forget()
}

// forget drops the worker's page: it is closed, or gone with the browser.
func (w *stressWorker) forget() {
	w.lastID, w.id = w.id, 0
	w.pageID.Store(0)
	w.label = ""
}

// settle answers what a reply says happened to the page besides the
// call's own result, as an agent would: it handles an open dialog, marks a
// crashed page for reloading, replaces a page that went away. It reports
// whether the call did what it was asked.
func (w *stressWorker) settle(tool string, rep stressReply) bool {
	if rep.dialog != "" {
		if want := fmt.Sprintf("stress-%d", w.id); rep.dialog != want {
			w.failf("%s on page %d reports another page's dialog %q, want %q", tool, w.id, rep.dialog, want)
		}
	}
	switch rep.kind {
	case "no-page", "went-away":
		w.lost(tool, rep)
		return false
	case "crashed":
		w.label = "" // reloaded by the next navigation
		return false
	case "unexpected", "no-reply":
		// Already reported. Read the page back, which tells whether the
		// page's record holds what the worker expects (unless the call
		// was a navigation, which leaves the document unknown); then start
		// again on a fresh document.
		if !w.checking && tool != "navigate_page" {
			w.check()
		}
		w.label = ""
		return false
	}
	if rep.dialog != "" {
		w.answerDialog(tool, rep)
	}
	return rep.kind == "ok"
}

// answerDialog checks that the open dialog blocks the page's other tools,
// fast, and then accepts it. The call that reported the dialog is not held
// to that: it may have been under way when the dialog opened.
func (w *stressWorker) answerDialog(tool string, reported stressReply) {
	w.r.stats.fault("alert")
	probe := w.call("take_snapshot", map[string]any{"pageId": w.id})
	switch probe.kind {
	case "dialog":
		if probe.took > stressFast {
			w.failf("take_snapshot on page %d with a dialog open failed only after %v, want at once (under %v)", w.id, probe.took, stressFast)
		}
	case "no-page", "went-away":
		w.lost("take_snapshot", probe)
		return
	case "crashed":
		w.label = ""
		return
	case "ok":
		w.failf("%s on page %d reported a dialog open, but take_snapshot then succeeded:\n%s\n\n%s reply:\n%s\nfaults on the page: %s",
			tool, w.id, probe.text, tool, reported.text, w.r.faultsOn(w.id))
	}
	rep := w.call("handle_dialog", map[string]any{"pageId": w.id, "action": "accept"})
	switch rep.kind {
	case "ok", "no-dialog":
	case "no-page", "went-away":
		w.lost("handle_dialog", rep)
	case "crashed":
		w.label = ""
	default:
		w.failf("handle_dialog on page %d: %s", w.id, rep.text)
	}
}

// lost handles a call that found the worker's page gone: every later call
// on the id must answer "No page found" (once the server has seen the tab
// go); then the worker carries on in a new page.
func (w *stressWorker) lost(tool string, rep stressReply) {
	id := w.id
	answered := false
	gone := testwait.Poll(10*time.Second, func() bool {
		if rep.kind == "no-page" {
			return true
		}
		rep = w.call("take_snapshot", map[string]any{"pageId": id})
		answered = rep.kind == "ok"
		return answered || rep.kind == "no-page"
	})
	switch {
	case answered:
		w.failf("page %d went away during %s, but it still answers take_snapshot:\n%s", id, tool, rep.text)
	case !gone:
		w.failf("page %d went away during %s, but 10s later calls on it still answer:\n%s", id, tool, rep.text)
	}
	w.forget()
}

// navigate loads a fresh record document, or now and then reloads the
// current one.
func (w *stressWorker) navigate() {
	if w.label != "" && w.rng.IntN(4) == 0 {
		rep := w.call("navigate_page", map[string]any{"pageId": w.id, "type": "reload", "timeout": stressLoadTimeout})
		if !w.settle("navigate_page", rep) {
			w.label = "" // did it reload? Only a fresh document tells.
			return
		}
		if !strings.HasPrefix(rep.text, "Successfully reloaded the page.") {
			w.failf("reload of page %d replied:\n%s", w.id, rep.text)
		}
		w.loaded(w.label)
		return
	}
	label := w.nextLabel()
	url := w.url(label)
	rep := w.call("navigate_page", map[string]any{"pageId": w.id, "url": url, "timeout": stressLoadTimeout})
	if !w.settle("navigate_page", rep) {
		w.label = ""
		return
	}
	if !strings.HasPrefix(rep.text, "Successfully navigated to "+url+".\n") {
		w.failf("navigate_page(%d, %s) replied:\n%s", w.id, url, rep.text)
		w.label = ""
		return
	}
	w.loaded(label)
}

// showsLabel checks that a reply that shows the page shows this worker's
// document, and no other.
func (w *stressWorker) showsLabel(tool, text string) {
	labels := stressLabelRe.FindAllStringSubmatch(text, -1)
	if len(labels) == 0 {
		w.failf("%s on page %d shows no record page (want %q):\n%s", tool, w.id, w.label, text)
		return
	}
	for _, m := range labels {
		if m[1] != w.label {
			w.failf("%s on page %d shows page %q, want %q: a reply about another page", tool, w.id, m[1], w.label)
			return
		}
	}
}

func (w *stressWorker) snapshot() {
	rep := w.call("take_snapshot", map[string]any{"pageId": w.id})
	if !w.settle("take_snapshot", rep) {
		return
	}
	w.showsLabel("take_snapshot", rep.text)
	button := regexp.MustCompile(`uid=(\S+) button "Act"`).FindStringSubmatch(rep.text)
	field := regexp.MustCompile(`uid=(\S+) textbox "Field"`).FindStringSubmatch(rep.text)
	if button == nil || field == nil {
		w.failf("take_snapshot on page %d lacks the button or the field:\n%s", w.id, rep.text)
		return
	}
	w.button, w.field = button[1], field[1]
}

func (w *stressWorker) click() {
	if w.button == "" {
		if w.snapshot(); w.button == "" {
			return
		}
	}
	rep := w.call("click", map[string]any{"pageId": w.id, "uid": w.button})
	w.did("click", rep)
	if rep.kind == "ok" && strings.Contains(rep.text, "\nThe page closed.\n") {
		// tabhive's reply for a click that closes its page (window.close).
		// The record page never closes itself: another agent closed it, or
		// the browser died, under the click.
		w.want.maybeClicks++
		w.lost("click", rep)
		return
	}
	if !w.settle("click", rep) {
		w.want.maybeClicks++
		return
	}
	if !strings.HasPrefix(rep.text, "Successfully clicked on the element") && !strings.HasPrefix(rep.text, "The element was clicked and it opened a dialog.") {
		w.failf("click on page %d replied:\n%s", w.id, rep.text)
	}
	w.want.clicks++
}

func (w *stressWorker) fill() {
	if w.field == "" {
		if w.snapshot(); w.field == "" {
			return
		}
	}
	w.seq++
	value := fmt.Sprintf("%s#%d", w.label, w.seq)
	rep := w.call("fill", map[string]any{"pageId": w.id, "uid": w.field, "value": value})
	w.did("fill "+value, rep)
	ok := w.settle("fill", rep)
	if ok && !strings.HasPrefix(rep.text, "Successfully filled out the element") && !strings.HasPrefix(rep.text, "The element was filled out and it opened a dialog.") {
		w.failf("fill on page %d replied:\n%s", w.id, rep.text)
	}
	w.want.entries = append(w.want.entries, stressEntry{text: "fill " + value, certain: ok})
}

func (w *stressWorker) evaluate() {
	w.seq++
	token := fmt.Sprintf("eval %s#%d", w.label, w.seq)
	args := map[string]any{
		"pageId":   w.id,
		"function": fmt.Sprintf("() => { rec(%q); return window.label }", token),
		"timeout":  5000,
	}
	if w.rng.IntN(2) == 0 {
		args["waitForStableDom"] = false
	}
	label := w.label
	rep := w.call("evaluate_script", args)
	w.did(token, rep)
	ok := w.settle("evaluate_script", rep)
	w.want.entries = append(w.want.entries, stressEntry{text: token, certain: ok})
	if !ok {
		return
	}
	if m := stressJSONRe.FindStringSubmatch(rep.text); m == nil || m[1] != fmt.Sprintf("%q", label) {
		w.failf("evaluate_script on page %d returned another page's label (want %q): a reply about another page:\n%s", w.id, label, rep.text)
	}
}

func (w *stressWorker) waitFor() {
	// The heading, or now and then the last entry the page must hold.
	text := "Page " + w.label
	if n := len(w.want.entries); n > 0 && w.want.entries[n-1].certain && w.rng.IntN(2) == 0 {
		text = w.want.entries[n-1].text
	}
	// The text is on the page already: the timeout only bounds a page
	// that cannot answer. 10 s, as a loaded machine may keep a renderer
	// busy for seconds (3 s ran out once at load 15).
	rep := w.call("wait_for", map[string]any{"pageId": w.id, "text": []string{text}, "timeout": 10000})
	if !w.settle("wait_for", rep) {
		return
	}
	want := fmt.Sprintf("Element matching one of [%q] found.", text)
	if !strings.HasPrefix(rep.text, want) {
		w.failf("wait_for(%q) on page %d replied:\n%s", text, w.id, rep.text)
	}
	w.showsLabel("wait_for", rep.text)
}

// check reads the page's record back and compares it with the worker's
// log. It reports whether the read-back happened (whatever it found).
func (w *stressWorker) check() bool {
	w.checking = true
	defer func() { w.checking = false }()
	rep := w.call("evaluate_script", map[string]any{"pageId": w.id, "function": stressStateJS, "waitForStableDom": false, "timeout": 5000})
	if !w.settle("evaluate_script", rep) {
		return false
	}
	w.lastCheck = time.Now()
	w.r.stats.checked()
	m := stressJSONRe.FindStringSubmatch(rep.text)
	var got struct {
		Label string   `json:"label"`
		Log   []string `json:"log"`
		Value string   `json:"value"`
	}
	if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil {
		w.failf("reading page %d back replied:\n%s", w.id, rep.text)
		return true
	}
	if got.Label != w.label {
		w.failf("page %d holds document %q, want %q: an action or reply went to the wrong page", w.id, got.Label, w.label)
		w.label = ""
		return true
	}
	if err := w.want.match(w.label, got.Log, got.Value); err != "" {
		w.failf("page %d (%s) does not record what was done to it: %s\npage's record: %q, field %q\nworker's actions:\n\t%s\nfaults on the page: %s",
			w.id, w.label, err, got.Log, got.Value, strings.Join(w.want.history, "\n\t"), w.r.faultsOn(w.id))
		w.label = "" // start again on a fresh document rather than repeat the failure
		return true
	}
	// What the page shows is now known: keep it as certain.
	w.want = stressRecord{history: w.want.history}
	for _, e := range got.Log {
		if strings.HasPrefix(e, "click ") {
			w.want.clicks++
		} else {
			w.want.entries = append(w.want.entries, stressEntry{text: e, certain: true})
		}
	}
	return true
}

// match compares a page's record with the worker's log and returns what
// is wrong, or "". Clicks are numbered by the page, so they are counted;
// fills and evals carry the sender's label and a sequence number, so
// each must be one the worker sent, in the order sent, and every one
// whose call succeeded must be there. The field holds the last fill.
func (want stressRecord) match(label string, log []string, value string) string {
	clicks := 0
	var others []string
	for _, e := range log {
		if rest, ok := strings.CutPrefix(e, "click "); ok {
			clicks++
			if rest != fmt.Sprintf("%s/%d", label, clicks) {
				return fmt.Sprintf("click entry %q, want %q", e, fmt.Sprintf("click %s/%d", label, clicks))
			}
			continue
		}
		others = append(others, e)
	}
	if clicks < want.clicks || clicks > want.clicks+want.maybeClicks {
		return fmt.Sprintf("%d clicks recorded, want %d (and up to %d more whose call failed)", clicks, want.clicks, want.maybeClicks)
	}
	i := 0
	for _, e := range want.entries {
		if i < len(others) && others[i] == e.text {
			i++
			continue
		}
		if e.certain {
			return fmt.Sprintf("%q is missing or out of order, though its call succeeded", e.text)
		}
	}
	if i < len(others) {
		return fmt.Sprintf("entry %q was never sent to this page, or not in this order", others[i])
	}
	lastFill := ""
	for _, e := range others {
		if v, ok := strings.CutPrefix(e, "fill "); ok {
			lastFill = v
		}
	}
	if value != lastFill {
		return fmt.Sprintf("the field holds %q, want the last fill %q", value, lastFill)
	}
	return ""
}
