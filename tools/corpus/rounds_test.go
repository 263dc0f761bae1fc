package corpus

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestRoundRatios(t *testing.T) {
	// Two rounds of Mix (base 100, 100; head 110, 110 then base 100, 120; head 99, 121), and a
	// round of Sum missing a head run, which is not complete and is left out.
	var b strings.Builder
	run := func(side string, round int, name string, ns float64) {
		fmt.Fprintf(&b, "perfgate-side: %s\nperfgate-round: %d\n%s 100 %g ns/op\n", side, round, name, ns)
	}
	for _, r := range []struct {
		round    int
		a1, b1   float64
		b2, a2   float64
		sumRound bool
	}{{0, 100, 110, 110, 100, true}, {1, 100, 99, 121, 120, false}} {
		run("base", r.round, "BenchmarkMix", r.a1)
		run("head", r.round, "BenchmarkMix", r.b1)
		run("head", r.round, "BenchmarkMix", r.b2)
		run("base", r.round, "BenchmarkMix", r.a2)
		if r.sumRound {
			run("base", r.round, "BenchmarkSum-2", 5)
			run("head", r.round, "BenchmarkSum-2", 5)
			run("base", r.round, "BenchmarkSum-2", 5)
		}
	}
	got, err := RoundRatios(strings.NewReader(b.String()), "bench.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Log(1.1), 0} // the second round: head and base both 110
	if len(got["Mix"]) != 2 || len(got["Sum"]) != 0 {
		t.Fatalf("got %v, want 2 rounds of Mix and none of Sum", got)
	}
	for i, w := range want {
		if math.Abs(got["Mix"][i]-w) > 1e-12 && math.Abs(got["Mix"][1-i]-w) > 1e-12 {
			t.Errorf("Mix: rounds %v, want %v in some order", got["Mix"], want)
		}
	}
}
