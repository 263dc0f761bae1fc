package suggest

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		// Levenshtein's textbook examples, where no adjacent transposition helps.
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		// Adjacent transpositions cost 1: the typos "did you mean" is for.
		{"mian", "main", 1},
		{"treshold", "threshold", 1},
		{"rounsd", "rounds", 1},
		{"ab", "ba", 1},
		// Optimal string alignment edits no substring twice: "ca" → "abc" is 3, not 2 as in
		// Damerau's distance.
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"alpha", "bench", "benchtime", "max-size-growth", "rounds", "threshold", "thresholds"}
	tests := []struct{ in, want string }{
		{"round", "rounds"},
		{"rounsd", "rounds"},
		{"bench-time", "benchtime"},
		{"treshold", "threshold"},
		{"max_size_growth", "max-size-growth"}, // two substitutions
		{"acknowledge", ""},                    // far from every name
		{"colour", ""},
		{"", ""},
		{"thresholdz", "threshold"}, // a tie between threshold and thresholds: the first listed
	}
	for _, tt := range tests {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
