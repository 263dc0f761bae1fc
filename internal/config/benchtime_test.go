package config

import (
	"testing"
	"time"
)

func TestParseBenchTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want BenchTime
		bad  bool
	}{
		{in: "100ms", want: For(100 * time.Millisecond)},
		{in: " 2s ", want: For(2 * time.Second)},
		{in: "100x", want: Fixed(100)},
		{in: "1x", want: Fixed(1)},
		{in: "0x", bad: true},
		{in: "-3x", bad: true},
		{in: "1.5x", bad: true},
		{in: "x", bad: true},
		{in: "2000000000x", bad: true},
		{in: "fast", bad: true},
	} {
		got, err := parseBenchTime(tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("parseBenchTime(%q) = %v, %v; want %v (error: %v)", tc.in, got, err, tc.want, tc.bad)
		}
		if !tc.bad {
			if back, err := parseBenchTime(got.String()); err != nil || back != got {
				t.Errorf("%q: String %q reads back as %v, %v", tc.in, got.String(), back, err)
			}
		}
	}
}

// A fixed count set in the file, by a flag or as an input reaches Config.BenchTime as Iters, and
// passes validation; a policy key, it is copied from base like a duration.
func TestBenchTimeFixed(t *testing.T) {
	k := FlagKey("benchtime")
	if k == nil {
		t.Fatal("no -benchtime flag")
	}
	c := Default()
	if err := k.setText(&c, "250x", "flag"); err != nil {
		t.Fatal(err)
	}
	if c.BenchTime != Fixed(250) {
		t.Fatalf("-benchtime 250x set %v", c.BenchTime)
	}
	if err := k.validate(&c); err != nil {
		t.Errorf("250x: %v", err)
	}
	var base Config
	base.BenchTime = For(time.Second)
	if ch := k.changes(&base, &c); len(ch) != 1 || ch[0].Base != "1s" || ch[0].Head != "250x" {
		t.Errorf("changes from 1s to 250x: %+v", ch)
	}
}
