package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Truth is what a long interleaved run measured on a pair: per benchmark, the head/base ratio of
// wall time.
type Truth struct {
	// the command that measured it, with the repository's commits as base and head
	Command  string
	Measured string   // when, RFC 3339 in UTC
	Machine  string   // CPU model and cores
	Load     string   // /proc/loadavg's 1-, 5- and 15-minute loads before and after the run
	Notes    []string // what a reader should know about the measurement: noise, disturbed rounds
	Benches  []TruthBench
}

// TruthBench is the measured change of one benchmark: the median over rounds of the A–B–B–A ratio
// head/base, in percent, with a distribution-free interval (MedianInterval).
type TruthBench struct {
	Name     string  // the benchmark's name as perfgate reports it, e.g. "Mix/64"
	Pct      float64 // (head/base − 1) × 100 of the paired estimate
	Lo, Hi   float64 // its interval, in percent
	NoisePct float64 // the run's single-run noise for this benchmark, in percent
	Rounds   int     // rounds used
}

// Direction is the sign of a measured change.
type Direction string

const (
	Slower    Direction = "slower"    // the whole interval is above 0
	Faster    Direction = "faster"    // the whole interval is below 0
	Unchanged Direction = "unchanged" // the interval straddles 0: unchanged within ±Within()
)

// Direction is slower, faster or unchanged, from where the interval lies.
func (b TruthBench) Direction() Direction {
	switch {
	case b.Lo > 0:
		return Slower
	case b.Hi < 0:
		return Faster
	}
	return Unchanged
}

// Within is the largest change, in percent, the interval allows either way.
func (b TruthBench) Within() float64 { return math.Max(math.Abs(b.Lo), math.Abs(b.Hi)) }

// Neutral reports whether the change lies inside ±threshold percent (the whole interval).
func (b TruthBench) Neutral(threshold float64) bool { return b.Within() < threshold }

// Beyond reports whether the change lies beyond threshold percent in its direction (the whole
// interval).
func (b TruthBench) Beyond(threshold float64) bool { return b.Lo > threshold || b.Hi < -threshold }

// Bench returns the truth of the benchmark named name, or false.
func (t *Truth) Bench(name string) (TruthBench, bool) {
	for _, b := range t.Benches {
		if b.Name == name {
			return b, true
		}
	}
	return TruthBench{}, false
}

const benchHeader = "#     name  direction  change%  lo%  hi%  noise%  rounds"

// Format writes the truth file.
func (t *Truth) Format() []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# The truth of this pair: per benchmark, the median over the A–B–B–A rounds of one long run of\n"+
		"# head/base time per operation (the clock the command names), with the sign test's 95%% interval.\n")
	fmt.Fprintf(&buf, "command: %s\nmeasured: %s\nmachine: %s\nload: %s\n", t.Command, t.Measured, t.Machine, t.Load)
	for _, n := range t.Notes {
		fmt.Fprintf(&buf, "note: %s\n", n)
	}
	fmt.Fprintln(&buf, benchHeader)
	for _, b := range t.Benches {
		fmt.Fprintf(&buf, "bench %s %s %+.2f %+.2f %+.2f %.2f %d", b.Name, b.Direction(), b.Pct, b.Lo, b.Hi,
			b.NoisePct, b.Rounds)
		if b.Direction() == Unchanged {
			fmt.Fprintf(&buf, "  # unchanged within ±%.2f%%", b.Within())
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// ParseTruth parses a truth file written by Format.
func ParseTruth(data []byte) (*Truth, error) {
	t := &Truth{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "bench "); ok {
			b, err := parseBench(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			t.Benches = append(t.Benches, b)
			continue
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("line %d: want \"key: value\" or \"bench …\", got %q", n, line)
		}
		switch key {
		case "command":
			t.Command = value
		case "measured":
			t.Measured = value
		case "machine":
			t.Machine = value
		case "load":
			t.Load = value
		case "note":
			t.Notes = append(t.Notes, value)
		default:
			return nil, fmt.Errorf("line %d: unknown key %q", n, key)
		}
	}
	switch {
	case t.Command == "" || t.Measured == "":
		return nil, fmt.Errorf(`want "command:" and "measured:" lines`)
	case len(t.Benches) == 0:
		return nil, fmt.Errorf(`no "bench" lines`)
	}
	return t, nil
}

// parseBench parses "NAME DIRECTION PCT LO HI NOISE ROUNDS" and checks that the direction fits the
// interval.
func parseBench(s string) (TruthBench, error) {
	f := strings.Fields(s)
	if len(f) != 7 {
		return TruthBench{}, fmt.Errorf("bench: want 7 fields (%s), got %d", strings.TrimPrefix(benchHeader, "# "), len(f))
	}
	b := TruthBench{Name: f[0]}
	var err error
	for i, p := range []*float64{&b.Pct, &b.Lo, &b.Hi, &b.NoisePct} {
		if *p, err = strconv.ParseFloat(f[2+i], 64); err != nil {
			return TruthBench{}, fmt.Errorf("bench %s: %w", b.Name, err)
		}
	}
	if b.Rounds, err = strconv.Atoi(f[6]); err != nil {
		return TruthBench{}, fmt.Errorf("bench %s: rounds: %w", b.Name, err)
	}
	switch {
	case !(b.Lo <= b.Pct && b.Pct <= b.Hi):
		return TruthBench{}, fmt.Errorf("bench %s: change %v%% outside its interval [%v, %v]", b.Name, b.Pct, b.Lo, b.Hi)
	case Direction(f[1]) != b.Direction():
		return TruthBench{}, fmt.Errorf("bench %s: direction %q, but the interval [%v, %v] says %s",
			b.Name, f[1], b.Lo, b.Hi, b.Direction())
	}
	return b, nil
}
