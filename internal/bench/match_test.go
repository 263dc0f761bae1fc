package bench

import "testing"

// TestMatcher: go test's -bench matching, level by level, with the top level matching with or
// without the "Benchmark" prefix.
func TestMatcher(t *testing.T) {
	names := []string{"Sum256/32", "Sum256/1024", "Sum512/32", "Encrypt/des/single", "Encrypt/des/batch",
		"Encrypt/tdes/single", "KeySetup", "Hash8", "Hash16/x"}
	tests := []struct {
		pattern string
		want    []string
	}{
		{".", names},
		{"", names},
		{"^Sum256$", []string{"Sum256/32", "Sum256/1024"}},
		{"^BenchmarkSum256$", []string{"Sum256/32", "Sum256/1024"}},
		{"Sum", []string{"Sum256/32", "Sum256/1024", "Sum512/32"}},
		{"/32$", []string{"Sum256/32", "Sum512/32"}},
		{"Encrypt/des", []string{"Encrypt/des/single", "Encrypt/des/batch", "Encrypt/tdes/single"}},
		{"Encrypt/^des$/single", []string{"Encrypt/des/single"}},
		// each level unanchored
		{"^Encrypt/des/single$", []string{"Encrypt/des/single", "Encrypt/tdes/single"}},
		{"^Encrypt$/^des$/^single$", []string{"Encrypt/des/single"}},
		{"^Hash8$", []string{"Hash8"}},
		{"Hash8/x", nil}, // Hash8 has no sub-benchmarks
		{"Encrypt|Hash", []string{"Encrypt/des/single", "Encrypt/des/batch", "Encrypt/tdes/single", "Hash8", "Hash16/x"}},
		{"[/]", nil},        // a '/' inside brackets does not split
		{"(des|x/y)", nil},  // nor inside parentheses: one level, matching no top-level name
		{`Sum256\/32`, nil}, // nor an escaped one
		{"^(Encrypt|Decrypt)/", []string{"Encrypt/des/single", "Encrypt/des/batch", "Encrypt/tdes/single"}},
		{"BenchmarkCompress", nil},
	}
	for _, tc := range tests {
		m, err := NewMatcher(tc.pattern)
		if err != nil {
			t.Fatalf("NewMatcher(%q): %v", tc.pattern, err)
		}
		var got []string
		for _, n := range names {
			if m.Match(n) {
				got = append(got, n)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q selects %q, want %q", tc.pattern, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q selects %q, want %q", tc.pattern, got, tc.want)
				break
			}
		}
	}
	for _, bad := range []string{"(", "Encrypt/(", "a/[z-a]"} {
		if _, err := NewMatcher(bad); err == nil {
			t.Errorf("NewMatcher(%q) accepted it", bad)
		}
	}
	m, _ := NewMatcher("Encrypt/des")
	if !m.MatchTop("Encrypt") || m.MatchTop("Decrypt") {
		t.Error("MatchTop: Encrypt/des selects from Encrypt only")
	}
}
