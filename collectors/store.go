package collectors

import (
	"slices"
	"unicode/utf8"
)

// keptSegments is how many navigation segments a [Store] keeps: the current
// one and the two before it, as chrome-devtools-mcp does (maxNavigationSaved).
const keptSegments = 3

// DefaultMaxRequests is the number of requests a [Network] keeps per
// navigation when [Config.MaxRequests] is zero (chrome-devtools-mcp's
// MAX_REQUESTS_PER_NAVIGATION).
const DefaultMaxRequests = 1000

// DefaultMaxMessages is the number of messages a [Console] keeps per
// navigation when [Config.MaxMessages] is zero. chrome-devtools-mcp keeps
// 10,000; a tenth of that is plenty for an agent and keeps a page that logs
// forever small.
const DefaultMaxMessages = 1000

// DefaultMaxBytes is the approximate number of bytes of text (URLs, headers,
// message text, arguments, stacks) each collector keeps per navigation when
// [Config.MaxBytes] is zero. The count limits bound a page that logs or polls
// forever; this bounds one whose every message or request is huge.
const DefaultMaxBytes = 4 << 20

// maxField is the most bytes the collectors keep of one string (a message,
// an argument, a URL, a header value, a request body); longer ones are cut short and marked "... <truncated>".
const maxField = 32 << 10

// Config sets the collectors' per-navigation limits. The zero value gives the
// documented defaults.
type Config struct {
	// MaxRequests is the most requests a [Network] keeps per navigation
	// segment; the oldest are dropped first. If zero or negative, defaults to
	// [DefaultMaxRequests].
	MaxRequests int
	// MaxMessages is the most messages a [Console] keeps per navigation
	// segment; the oldest are dropped first. If zero or negative, defaults to
	// [DefaultMaxMessages].
	MaxMessages int
	// MaxBytes is the approximate size, in bytes of text, above which each
	// collector drops the oldest items of a navigation segment. If zero or
	// negative, defaults to [DefaultMaxBytes].
	MaxBytes int
}

func (cfg Config) maxBytes() int {
	if cfg.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return cfg.MaxBytes
}

// Navigation describes a committed frame navigation, as reported by CDP
// Page.frameNavigated (SameDocument false) or Page.navigatedWithinDocument
// (SameDocument true). Only a main-frame cross-document navigation opens a new
// segment; the collectors ignore the others.
type Navigation struct {
	// FrameID is the id of the frame that navigated.
	FrameID string
	// LoaderID is the loader id of the new document (CDP Frame.loaderId), or
	// empty if unknown. The network collector uses it to find the request
	// that loaded the document; see [Network.FrameNavigated].
	LoaderID string
	// MainFrame reports whether the frame is the page's main frame (its CDP
	// Frame.parentId is empty).
	MainFrame bool
	// SameDocument reports whether the navigation stayed in the same document
	// (history.pushState, fragment change).
	SameDocument bool
}

// splits reports whether nav starts a new document in the main frame.
func (nav Navigation) splits() bool {
	return nav.MainFrame && !nav.SameDocument
}

// A Store keeps items in navigation segments and stamps each with an id.
//
// New items go to the current segment. [Store.Split] opens a new current
// segment; the store keeps the current segment and the two before it and
// drops older ones. Ids start at 1, increase by one per [Store.Add] and are
// never reused; dropping an item never changes another item's id. Because
// items only ever move as a block from the end of the current segment into
// the next one, the kept items, oldest segment first, are always in id order.
//
// A zero Store is an empty store with no per-segment limit and no drop hook.
// A Store is not safe for concurrent use.
type Store[T any] struct {
	limit  int     // most items per segment; <= 0 means no limit
	onDrop func(T) // called for each dropped item; may be nil
	// maxBytes and size bound a segment by the size of its items; size is
	// nil when maxBytes <= 0.
	maxBytes int
	size     func(T) int

	// segs holds the kept segments, oldest first; the last is the current one.
	// Invariant: len(segs) <= keptSegments; empty until the first use.
	segs [][]entry[T]
	// bytes is the size of the current segment's items, as size reported
	// when each was added.
	bytes  int
	lastID int // id of the last item added; 0 before the first
}

// entry is an item with the id it was stamped with and its size when added.
type entry[T any] struct {
	id   int
	size int
	item T
}

// NewStore returns an empty store whose segments each hold at most limit
// items (no limit if limit <= 0); adding to a full segment drops its oldest
// item. If onDrop is not nil, it is called with every item the store drops,
// whether for the limit or because its segment was discarded, so the owner
// can forget indexes it keeps on the side. onDrop must not call back into the
// store.
func NewStore[T any](limit int, onDrop func(T)) *Store[T] {
	return &Store[T]{limit: limit, onDrop: onDrop}
}

// NewSizedStore is [NewStore] with a second bound: when the items of the
// current segment add up to more than maxBytes, as measured by size when
// each is added, its oldest items are dropped too. The newest item is always
// kept, however large.
func NewSizedStore[T any](limit, maxBytes int, size func(T) int, onDrop func(T)) *Store[T] {
	s := NewStore(limit, onDrop)
	if maxBytes > 0 && size != nil {
		s.maxBytes, s.size = maxBytes, size
	}
	return s
}

