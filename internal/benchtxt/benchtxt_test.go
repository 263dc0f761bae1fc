package benchtxt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/perf/benchfmt"
)

func testSamples() []Sample {
	var out []Sample
	for r := range 2 {
		for slot, side := range []record.Side{record.Base, record.Head, record.Head, record.Base} {
			out = append(out,
				Sample{Name: "Encrypt/des/single", Side: side, Round: r, Slot: slot, Iters: 1200000,
					Values:  []Value{{8.6e-8 + float64(slot)*1e-10, "sec/op"}, {9.3e7, "B/s"}, {0, "B/op"}, {0, "allocs/op"}},
					PeakRSS: 12 << 20},
				Sample{Name: "KeySetup/x[1]", Side: side, Round: r, Slot: slot, Iters: 300,
					Values:  []Value{{1.5e-6, "sec/op"}, {128, "B/op"}, {2, "allocs/op"}, {3.5, "custom/op"}},
					Process: &Process{Faults: 0.25, GCs: 0.0125, CPUShare: 0.97}})
		}
	}
	return out
}

func writeSamples(t *testing.T, ss []Sample) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewBenchTxt(&buf, map[string]string{"goos": "linux", "goarch": "amd64", "pkg": "example.com/des", "cpu": "AMD EPYC"},
		map[record.Side]string{record.Base: "aaaa", record.Head: "bbbb"})
	for _, s := range ss {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestBenchTxtRoundTrip(t *testing.T) {
	in := testSamples()
	txt := writeSamples(t, in)
	out, err := ReadBenchTxt(bytes.NewReader(txt))
	if err != nil {
		t.Fatal(err)
	}
	// Times go out as ns/op and throughput as MB/s, as go test prints them, so values come back
	// within rounding.
	if diff := cmp.Diff(in, out, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	for _, want := range []string{
		"# compare the sides with:\n#   " + BenchstatCommand + "\n",
		"goos: linux\ngoarch: amd64\npkg: example.com/des\ncpu: AMD EPYC\nperfgate-commit: aaaa\nperfgate-side: base\nperfgate-round: 0\nperfgate-slot: 0\n",
		"BenchmarkEncrypt/des/single 1200000 86 ns/op 93 MB/s 0 B/op 0 allocs/op 1.2582912e+07 peak-RSS-B\n",
		"BenchmarkKeySetup/x[1] 300 1500 ns/op 128 B/op 2 allocs/op 3.5 custom/op 0.25 faults/op 0.0125 gcs/op 0.97 cpu-share\n",
	} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("bench.txt lacks %q:\n%s", want, txt)
		}
	}
}

// TestBenchTxtStockReader reads bench.txt with x/perf's own reader, as benchstat does, and checks
// every result carries its side, round, slot and commit as file configuration.
func TestBenchTxtStockReader(t *testing.T) {
	in := testSamples()
	r := benchfmt.NewReader(bytes.NewReader(writeSamples(t, in)), "bench.txt")
	i := 0
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("record %d: %v", i, r.Result())
		}
		s := in[i]
		commit := map[record.Side]string{record.Base: "aaaa", record.Head: "bbbb"}[s.Side]
		got := [5]string{res.Name.String(), res.GetConfig(KeySide), res.GetConfig(KeyRound), res.GetConfig(KeySlot), res.GetConfig(KeyCommit)}
		want := [5]string{s.Name, string(s.Side), itoa(s.Round), itoa(s.Slot), commit}
		if got != want {
			t.Errorf("result %d: got %q, want %q", i, got, want)
		}
		if ns, _ := res.Value("sec/op"); ns <= 0 {
			t.Errorf("result %d: no sec/op", i)
		}
		for _, c := range res.Config {
			if !c.File {
				t.Errorf("result %d: config %s is not a file key", i, c.Key)
			}
		}
		i++
	}
	if err := r.Err(); err != nil || i != len(in) {
		t.Errorf("read %d results, err %v; want %d", i, err, len(in))
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestReadBenchTxtErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BenchmarkA 10 5 ns/op\n", "perfgate-side is \"\""},
		{"perfgate-side: left\nperfgate-round: 0\nperfgate-slot: 0\nBenchmarkA 10 5 ns/op\n", "perfgate-side is \"left\""},
		{"perfgate-side: base\nperfgate-round: x\nperfgate-slot: 0\nBenchmarkA 10 5 ns/op\n", "perfgate-round is \"x\""},
		{"perfgate-side: base\nperfgate-round: 0\nperfgate-slot: 4\nBenchmarkA 10 5 ns/op\n", "perfgate-slot is \"4\""},
		{"perfgate-side: base\nperfgate-round: 0\nperfgate-slot: 0\nBenchmarkA 10 five ns/op\n", "parsing measurement"},
	}
	for _, tt := range tests {
		_, err := ReadBenchTxt(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadBenchTxt(%q) error = %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}
