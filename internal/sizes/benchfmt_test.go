package sizes

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestWriteBenchfmtGolden(t *testing.T) {
	base, head := sampleSides()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, base, head, "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "sizes.txt")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("sizes.txt differs from %s (-want +got; run go test -update to accept):\n%s", golden, diff)
	}
}

// readSizes reads sizes.txt back with x/perf's benchfmt reader, as benchstat does, and returns
// each result's value keyed by "side commit pkg name", plus the reader's unit metadata.
func readSizes(t *testing.T, data []byte) (map[string]float64, benchfmt.UnitMetadataMap) {
	t.Helper()
	r := benchfmt.NewReader(bytes.NewReader(data), "sizes.txt")
	got := map[string]float64{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			if rec.Iters != 1 || len(rec.Values) != 1 || rec.Values[0].Unit != "B" {
				t.Errorf("result %s: iters %d, values %+v; want 1 iteration of one value in B", rec.Name, rec.Iters, rec.Values)
				continue
			}
			key := strings.Join([]string{rec.GetConfig("perfgate-side"), rec.GetConfig("perfgate-commit"), rec.GetConfig("pkg"), string(rec.Name.Full())}, " ")
			if _, dup := got[key]; dup {
				t.Errorf("duplicate result %s", key)
			}
			got[key] = rec.Values[0].Value
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return got, r.Units()
}

func TestWriteBenchfmtReadsBack(t *testing.T) {
	base, head := sampleSides()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, base, head, "b0", ""); err != nil {
		t.Fatal(err)
	}
	got, units := readSizes(t, buf.Bytes())
	if m := units.Get("B", "assume"); m == nil || m.Value != "exact" {
		t.Errorf("unit metadata B assume = %+v, want exact", m)
	}
	const p = "example.com/m/des"
	for key, want := range map[string]float64{
		"base b0 " + p + " Size/section=.text": 2617,
		// head's empty commit clears base's
		"head  " + p + " Size/section=.text":                  2302,
		"base b0 " + p + " Size/section=.rodata":              1134,
		"head  " + p + " Size/section=.rodata":                2670,
		"head  " + p + "/internal/sp Size/section=.noptrdata": 512,
		"base b0 " + p + " Size/section=.noptrbss":            2048,
		"head  " + p + " Size/section=.noptrdata":             2048,
		// base lacks the subpackage: 0, so the row compares
		"base b0 " + p + "/internal/sp Size/section=.noptrdata": 0,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
	// Rows: sections with bytes on either side, the same on both sides: des .text, .rodata,
	// .noptrdata, .noptrbss and sp .noptrdata.
	if len(got) != 2*5 {
		t.Errorf("%d results, want 10", len(got))
	}
}

// TestWriteBenchfmtFixture writes the real fixture measurements and checks that every section
// reads back with the measured value.
func TestWriteBenchfmtFixture(t *testing.T) {
	base, err := Measure(fixtureBinary(t, false, ""), gatedPkg)
	if err != nil {
		t.Fatal(err)
	}
	head, err := Measure(fixtureBinary(t, true, ""), gatedPkg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, base, head, "aaaa", "bbbb"); err != nil {
		t.Fatal(err)
	}
	got, _ := readSizes(t, buf.Bytes())
	n := 0
	for _, p := range Diff(base, head).Packages {
		for _, sec := range p.Sections {
			if sec.Base == 0 && sec.Head == 0 {
				continue
			}
			for _, side := range []struct {
				key  string
				size int64
			}{{"base aaaa ", sec.Base}, {"head bbbb ", sec.Head}} {
				key := side.key + p.Path + " Size/section=" + sec.Name
				if v, ok := got[key]; !ok || v != float64(side.size) {
					t.Errorf("%s = %v (present %v), want %d", key, v, ok, side.size)
				}
				n++
			}
		}
	}
	if len(got) != n || n == 0 {
		t.Errorf("%d results, want %d", len(got), n)
	}
	// The 2 KiB table shows as head − base in .noptrdata.
	noptr := "Size/section=.noptrdata"
	if d := got["head bbbb "+gatedPkg+" "+noptr] - got["base aaaa "+gatedPkg+" "+noptr]; d != 2048 {
		t.Errorf(".noptrdata head − base = %v, want 2048", d)
	}
}

func TestWriteBenchfmtRejectsLineBreaks(t *testing.T) {
	base, _ := sampleSides()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, base, nil, "abc\nBenchmarkFake 1 1 B", ""); err == nil {
		t.Error("a commit with a line break was written")
	}
}