// Add appends item to the current segment and returns its id. If the segment
// is over the limit, its oldest items are dropped.
func (s *Store[T]) Add(item T) int {
	s.init()
	s.lastID++
	e := entry[T]{id: s.lastID, item: item}
	if s.size != nil {
		e.size = s.size(item)
	}
	last := len(s.segs) - 1
	cur := append(s.segs[last], e)
	s.bytes += e.size
	n := 0
	if s.limit > 0 && len(cur) > s.limit {
		n = len(cur) - s.limit
		for _, e := range cur[:n] {
			s.bytes -= e.size
		}
	}
	for s.maxBytes > 0 && s.bytes > s.maxBytes && n < len(cur)-1 {
		s.bytes -= cur[n].size
		n++
	}
	if n > 0 {
		for _, e := range cur[:n] {
			s.drop(e.item)
		}
		// Zero the dropped slots so the array does not keep them reachable
		// until the next reallocation.
		clear(cur[:n])
		cur = cur[n:]
	}
	s.segs[last] = cur
	return s.lastID
}

// Split opens a new, empty current segment and discards the oldest segment
// if more than three would be kept.
func (s *Store[T]) Split() {
	s.init()
	s.push(nil)
}

// SplitFrom opens a new current segment that starts with the item with the
// given id: that item and every later item of the current segment move into
// the new segment, in order, keeping their ids. If id is not in the current
// segment, SplitFrom is [Store.Split].
func (s *Store[T]) SplitFrom(id int) {
	s.init()
	last := len(s.segs) - 1
	cur := s.segs[last]
	i, found := slices.BinarySearchFunc(cur, id, func(e entry[T], id int) int { return e.id - id })
	if !found {
		s.push(nil)
		return
	}
	moved := slices.Clone(cur[i:])
	clear(cur[i:])
	s.segs[last] = cur[:i]
	s.push(moved)
	for _, e := range moved {
		s.bytes += e.size
	}
}

// List returns the items of the current segment or, if includePreserved is
// set, of all kept segments, oldest first. The returned slice is new.
func (s *Store[T]) List(includePreserved bool) []T {
	segs := s.segs
	if !includePreserved && len(segs) > 0 {
		segs = segs[len(segs)-1:]
	}
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	items := make([]T, 0, n)
	for _, seg := range segs {
		for _, e := range seg {
			items = append(items, e.item)
		}
	}
	return items
}

// Get returns the item with the given id and true, or the zero T and false if
// no kept segment holds it (it was never added, or was dropped).
func (s *Store[T]) Get(id int) (T, bool) {
	for _, seg := range s.segs {
		if i, ok := slices.BinarySearchFunc(seg, id, func(e entry[T], id int) int { return e.id - id }); ok {
			return seg[i].item, true
		}
	}
	var zero T
	return zero, false
}

// Len returns the number of items in all kept segments.
func (s *Store[T]) Len() int {
	n := 0
	for _, seg := range s.segs {
		n += len(seg)
	}
	return n
}

// init gives a zero store its first, empty segment.
func (s *Store[T]) init() {
	if len(s.segs) == 0 {
		s.segs = append(s.segs, nil)
	}
}

// push appends seg as the new current segment and discards the oldest
// segment if more than keptSegments remain.
func (s *Store[T]) push(seg []entry[T]) {
	s.bytes = 0
	s.segs = append(s.segs, seg)
	if len(s.segs) <= keptSegments {
		return
	}
	for _, e := range s.segs[0] {
		s.drop(e.item)
	}
	// Shift in place rather than reslicing, so the discarded segment is not
	// kept reachable by the backing array.
	n := copy(s.segs, s.segs[1:])
	s.segs[n] = nil
	s.segs = s.segs[:n]
}

func (s *Store[T]) drop(item T) {
	if s.onDrop != nil {
		s.onDrop(item)
	}
}

// truncated marks a string cut short, as chrome-devtools-mcp marks a
// truncated body.
const truncated = "... <truncated>"

// clip returns s, or its first maxField bytes (cut at a character boundary)
// followed by "... <truncated>" if it is longer.
func clip(s string) string {
	if len(s) <= maxField {
		return s
	}
	cut := maxField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncated
}

// maxInterned bounds an [interner]; maxInternLen is the longest string it
// shares.
const (
	maxInterned  = 4096
	maxInternLen = 256
)

// An interner shares the storage of strings that repeat from one item to
// the next (header names and values, script URLs), which would otherwise be
// a fresh copy per request or message. It is bounded: once full, it returns
// new strings as they are, until reset.
type interner struct {
	m map[string]string
}

// get returns the shared copy of s.
func (in *interner) get(s string) string {
	if len(s) > maxInternLen {
		return s
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// reset empties the interner, so that strings of a document that is gone
// stop taking its room.
func (in *interner) reset() { clear(in.m) }
