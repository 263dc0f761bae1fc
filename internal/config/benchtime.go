package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// BenchTime is how long one measured run of a benchmark lasts, as go test's -benchtime takes it:
// a duration, from which perfgate calibrates one iteration count on base and runs both sides with
// it, or a fixed count of iterations ("100x"), which both sides run as it is, without calibration.
type BenchTime struct {
	Duration time.Duration // the calibration target; 0 when Iters is set
	Iters    int           // the fixed iteration count of "Nx"; 0 for a duration
}

// Fixed is a BenchTime of n iterations a run.
func Fixed(n int) BenchTime { return BenchTime{Iters: n} }

// For is a BenchTime calibrated to d a run.
func For(d time.Duration) BenchTime { return BenchTime{Duration: d} }

// String writes b as the flag takes it: "100ms" or "100x".
func (b BenchTime) String() string {
	if b.Iters != 0 {
		return strconv.Itoa(b.Iters) + "x"
	}
	return b.Duration.String()
}

// maxBenchIters bounds "Nx": a billion iterations of the fastest benchmark already last a second.
const maxBenchIters = 1_000_000_000

// parseBenchTime reads "100ms" or "100x".
func parseBenchTime(s string) (BenchTime, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "x"); ok {
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > maxBenchIters {
			return BenchTime{}, fmt.Errorf("not a count of iterations from 1 to %d: %q", maxBenchIters, n)
		}
		return Fixed(i), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return BenchTime{}, err
	}
	return For(d), nil
}

// benchTimeKey takes a duration from lo to hi or a count from 1x to maxBenchIters.
func benchTimeKey(k Key, field func(*Config) *BenchTime, lo, hi time.Duration) *Key {
	k.Type = "duration or Nx"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error {
		b, err := parseBenchTime(s)
		if err != nil {
			return err
		}
		*field(c) = b
		return nil
	}
	k.check = func(c *Config) (string, bool) {
		b := *field(c)
		if b.Iters != 0 {
			return b.String(), b.Iters >= 1 && b.Iters <= maxBenchIters && b.Duration == 0
		}
		return b.String(), b.Duration >= lo && b.Duration <= hi
	}
	return &k
}
