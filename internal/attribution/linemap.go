package attribution

import (
	"bytes"
	"slices"
)

// lineMap maps the lines of head's version of a file to base's: m[h] = b when head's line h
// (1-based) is base's line b unchanged, and 0 when head's line is new or changed. It is the longest
// common subsequence of the two files' lines (Myers' O((N+M)D) algorithm), so that a line's counts
// are compared with the same source line of base even when edits above it moved it.
func lineMap(base, head []byte) []int {
	a, b := splitLines(base), splitLines(head)
	m := make([]int, len(b)+1)
	for _, p := range commonLines(a, b) {
		m[p[1]+1] = p[0] + 1
	}
	return m
}

func splitLines(src []byte) [][]byte {
	if len(src) == 0 {
		return nil
	}
	src = bytes.TrimSuffix(src, []byte("\n"))
	return bytes.Split(src, []byte("\n"))
}

// commonLines returns the pairs (i, j) of a longest common subsequence of a and b, in order, by
// Myers' greedy algorithm with a trace for the path back. The edit distance of real file pairs is
// small, and past maxD edits it falls back to matching the common prefix and suffix only.
func commonLines(a, b [][]byte) [][2]int {
	// Common prefix and suffix first: they are most of a file, and leave Myers a small middle.
	pre := 0
	for pre < len(a) && pre < len(b) && bytes.Equal(a[pre], b[pre]) {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && bytes.Equal(a[len(a)-1-suf], b[len(b)-1-suf]) {
		suf++
	}
	var out [][2]int
	for i := 0; i < pre; i++ {
		out = append(out, [2]int{i, i})
	}
	for _, p := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		out = append(out, [2]int{p[0] + pre, p[1] + pre})
	}
	for k := suf; k > 0; k-- {
		out = append(out, [2]int{len(a) - k, len(b) - k})
	}
	return out
}

// maxD bounds the edits Myers explores; beyond it the middle of the two files is treated as wholly
// changed.
const maxD = 2000

func myers(a, b [][]byte) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	lim := min(n+m, maxD)
	off := lim + 1
	v := make([]int, 2*lim+3)
	var trace [][]int
	for d := 0; d <= lim; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && bytes.Equal(a[x], b[y]) {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, off, a, b, d)
			}
		}
	}
	return nil
}

// backtrack walks the trace from the end (n, m) back to (0, 0), collecting the diagonal moves: the
// matches. trace[d] is the frontier as it stood before edit d.
func backtrack(trace [][]int, off int, a, b [][]byte, dEnd int) [][2]int {
	x, y := len(a), len(b)
	var rev [][2]int
	for d := dEnd; d > 0; d-- {
		v := trace[d]
		k := x - y
		pk := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			pk = k + 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, [2]int{x, y})
	}
	slices.Reverse(rev)
	return rev
}
