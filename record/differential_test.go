package record

import "testing"

func TestSizeRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""}, {[]int{8}, "8"}, {[]int{1, 2, 3, 5, 7, 8}, "1–3, 5, 7–8"}, {[]int{0, 1, 2, 64}, "0–2, 64"},
	} {
		if got := SizeRanges(tc.in); got != tc.want {
			t.Errorf("SizeRanges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
