package elfsym

import (
	"cmp"
	"slices"
)

// Span is a range [Lo, Hi) of addresses with the name of what lies there.
type Span struct {
	Lo, Hi uint64
	Name   string
}

// Spans is a list of ranges sorted by Sort: by start, and for equal starts the wider (outer) range
// first, so that the last range holding an address is the innermost.
type Spans []Span

// Sort sorts s as Find needs it.
func (s Spans) Sort() {
	slices.SortStableFunc(s, func(x, y Span) int {
		if c := cmp.Compare(x.Lo, y.Lo); c != 0 {
			return c
		}
		return cmp.Compare(y.Hi, x.Hi)
	})
}

// nested bounds how far back Find looks for a range holding an address: nested ranges (inlined
// calls) are few and close.
const nested = 64

// Find returns the innermost (last starting) range holding a, or nil.
func (s Spans) Find(a uint64) *Span {
	i, _ := slices.BinarySearchFunc(s, a+1, func(x Span, a uint64) int { return cmp.Compare(x.Lo, a) })
	for i, n := i-1, 0; i >= 0 && n < nested; i, n = i-1, n+1 {
		if a < s[i].Hi {
			return &s[i]
		}
	}
	return nil
}
