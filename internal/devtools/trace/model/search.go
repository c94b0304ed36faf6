package model

import (
	"math"
	"sort"
)

// NearestFromBeginning returns the first index i of a sorted sequence of n
// items for which pred(i) holds, or -1. It is DevTools' binary search step
// for step, so that on a sequence that is not quite sorted (events of one
// frame in file order) it picks the same item DevTools does.
func NearestFromBeginning(n int, pred func(int) bool) int {
	return nearestIndex(n, pred, false)
}

// nearestFromEnd returns the last index i for which pred(i) holds, or -1;
// see nearestFromBeginning.
func nearestFromEnd(n int, pred func(int) bool) int {
	return nearestIndex(n, pred, true)
}

func nearestIndex(n int, pred func(int) bool, fromEnd bool) int {
	if n == 0 {
		return -1
	}
	left, right := 0, n-1
	for {
		middle := float64(left) + float64(right-left)/2
		var pivot int
		if fromEnd {
			pivot = int(math.Ceil(middle))
		} else {
			pivot = int(math.Floor(middle))
		}
		matches := pred(pivot)
		if matches == fromEnd {
			step := 0
			if left == pivot {
				step = 1
			}
			left = min(right, pivot+step)
		} else {
			step := 0
			if right == pivot {
				step = -1
			}
			right = max(left, pivot+step)
		}
		if right == left {
			break
		}
	}
	if !pred(left) {
		return -1
	}
	return left
}

// SortStable sorts s by less, keeping equal items in their order, as
// JavaScript's Array.prototype.sort does.
func SortStable[T any](s []T, less func(a, b T) bool) {
	sort.SliceStable(s, func(i, j int) bool { return less(s[i], s[j]) })
}

// byTime orders events as DevTools' eventTimeComparator does: by start,
// then the longer first.
func byTime(aTS, aDur, bTS, bDur float64) int {
	switch {
	case aTS < bTS:
		return -1
	case aTS > bTS:
		return 1
	}
	aEnd, bEnd := aTS+aDur, bTS+bDur
	switch {
	case aEnd > bEnd:
		return -1
	case aEnd < bEnd:
		return 1
	}
	return 0
}

// InBounds reports whether an event overlaps w, as DevTools' eventIsInBounds:
// it starts at or before w's end and ends after w's start.
func InBounds(ts, dur float64, w Window) bool {
	return ts <= w.Max && w.Min < ts+dur
}
