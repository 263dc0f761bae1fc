package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/reportfixture"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

func nan() float64 { return math.NaN() }

func TestFormatValues(t *testing.T) {
	for _, tc := range []struct {
		unit string
		v    float64
		want string
	}{
		{"sec/op", 86.7e-9, "86.70 ns"},
		{"sec/op", 139.6e-9, "139.6 ns"},
		{"sec/op", 1.5e-4, "150.0 µs"},
		{"sec/op", 44.9e-6, "44.90 µs"},
		{"sec/op", 0.0123, "12.30 ms"},
		{"sec/op", 2.5, "2.500 s"},
		{"B/s", 92.27e6, "92.27 MB/s"},
		{"B/s", 1.234e10, "12,340 MB/s"},
		{"B/op", 256, "256 B"},
		{"B/op", 1536, "1,536 B"},
		{"B/op", 2.5, "2.500 B"},
		{"allocs/op", 1, "1"},
		{"allocs/op", 1234567, "1,234,567"},
		{"ops/s", 3.14159, "3.142 ops/s"},
		{"instructions/op", 2176, "2,176"},
		{"instructions/op", 123456.5, "123,456.5"},
		{"instructions/op", 0.25, "0.3"},
		{"sec/op", nan(), "—"},
	} {
		if got := Value(tc.unit, tc.v); got != tc.want {
			t.Errorf("value(%q, %g) = %q, want %q", tc.unit, tc.v, got, tc.want)
		}
	}
}

func TestFormatDeltas(t *testing.T) {
	check := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	check(percent(3.14), "+3.1%")
	check(percent(-37.89), "−37.9%")
	check(percent(0.04), "0.0%")
	check(percent(-0.04), "0.0%")
	check(Paired(&record.Paired{Ratio: 0.621, Lo: 0.618, Hi: 0.624}), "0.621× [0.618, 0.624]")
	check(Paired(nil), "—")
	check(BytesDelta(2048), "+2,048 B")
	check(BytesDelta(-315), "−315 B")
	check(bytesDeltaShort(1733), "+1.7 KiB")
	check(bytesDeltaShort(-1536), "−1.5 KiB")
	check(bytesDeltaShort(3<<20), "+3.0 MiB")
	check(bytesDeltaShort(-315), "−315 B")
	check(SizePercent(2617, 2302), "−12.0%")
	check(SizePercent(0, 10), "new")
	check(SizePercent(10, 0), "gone")
	check(text.Commas(-1234567), "−1,234,567")
	check(Spread("sec/op", record.Summary{Center: 150e-6, Lo: 148.5e-6, Hi: 151.8e-6, N: 10}), "150.0 µs ± 1%")
	check(Spread("sec/op", record.Summary{}), "—")
	check(Value("peak-RSS-B", 71.5*(1<<20)), "71.5 MiB")
	// Too few samples for an interval: the center alone, not "± 100%".
	check(Spread("sec/op", record.Summary{Center: 150e-6, N: 4}), "150.0 µs")
	// The note says why, even when the class wrote a note of its own; a warning the note repeats is
	// shown once.
	few := "too few samples for an interval at 95%: 4 per side, 6 needed"
	check(NoteOf(record.Benchmark{Note: "interval -4.7% to +56.6% exceeds ±2%", Warnings: []string{few}}),
		"interval -4.7% to +56.6% exceeds ±2%; "+few)
	check(NoteOf(record.Benchmark{Note: few, Warnings: []string{few}, MetricNote: "instructions equal"}),
		few+"; instructions equal")

	b := record.Benchmark{DeltaPct: -37.89, P: 0.0001, Base: record.Summary{N: 10}, Head: record.Summary{N: 10}}
	check(Delta(b, 0.05), "−37.9%")
	check(PValue(b), "p=0.000 n=10")
	b.P, b.Head.N = 0.393, 9
	check(Delta(b, 0.05), "~")
	check(PValue(b), "p=0.393 n=10+9")
}

func TestClip(t *testing.T) {
	head := ClipHead(strings.Repeat("line\n", 100), 1000, 3)
	if head != "line\nline\nline\n… 97 more lines (485 bytes) omitted" {
		t.Errorf("clipHead = %q", head)
	}
	tail := ClipTail(strings.Repeat("a\n", 10)+"end\n", 1000, 2)
	if tail != "… 9 earlier lines (18 bytes) omitted\na\nend" {
		t.Errorf("clipTail = %q", tail)
	}
	if got := ClipTail(strings.Repeat("é", 5000), 100, 10); len(got) > 200 || !strings.HasSuffix(got, "éé") {
		t.Errorf("clipTail cut badly: %q", got)
	}
	if got := Clip("abcdef", 4); got != "abc…" {
		t.Errorf("clip = %q", got)
	}
}

func TestTextColourOnlyWhenAsked(t *testing.T) {
	r := reportfixture.HostileResult() // names carry an ESC of their own
	var plainOut, colour bytes.Buffer
	if err := Text(&plainOut, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plainOut.String(), "\x1b") {
		t.Error("escape sequence in uncoloured text")
	}
	if err := Text(&colour, reportfixture.Fail(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{red + "slower" + reset, green + "faster" + reset, red + "FAIL" + reset} {
		if !strings.Contains(colour.String(), want) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	// Colour must not disturb alignment: the columns before the class line up with and without it.
	uncoloured := &bytes.Buffer{}
	Text(uncoloured, reportfixture.Fail(), Options{})
	stripped := strings.NewReplacer(red, "", green, "", boldOn, "", reset, "").Replace(colour.String())
	if stripped != uncoloured.String() {
		t.Error("coloured text differs from uncoloured text beyond the escapes")
	}
}

func TestRoundsOf(t *testing.T) {
	b := record.Benchmark{Name: "Encrypt/des", Unit: "sec/op", Rounds: 12}
	if got := RoundsOf(record.Method{Budget: 100 * time.Second}, b); got != " · 12 rounds" {
		t.Errorf("budgeted: %q, want \" · 12 rounds\"", got)
	}
	if got := RoundsOf(record.Method{Rounds: 5}, b); got != "" {
		t.Errorf("fixed rounds: %q, want nothing", got)
	}
}
