package benchtxt

import (
	"fmt"
	"io"
	"strconv"

	"github.com/perfgate/perfgate/record"
	"golang.org/x/perf/benchfmt"
)

// Configuration keys of bench.txt. Each sample is preceded by the ones that changed since the
// previous sample.
const (
	KeySide   = "perfgate-side"   // base or head
	KeyRound  = "perfgate-round"  // the 0-based round
	KeySlot   = "perfgate-slot"   // 0..3, the position in the round's A B B A
	KeyCommit = "perfgate-commit" // the commit of the side
)

// UnitPeakRSS is the unit of a sample's peak resident set size in bench.txt: bytes, so benchstat
// scales it as it does B/op. It is not among a Sample's Values: ReadBenchTxt returns it as
// Sample.PeakRSS.
const UnitPeakRSS = "peak-RSS-B"

// UnitFaults and UnitGCs are the units of a sample's Process evidence in bench.txt: minor page
// faults and garbage collections per op of the run's process. Like UnitPeakRSS they are not among
// a Sample's Values (ReadBenchTxt returns them as Sample.Process), so no statistic compares them
// and no gate reads them; benchstat shows them as any other unit.
const (
	UnitFaults   = "faults/op"
	UnitGCs      = "gcs/op"
	UnitCPUShare = "cpu-share" // Process.CPUShare
)

// BenchstatCommand compares the two sides of a bench.txt with stock benchstat. The -ignore keeps
// benchstat from splitting the table by round, slot and commit, which change from sample to sample.
const BenchstatCommand = "benchstat -col " + KeySide + " -ignore " + KeyRound + "," + KeySlot + "," + KeyCommit +
	" bench.txt"

// headerKeys are the configuration lines go test prints, in its order.
var headerKeys = []string{"goos", "goarch", "pkg", "cpu"}

// BenchTxt writes samples to a bench.txt: the Go benchmark format, readable by benchstat (see
// BenchstatCommand) and by ReadBenchTxt. Times are written as ns/op and throughput as MB/s, as go
// test prints them.
type BenchTxt struct {
	out     io.Writer
	w       *benchfmt.Writer
	header  map[string]string
	commits map[record.Side]string
	started bool
}

// NewBenchTxt returns a writer of samples to w. header holds the goos, goarch, pkg and cpu lines
// (as Run.Header); commits the commit of each side, written as perfgate-commit when not empty.
func NewBenchTxt(w io.Writer, header map[string]string, commits map[record.Side]string) *BenchTxt {
	return &BenchTxt{out: w, w: benchfmt.NewWriter(w), header: header, commits: commits}
}

