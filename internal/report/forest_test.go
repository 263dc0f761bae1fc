package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/record"
)

func rowNames(f *Forest) []string {
	var names []string
	for _, b := range f.Rows {
		names = append(names, b.Name)
	}
	return names
}

func TestForestOrderSlowestFirstFailedOnTop(t *testing.T) {
	r := reportfixture.ForestResult(2, []float64{0.62, 1.3, 1.0, 0.9}, []record.Class{"faster", "slower", "unchanged", "faster"})
	r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "crashed", Unit: record.UnitTime, Class: record.ClassFailed})
	// Other units are not in the sec/op forest.
	r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "b00", Unit: "B/s", Class: "faster", Paired: &record.Paired{Ratio: 1.6, Lo: 1.5, Hi: 1.7}})
	f := NewForest(r, record.UnitTime, 0)
	if diff := cmp.Diff([]string{"crashed", "b01", "b02", "b03", "b00"}, rowNames(f)); diff != "" {
		t.Errorf("row order (-want +got):\n%s", diff)
	}
	if NewForest(r, "instructions/op", 0) != nil {
		t.Error("a unit without benchmarks has a forest")
	}
}

func TestForestCapKeepsWhatMatters(t *testing.T) {
	// 25 unchanged benchmarks close to 1×, then one each of slower, faster and inconclusive.
	var ratios []float64
	var classes []record.Class
	for i := range 25 {
		ratios = append(ratios, 1+float64(i-12)/1000)
		classes = append(classes, record.ClassUnchanged)
	}
	ratios = append(ratios, 1.2, 0.7, 1.05)
	classes = append(classes, record.ClassSlower, record.ClassFaster, record.ClassInconclusive)
	f := NewForest(reportfixture.ForestResult(2, ratios, classes), record.UnitTime, 10)
	got := rowNames(f)
	if len(got) != 10 {
		t.Fatalf("%d rows, want 10: %v", len(got), got)
	}
	// The three that moved, and the seven unchanged farthest from 1× on the log scale (b00…b03
	// below, b22…b24 above: 1−x is farther than 1+x), slowest first.
	want := []string{"b25", "b27", "b24", "b23", "b22", "b03", "b02", "b01", "b00", "b26"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if f.rest[record.ClassUnchanged] != 18 || len(f.rest) != 1 {
		t.Errorf("rest = %v, want 18 unchanged", f.rest)
	}
	if note := f.restNote(); note != "… 18 more not shown (18 unchanged); every benchmark is in the tables" {
		t.Errorf("rest note %q", note)
	}
}

func TestForestScale(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold float64
		ratios    []float64
		lo, hi    float64 // an extra inconclusive interval around 1×, 0 for none
		want      float64
	}{
		{"twice the threshold band", 2, []float64{1.001}, 0, 0, 1.05},
		{"the largest point", 2, []float64{0.62, 1.01}, 0, 0, 2},
		{"a wide interval counts up to twice the points", 2, []float64{1.3}, 0.5, 1.9, 2},
		{"a wild interval is clipped", 2, []float64{1.1}, 0.01, 100, 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			classes := make([]record.Class, len(tc.ratios))
			r := reportfixture.ForestResult(tc.threshold, tc.ratios, classes)
			if tc.lo > 0 {
				r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: "wide", Unit: record.UnitTime,
					Class: record.ClassInconclusive, Paired: &record.Paired{Ratio: 1, Lo: tc.lo, Hi: tc.hi}})
			}
			if got := NewForest(r, record.UnitTime, 0).Span; got != tc.want {
				t.Errorf("span = %v, want %v", got, tc.want)
			}
		})
	}
}

// column returns the column of the first rune of the plot that is one of marks in line, or -1.
func column(line string, start int, marks string) int {
	for i, r := range []rune(line)[start:] {
		if strings.ContainsRune(marks, r) {
			return i
		}
	}
	return -1
}

func TestForestTextPlacesMarks(t *testing.T) {
	// The axis runs from 0.5× to 2×: 1× is the middle column, 2× the last, 0.5× the first.
	r := reportfixture.ForestResult(2, []float64{1.999, 1, 0.5001}, []record.Class{"slower", "unchanged", "faster"})
	f := NewForest(r, record.UnitTime, 0)
	f.Span = 2
	lines := ForestText(f, false, false)
	start := len("benchmark") + 2
	want := map[string]int{"b00": forestWidth - 1, "b01": forestWidth / 2, "b02": 0}
	for _, l := range lines {
		name, _, _ := strings.Cut(l, " ")
		if col, ok := want[name]; ok {
			if got := column(l, start, "o"); got != col {
				t.Errorf("%s: point in column %d, want %d\n%s", name, got, col, l)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("no line for %v in\n%s", want, strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		for _, r := range l {
			if r >= utf8.RuneSelf {
				t.Fatalf("ASCII Forest has %q in %q", r, l)
			}
		}
	}
}

func TestForestTextClipsAndColours(t *testing.T) {
	r := reportfixture.ForestResult(2, []float64{1.1}, []record.Class{"slower"})
	r.Benchmarks[0].Paired = &record.Paired{Ratio: 1.1, Lo: 0.01, Hi: 100}
	lines := ForestText(NewForest(r, record.UnitTime, 0), true, true)
	row := lines[3]
	if !strings.Contains(row, "◄") || !strings.Contains(row, "►") || !strings.Contains(row, "●") {
		t.Errorf("clipped interval without arrows: %q", row)
	}
	if !strings.Contains(row, red) {
		t.Errorf("slower row not painted red: %q", row)
	}
	plainLines := ForestText(NewForest(r, record.UnitTime, 0), true, false)
	if strings.Contains(strings.Join(plainLines, ""), "\x1b") {
		t.Error("colour escapes without Options.Color")
	}
}

func TestRatioLabel(t *testing.T) {
	for v, want := range map[float64]string{0.001: "0.001×", 0.01: "0.01×", 0.1: "0.1×", 1 / 1.5: "0.67×", 1: "1×", 1.05: "1.05×", 2: "2×", 10: "10×", 100: "100×", 1000: "1000×"} {
		if got := RatioLabel(v); got != want {
			t.Errorf("ratioLabel(%v) = %q, want %q", v, got, want)
		}
	}
}
