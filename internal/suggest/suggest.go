// Package suggest finds the names a user probably meant: the "did you mean" of an unknown
// configuration key, flag or git revision. Every such hint in perfgate measures closeness with
// Distance, so a typo is equally far wherever it is made.
package suggest

// Distance is the optimal-string-alignment distance between a and b: insertions, deletions,
// substitutions and transpositions of adjacent bytes each cost 1, so "mian" is 1 from "main" and
// "kitten" 3 from "sitting".
func Distance(a, b string) int {
	// Three rows of the dynamic-programming table: two back for transpositions, one back, and the
	// current one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// MaxTypo is the largest distance Closest still calls a likely typo.
const MaxTypo = 2

// Closest returns the name in names nearest to s, if it is at most MaxTypo away; "" otherwise. Ties
// go to the name listed first.
func Closest(s string, names []string) string {
	best, bestD := "", MaxTypo+1
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
