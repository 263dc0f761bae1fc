package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/perf/benchmath"
)

// abbaSamples returns the samples of one benchmark over len(rounds) rounds in A B B A order:
// rounds[r] holds the values of slots 0 to 3 (base, head, head, base) in unit.
func abbaSamples(name, unit string, rounds [][4]float64) []benchtxt.Sample {
	var out []benchtxt.Sample
	for r, vals := range rounds {
		for slot, v := range vals {
			side := record.Head
			if slot == 0 || slot == 3 {
				side = record.Base
			}
			out = append(out, benchtxt.Sample{Name: name, Side: side, Round: r, Slot: slot, Iters: 1000,
				Values: []benchtxt.Value{{Value: v, Unit: unit}}})
		}
	}
	return out
}

func compareOne(t *testing.T, samples []benchtxt.Sample, opt StatsOptions) record.Benchmark {
	t.Helper()
	cs, err := Analyze(samples, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 {
		t.Fatalf("got %d comparisons, want 1: %+v", len(cs), cs)
	}
	return cs[0]
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestHolm(t *testing.T) {
	// Adjusted by hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 gives 0.02, 0.03, 0.06,
	// 0.04; the running maximum lifts the last to 0.06.
	tests := []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5}, []float64{0.5}},
		{[]float64{0.3, 0.6}, []float64{0.6, 0.6}}, // 2×0.3 = 0.6, then max(0.6, 0.6)
		{[]float64{0.9, 0.8}, []float64{1, 1}},     // capped at 1
		{nil, []float64{}},
	}
	for _, tt := range tests {
		got := holm(tt.p)
		if !cmp.Equal(got, tt.want, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()) {
			t.Errorf("holm(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

func TestTQuantile(t *testing.T) {
	// Two-sided 95% critical values of Student's t, from the NIST/SEMATECH e-Handbook table
	// 1.3.6.7.2 (3 decimals).
	tests := []struct{ p, df, want float64 }{
		{0.975, 1, 12.706},
		{0.975, 2, 4.303},
		{0.975, 4, 2.776},
		{0.975, 9, 2.262},
		{0.975, 100, 1.984},
		{0.95, 4, 2.132},
		{0.995, 4, 4.604},
	}
	for _, tt := range tests {
		if got := tQuantile(tt.p, tt.df); !near(got, tt.want, 0.0005) {
			t.Errorf("tQuantile(%v, %v) = %.5f, want %.3f", tt.p, tt.df, got, tt.want)
		}
	}
	// The p-value inverts the quantile: |t| = t(0.975, 4) is p = 0.05.
	q := tQuantile(0.975, 4)
	if p := marginP(q, 1, 4, 0); !near(p, 0.05, 1e-9) {
		t.Errorf("marginP at the 0.975 quantile = %v, want 0.05", p)
	}
}

func TestBenchstatSummary(t *testing.T) {
	// The values 1..10 as base and 11..20 as head, in any round layout. The 95% interval of the
	// median of 10 values is the order statistics x(2)..x(9): it covers with probability 1 -
	// 2·P(Binomial(10, ½) <= 1) = 1 - 2·11/1024 = 0.979, and x(3)..x(8) only with 0.891. The U test
	// of two fully separated samples of 10 has the smallest p there is, 2/C(20, 10) = 1.08e-5.
	var rounds [][4]float64
	for r := 0; r < 5; r++ {
		b := float64(2*r + 1)
		rounds = append(rounds, [4]float64{b, b + 10, b + 11, b + 1})
	}
	c := compareOne(t, abbaSamples("X", "sec/op", rounds), DefaultStatsOptions)
	want := record.Summary{Center: 5.5, Lo: 2, Hi: 9, N: 10}
	if diff := cmp.Diff(want, c.Base); diff != "" {
		t.Errorf("base summary (-want +got):\n%s", diff)
	}
	if c.Head.Center != 15.5 || c.Head.Lo != 12 || c.Head.Hi != 19 {
		t.Errorf("head summary = %+v, want 15.5 [12, 19]", c.Head)
	}
	if !near(c.P, 2/184756.0, 1e-9) {
		t.Errorf("P = %v, want 2/184756", c.P)
	}
	if !near(c.DeltaPct, (15.5/5.5-1)*100, 1e-9) {
		t.Errorf("DeltaPct = %v", c.DeltaPct)
	}

	// Four values per side: benchmath cannot bound the median, and the warning says why in plain
	// words (benchmath's own is "need >= 6 samples for confidence interval at level 0.95").
	c = compareOne(t, abbaSamples("X", "sec/op", rounds[:2]), DefaultStatsOptions)
	const need6 = "too few samples for an interval at 95%: 4 per side, 6 needed"
	if len(c.Warnings) != 1 || c.Warnings[0] != need6 { // both sides warn alike: kept once
		t.Errorf("warnings = %q", c.Warnings)
	}
	if c.Base.Lo != 0 || c.Base.Hi != 0 {
		t.Errorf("base interval = [%v, %v], want 0, 0 (unbounded)", c.Base.Lo, c.Base.Hi)
	}
	// Mann–Whitney on 4 vs 4 bottoms out at p = 2/C(8,4) = 0.029, so it can still reach 0.05: no
	// warning.
	s := benchmath.NewSample([]float64{1, 2, 3}, &benchmath.DefaultThresholds)
	if w := benchmath.AssumeNothing.Compare(s, s).Warnings; len(w) != 1 {
		t.Errorf("3 vs 3 warnings = %v, want the too-few-samples warning", w)
	}
}

func TestPairedWorkedExample(t *testing.T) {
	// Three rounds built to have d_r = 0.1, 0.2, 0.3, base pairs a_r = 0.02, 0, -0.02 and head
	// pairs b_r = 0.01, 0, -0.01. By hand: mean d = 0.2, s_d = 0.1, t(0.975, 2) = 4.3027,
	// half-width 4.3027·0.1/√3 = 0.24842, so ratio e^0.2 = 1.22140 and interval [e^-0.04842,
	// e^0.44842] = [0.95274, 1.56583]. The t statistic is 0.2/(0.1/√3) = 3.4641; with 2 degrees of
	// freedom the two-sided p is 1 - t/√(2+t²) = 0.074180. Noise: the pair differences |a_r - a_s|
	// are 0.02, 0.04, 0.02 and |b_r - b_s| are 0.01, 0.02, 0.01; their median is 0.02, so σ =
	// 1.0483·0.02/√2 = 0.014825 (1.4825%), and MDE = e^(4.3027·σ/√3) - 1 = e^0.036827 - 1 =
	// 3.7514%. No pair strays beyond 4·√2·σ = 0.0839 from its median, so no round is disturbed, and
	// no d_r lies beyond 4·1.4826·0.1 (the median absolute deviation) from the median 0.2, so none
	// ran wild. The gate's test is of a change within half the 2% threshold: δ = log(1.01) =
	// 0.0099503, t = (0.2-δ)/(0.1/√3) = 3.29176, p = 1 - t/√(2+t²) = 0.081205, and PHolm is that p.
	// The one-sided bound (the gate's question) puts all of the 5% above: t(0.95, 2) = 2.91999,
	// e^(0.2 + 2.91999·0.1/√3) = e^0.368586 = 1.445688.
	ds := []float64{0.1, 0.2, 0.3}
	as := []float64{0.02, 0, -0.02}
	bs := []float64{0.01, 0, -0.01}
	var rounds [][4]float64
	for r := range ds {
		b0 := 100.0
		b3 := b0 * math.Exp(as[r])
		h1 := math.Exp(ds[r]) * (b0 + b3) / (1 + math.Exp(bs[r]))
		h2 := h1 * math.Exp(bs[r])
		rounds = append(rounds, [4]float64{b0, h1, h2, b3})
	}
	c := compareOne(t, abbaSamples("X", "sec/op", rounds), DefaultStatsOptions)
	want := &record.Paired{Ratio: 1.2214027581601699, Lo: 0.9527394893616995, Hi: 1.5658264554991188,
		P: 0.07417990022744858, PMargin: 0.081205, Bound: 1.445688, Rounds: 3}
	if diff := cmp.Diff(want, c.Paired, cmpopts.EquateApprox(1e-5, 0)); diff != "" {
		t.Errorf("paired (-want +got):\n%s", diff)
	}
	if !near(c.NoisePct, 1.4825, 1e-4) || !near(c.MDEPct, 3.7514, 1e-4) {
		t.Errorf("noise %v%%, MDE %v%%, want 1.4825%%, 3.7514%%", c.NoisePct, c.MDEPct)
	}
	if c.PHolm != c.Paired.PMargin {
		t.Errorf("PHolm = %v with one benchmark, want the raw %v", c.PHolm, c.Paired.PMargin)
	}
	if c.Class != record.ClassInconclusive || c.Note != "interval -4.7% to +56.6% exceeds ±2%" {
		t.Errorf("class %q note %q", c.Class, c.Note)
	}
}

func TestCompareEdgeCases(t *testing.T) {
	five := func(base, head float64) [][4]float64 {
		var rs [][4]float64
		for range 5 {
			rs = append(rs, [4]float64{base, head, head, base})
		}
		return rs
	}
	t.Run("head missing", func(t *testing.T) {
		var base []benchtxt.Sample
		for _, s := range abbaSamples("X", "sec/op", five(1, 1)) {
			if s.Side == record.Base {
				base = append(base, s)
			}
		}
		c := compareOne(t, base, DefaultStatsOptions)
		if c.Class != record.ClassFailed || c.Note != "no head samples" || c.Base.N != 10 || c.Paired != nil {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("one complete round", func(t *testing.T) {
		s := abbaSamples("X", "sec/op", [][4]float64{{1, 2, 2, 1}, {1, 2, 2, 1}})
		s = s[:7] // round 1 lost its last base run
		c := compareOne(t, s, DefaultStatsOptions)
		if c.Class != record.ClassFailed || c.Note != "1 complete rounds, need 2" {
			t.Errorf("got class %q note %q", c.Class, c.Note)
		}
	})
	t.Run("identical", func(t *testing.T) {
		c := compareOne(t, abbaSamples("X", "sec/op", five(2e-6, 2e-6)), DefaultStatsOptions)
		if c.Class != record.ClassUnchanged || c.P != 1 || c.PHolm != 1 || c.DeltaPct != 0 {
			t.Errorf("got %+v", c)
		}
		// no spread: the bound is the ratio
		want := &record.Paired{Ratio: 1, Lo: 1, Hi: 1, P: 1, PMargin: 1, Bound: 1, Rounds: 5}
		if diff := cmp.Diff(want, c.Paired); diff != "" {
			t.Errorf("paired (-want +got):\n%s", diff)
		}
	})
	t.Run("zero allocs both sides", func(t *testing.T) {
		c := compareOne(t, abbaSamples("X", "allocs/op", five(0, 0)), DefaultStatsOptions)
		if c.Class != record.ClassUnchanged || c.Paired != nil {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("exact allocs change", func(t *testing.T) {
		// One allocation more in 40 is +2.5%, but a threshold does not apply to a count.
		c := compareOne(t, abbaSamples("X", "allocs/op", five(40, 41)), DefaultStatsOptions)
		if c.Class != record.ClassSlower || !c.Exact || c.P != 0 || c.PHolm != 0 || c.Note != "exact change" {
			t.Errorf("got %+v", c)
		}
		c = compareOne(t, abbaSamples("X", "B/op", five(64, 0)), DefaultStatsOptions)
		if c.Class != record.ClassFaster || c.DeltaPct != -100 {
			t.Errorf("got %+v", c)
		}
		c = compareOne(t, abbaSamples("X", "allocs/op", five(0, 1)), DefaultStatsOptions)
		if c.Class != record.ClassSlower || c.DeltaPct != 0 {
			t.Errorf("0 → 1 alloc: got %+v", c)
		}
	})
	t.Run("exact unit that varies", func(t *testing.T) {
		rs := five(40, 40)
		rs[2][1] = 41
		c := compareOne(t, abbaSamples("X", "allocs/op", rs), DefaultStatsOptions)
		// Every pair agrees exactly but round 2's head pair, 40 vs 41: 2.5% off with a noise floor
		// of 0, beyond the 1% floor of the disturbed-round test, so that round is left out and the
		// rest say d = 0: unchanged.
		if c.Exact || c.Class != record.ClassUnchanged ||
			c.Note != "exact unit varies: treated as measured; 1 of 5 rounds disturbed, left out" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("deterministic shift", func(t *testing.T) {
		c := compareOne(t, abbaSamples("X", "sec/op", five(100, 110)), DefaultStatsOptions)
		if c.Class != record.ClassSlower || c.Paired.P != 0 || !near(c.Paired.Ratio, 1.1, 1e-12) {
			t.Errorf("got %+v", c)
		}
		c = compareOne(t, abbaSamples("X", "sec/op", five(100, 101)), DefaultStatsOptions)
		if c.Class != record.ClassUnchanged {
			t.Errorf("+1%% exactly, below the 2%% threshold: got %q", c.Class)
		}
	})
	t.Run("rate unit", func(t *testing.T) {
		// Throughput down 10% is slower; benchunit tidies MB/s into B/s.
		c := compareOne(t, abbaSamples("X", "MB/s", five(100, 90)), DefaultStatsOptions)
		if c.Class != record.ClassSlower || c.Unit != "B/s" || c.Base.Center != 100e6 {
			t.Errorf("got %+v", c)
		}
	})
}

func TestCompareOrderAndHolm(t *testing.T) {
	var s []benchtxt.Sample
	// B gets a clear +10% shift with noise, A a clear one too; both sec/op, so Holm doubles the
	// smaller p of the gate's test (a change within half the threshold).
	for _, name := range []string{"B", "A"} {
		s = append(s, abbaSamples(name, "sec/op", [][4]float64{
			{100, 110, 111, 101}, {100, 109, 110, 99}, {101, 111, 112, 100}, {99, 108, 110, 100}, {100, 110, 109, 101},
		})...)
	}
	for i := range s {
		s[i].Values = append(s[i].Values, benchtxt.Value{Value: 3, Unit: "allocs/op"})
	}
	cs, err := Analyze(s, DefaultStatsOptions)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range cs {
		order = append(order, c.Name+" "+c.Unit)
	}
	want := []string{"A sec/op", "A allocs/op", "B sec/op", "B allocs/op"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	a, b := cs[0], cs[2]
	ps := holm([]float64{a.Paired.PMargin, b.Paired.PMargin})
	if a.PHolm != ps[0] || b.PHolm != ps[1] || a.PHolm <= a.Paired.PMargin || a.Paired.PMargin <= a.Paired.P {
		t.Errorf("PHolm = %v, %v from PMargin %v, %v (P %v)", a.PHolm, b.PHolm, a.Paired.PMargin, b.Paired.PMargin,
			a.Paired.P)
	}
	if a.Class != record.ClassSlower || b.Class != record.ClassSlower || cs[1].Class != record.ClassUnchanged {
		t.Errorf("classes %q %q %q", a.Class, b.Class, cs[1].Class)
	}
}

func TestStatsOptionsValidate(t *testing.T) {
	if err := DefaultStatsOptions.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		edit func(*StatsOptions)
		want string
	}{
		{func(o *StatsOptions) { o.Alpha = 0 }, "stats alpha 0: want a probability in (0, 1), e.g. 0.05"},
		{func(o *StatsOptions) { o.Alpha = math.NaN() }, "stats alpha NaN"},
		{func(o *StatsOptions) { o.ThresholdPct = -1 }, "stats threshold -1%"},
		{func(o *StatsOptions) { o.ThresholdPct = 100 }, "stats threshold 100%: want a percentage from 0 up to 100, e.g. 2"},
		{func(o *StatsOptions) { o.Confidence = 95 }, "stats confidence 95"},
	}
	for _, tt := range bad {
		o := DefaultStatsOptions
		tt.edit(&o)
		err := o.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want %q", o, err, tt.want)
		}
		if _, err := Analyze(nil, o); err == nil {
			t.Errorf("Analyze accepted %+v", o)
		}
	}
}

// TestPairedIgnoresOneDisturbedRun: an interrupt makes one head run of one round 50% slower. Its
// B–B pair strays far beyond the others, so the round is left out and the comparison stays
// unchanged; kept, its d_r of log(250/201) would make the interval too wide to call (inconclusive).
func TestPairedIgnoresOneDisturbedRun(t *testing.T) {
	rounds := [][4]float64{
		{100, 101, 100, 101}, {101, 100, 150, 100}, {100, 100, 101, 101}, {101, 101, 100, 100}, {100, 100, 100, 101},
	}
	c := compareOne(t, abbaSamples("X", "sec/op", rounds), DefaultStatsOptions)
	if c.Class != record.ClassUnchanged {
		t.Errorf("class %q (%s), want unchanged: paired %+v", c.Class, c.Note, c.Paired)
	}
	if c.Paired == nil || c.Paired.Hi > 1.02 || c.Paired.Lo < 0.98 || c.Paired.Disturbed != 1 || c.Paired.Rounds != 4 {
		t.Errorf("paired %+v, want 4 rounds inside [0.98, 1.02] and 1 disturbed", c.Paired)
	}
}