// Write writes one sample, preceded by the configuration lines that changed.
func (b *BenchTxt) Write(s Sample) error {
	if !b.started {
		b.started = true
		if _, err := fmt.Fprintf(b.out, "# perfgate A-B-B-A samples, one line per run: the fastest of its sub-runs (up to "+
			"%d) after a discarded warm-up sub-run;\n# %s, %s and %s are the run's whole process's, evidence only;\n"+
			"# compare the sides with:\n#   %s\n\n", SubRuns, UnitFaults, UnitGCs, UnitCPUShare, BenchstatCommand); err != nil {
			return err
		}
	}
	res := &benchfmt.Result{Name: benchfmt.Name(s.Name), Iters: s.Iters}
	conf := func(k, v string) {
		if v != "" {
			res.Config = append(res.Config, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		}
	}
	for _, k := range headerKeys {
		conf(k, b.header[k])
	}
	conf(KeyCommit, b.commits[s.Side])
	conf(KeySide, string(s.Side))
	conf(KeyRound, strconv.Itoa(s.Round))
	conf(KeySlot, strconv.Itoa(s.Slot))
	for _, v := range s.Values {
		fv := benchfmt.Value{Value: v.Value, Unit: v.Unit}
		switch v.Unit {
		case "sec/op":
			fv.OrigValue, fv.OrigUnit = round12(v.Value*1e9), "ns/op"
		case "B/s":
			fv.OrigValue, fv.OrigUnit = round12(v.Value/1e6), "MB/s"
		}
		res.Values = append(res.Values, fv)
	}
	if s.PeakRSS > 0 {
		res.Values = append(res.Values, benchfmt.Value{Value: float64(s.PeakRSS), Unit: UnitPeakRSS})
	}
	if p := s.Process; p != nil {
		res.Values = append(res.Values, benchfmt.Value{Value: p.Faults, Unit: UnitFaults})
		if p.GCs >= 0 {
			res.Values = append(res.Values, benchfmt.Value{Value: p.GCs, Unit: UnitGCs})
		}
		if p.CPUShare > 0 {
			res.Values = append(res.Values, benchfmt.Value{Value: p.CPUShare, Unit: UnitCPUShare})
		}
	}
	return b.w.Write(res)
}

// round12 rounds x to 12 significant digits, so that scaling back to go test's units prints 29.52,
// not 29.520000000000003; the values go test prints have far fewer digits.
func round12(x float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// ReadBenchTxt reads the samples of a bench.txt written by BenchTxt, with their side, round and
// slot. Values come back in benchfmt's tidy units (sec/op, B/s), sec/op first. A result line
// without a valid perfgate-side, perfgate-round or perfgate-slot is an error, as is a malformed
// line.
func ReadBenchTxt(r io.Reader) ([]Sample, error) {
	rd := benchfmt.NewReader(r, "bench.txt")
	var out []Sample
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("reading %w", rec)
		case *benchfmt.Result:
			s, err := sampleOf(rec)
			if err != nil {
				file, line := rec.Pos()
				return nil, fmt.Errorf("reading %s:%d: %w", file, line, err)
			}
			out = append(out, s)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("reading bench.txt: %w", err)
	}
	return out, nil
}

func sampleOf(rec *benchfmt.Result) (Sample, error) {
	s := Sample{Name: rec.Name.String(), Side: record.Side(rec.GetConfig(KeySide)), Iters: rec.Iters}
	if s.Side != record.Base && s.Side != record.Head {
		return s, fmt.Errorf("%s is %q, want base or head", KeySide, s.Side)
	}
	var err error
	if s.Round, err = strconv.Atoi(rec.GetConfig(KeyRound)); err != nil || s.Round < 0 {
		return s, fmt.Errorf("%s is %q, want a round number", KeyRound, rec.GetConfig(KeyRound))
	}
	if s.Slot, err = strconv.Atoi(rec.GetConfig(KeySlot)); err != nil || s.Slot < 0 || s.Slot > 3 {
		return s, fmt.Errorf("%s is %q, want 0..3", KeySlot, rec.GetConfig(KeySlot))
	}
	for _, v := range rec.Values {
		switch v.Unit {
		case UnitPeakRSS:
			s.PeakRSS = int64(v.Value)
			continue
		case UnitFaults:
			if s.Process == nil {
				s.Process = &Process{GCs: -1}
			}
			s.Process.Faults = v.Value
			continue
		case UnitGCs, UnitCPUShare:
			if s.Process == nil {
				s.Process = &Process{GCs: -1}
			}
			if v.Unit == UnitGCs {
				s.Process.GCs = v.Value
			} else {
				s.Process.CPUShare = v.Value
			}
			continue
		}
		s.Values = append(s.Values, Value{Value: v.Value, Unit: v.Unit})
	}
	s.Values = SecFirst(s.Values)
	return s, nil
}

// SubRuns is how many sub-runs one measured run is split into: the child runs the leaf SubRuns
// times in a row (-test.count), each for a SubRuns-th of the calibrated iterations, and its sample
// is the fastest sub-run.
//
// On a shared machine most noise is a burst that slows part of a run: a neighbour on the host
// core's other hyperthread, the host's own work. The fastest of a run's sub-runs is the least
// disturbed part of it, and the A–B–B–A contrast of fastest sub-runs stays unbiased for identical
// code, because every slot of both sides is reduced alike, in the same process it was measured in
// (unlike taking the faster of two slots, which favours the side whose slots lie further apart; see
// package bench, paired.go). Measured on this project's VM under a neighbour's load (A/A pairs of
// five DES benchmarks, 25 rounds, 18 ms per run): the standard deviation of the per-round contrast
// fell from 11–26% with one run to 1–15% with the fastest of five sub-runs.
const SubRuns = 5
