package snapshot

import (
	"strconv"
	"sync/atomic"
)

// Counter hands out snapshot ids, the first part of a uid. One counter is
// shared by every page of the process, so a uid names one snapshot of one
// page (ARCHITECTURE.md §3). The zero value starts at 1.
type Counter struct{ n atomic.Int64 }

// Next returns the next snapshot id.
func (c *Counter) Next() int64 { return c.n.Add(1) }

// key identifies a DOM node for uid reuse: same document, same node. A
// node is known either by its backend node id (AX tree snapshots) or by its
// walker ref (default snapshots); the two never match each other.
type key struct {
	loaderID string
	backend  int
	ref      string
}

func keyOf(n *Node) (key, bool) {
	if !n.Ref.IsZero() {
		return key{loaderID: n.LoaderID, ref: n.Ref.key()}, true
	}
	if n.BackendNodeID != 0 {
		return key{loaderID: n.LoaderID, backend: n.BackendNodeID}, true
	}
	return key{}, false
}

// IDs keeps one page's uids stable across its snapshots: a node whose
// document (loader id) and backend node id are unchanged keeps its uid; other
// nodes get `<snapshot id>_<n>`, n counting from 0 within the snapshot. It
// belongs to one page actor and is not safe for concurrent use.
type IDs struct {
	counter *Counter
	byKey   map[key]string
	last    int64 // the snapshot id of the latest Assign
}

// Last returns the snapshot id the latest [IDs.Assign] drew, 0 before the
// first: of two snapshots of a page, the later has the larger id.
func (ids *IDs) Last() int64 { return ids.last }

// NewIDs returns uid bookkeeping for one page, drawing snapshot ids from c.
func NewIDs(c *Counter) *IDs { return &IDs{counter: c, byKey: map[key]string{}} }

// Assign sets the UID of every node of root and returns the uid index of the
// snapshot. Entries for nodes absent from this snapshot are forgotten, so a
// uid resolves only against the latest snapshot.
func (ids *IDs) Assign(root *Node) map[string]*Node {
	ids.last = ids.counter.Next()
	snap := strconv.FormatInt(ids.last, 10) + "_"
	n := 0
	index := map[string]*Node{}
	next := map[key]string{}
	root.Walk(func(node *Node, _ int) {
		var uid string
		k, known := keyOf(node)
		if known {
			if old, ok := ids.byKey[k]; ok {
				if _, taken := index[old]; !taken {
					uid = old
				}
			}
		}
		if uid == "" {
			// Nodes without a DOM node (InlineTextBox) get a fresh uid each
			// time: they have nothing stable to key on, and sharing one key
			// would print duplicate uids.
			uid = snap + strconv.Itoa(n)
			n++
		}
		node.UID = uid
		index[uid] = node
		if known {
			next[k] = uid
		}
	})
	ids.byKey = next
	return index
}
