package snapshot

import (
	"errors"
	"strconv"
	"strings"
)

// UID is a node's uid taken apart: the snapshot that minted it and its
// number within that snapshot (ARCHITECTURE.md §3). Its text form,
// "<Snapshot>_<N>", is what agents see and send back.
type UID struct {
	Snapshot int64 // at least 1: snapshot ids start at 1
	N        int   // counts from 0 within the snapshot
}

// String returns the uid as agents see it, such as "3_12".
func (u UID) String() string {
	return strconv.FormatInt(u.Snapshot, 10) + "_" + strconv.Itoa(u.N)
}

// ErrBadUID is returned by [ParseUID] for text that is not a uid.
var ErrBadUID = errors.New(`not a uid: a uid is two numbers joined by "_", such as 3_12, from a snapshot`)

// ParseUID parses a uid as [IDs.Assign] writes them: a snapshot id of at
// least 1, "_", and a number, both decimal without sign or leading zeros,
// so that every uid has exactly one spelling and ParseUID(s).String() == s.
// Anything else, numbers that overflow included, is [ErrBadUID].
func ParseUID(s string) (UID, error) {
	snap, n, ok := strings.Cut(s, "_")
	if !ok || !canonicalNumber(snap) || !canonicalNumber(n) {
		return UID{}, ErrBadUID
	}
	id, err := strconv.ParseInt(snap, 10, 64)
	if err != nil || id < 1 {
		return UID{}, ErrBadUID
	}
	num, err := strconv.Atoi(n)
	if err != nil {
		return UID{}, ErrBadUID
	}
	return UID{Snapshot: id, N: num}, nil
}

// canonicalNumber reports whether s is a non-negative decimal number
// written without sign or leading zeros.
func canonicalNumber(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
