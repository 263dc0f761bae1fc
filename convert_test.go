package perfgate

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/bench"
	"github.com/perfgate/perfgate/differential"
	"github.com/perfgate/perfgate/sizes"
)

func TestFromComparisons(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cmps := []bench.Comparison{
		{
			Name: "Encrypt/des", Unit: "sec/op",
			Base:     bench.Summary{Center: 86e-9, Lo: 85e-9, Hi: 87e-9, N: 10},
			Head:     bench.Summary{Center: 92e-9, Lo: 91e-9, Hi: 93e-9, N: 10},
			DeltaPct: 6.977, P: 0.0002, PHolm: 0.004, NoisePct: 0.8, MDEPct: 1.1,
			Paired: &bench.PairedEstimate{Ratio: 1.07, Lo: 1.06, Hi: 1.08, P: 0.001, Rounds: 5},
			Class:  bench.ClassSlower,
		},
		{
			// Too few samples: benchmath's intervals are ±Inf, a p-value that could not be computed is NaN.
			Name: "Encrypt/3des", Unit: "B/s",
			Base:     bench.Summary{Center: 3e7, Lo: math.Inf(-1), Hi: inf, N: 2, Warnings: []error{errors.New("need >= 6 samples")}},
			Head:     bench.Summary{Center: inf, Lo: nan, Hi: 1, N: 2, Warnings: []error{errors.New("need >= 6 samples")}},
			DeltaPct: inf, P: nan, PHolm: nan, NoisePct: math.Inf(-1), MDEPct: nan,
			Warnings: []error{errors.New("all samples are equal"), nil},
			Paired:   &bench.PairedEstimate{Ratio: nan, Lo: math.Inf(-1), Hi: inf},
			Class:    bench.ClassInconclusive,
		},
		{
			Name: "KeySetup", Unit: "allocs/op", Class: bench.ClassFailed, Note: "no head samples",
			Warnings: []error{errors.New("ignored: the note is set")},
		},
	}
	got := fromComparisons(cmps)
	want := []Benchmark{
		{
			Name: "Encrypt/des", Unit: "sec/op",
			Base:     Summary{Center: 86e-9, Lo: 85e-9, Hi: 87e-9, N: 10},
			Head:     Summary{Center: 92e-9, Lo: 91e-9, Hi: 93e-9, N: 10},
			DeltaPct: 6.977, P: 0.0002, PHolm: 0.004, NoisePct: 0.8, MDEPct: 1.1,
			Paired: &Paired{Ratio: 1.07, Lo: 1.06, Hi: 1.08},
			Class:  ClassSlower,
		},
		{
			Name: "Encrypt/3des", Unit: "B/s",
			Base:   Summary{Center: 3e7, N: 2},
			Head:   Summary{N: 2},
			Paired: &Paired{},
			Class:  ClassInconclusive,
			Note:   "all samples are equal; need >= 6 samples", // each warning once, in order
		},
		{Name: "KeySetup", Unit: "allocs/op", Class: ClassFailed, Note: "no head samples"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fromComparisons (-want +got):\n%s", diff)
	}
	// Every value must survive JSON: encoding/json refuses NaN and ±Inf.
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var back []Benchmark
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("after a JSON round trip (-want +got):\n%s", diff)
	}

	if got := fromComparisons(nil); got == nil || len(got) != 0 {
		t.Errorf("fromComparisons(nil) = %#v, want an empty, non-nil slice (JSON [], not null)", got)
	}
}

func TestFinite(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{
		{math.NaN(), 0}, {math.Inf(1), 0}, {math.Inf(-1), 0}, {-2.5, -2.5}, {math.MaxFloat64, math.MaxFloat64}, {0, 0},
	} {
		if got := finite(tt.in); got != tt.want {
			t.Errorf("finite(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFromSizes(t *testing.T) {
	d := &sizes.Delta{
		Package: "example.com/m/cipher/des",
		Sections: []sizes.SectionDelta{
			{Name: ".text", Base: 4096, Head: 4200, Delta: 104, DeltaPct: 2.54},
			{Name: ".rodata", Base: 2048, Head: 2000, Delta: -48},
		},
		Symbols: []sizes.SymbolDelta{
			{Name: "example.com/m/cipher/des.encryptBlock", Section: ".text", Package: "example.com/m/cipher/des",
				Base: 300, Head: 404, Delta: 104, Change: "Grew"},
			{Name: "example.com/m/cipher/des.sBoxes", Section: ".rodata", Base: 48, Delta: -48, Change: "Removed"},
		},
	}
	got := fromSizes(d)
	want := Sizes{
		Sections: []SectionSize{{Name: ".text", Base: 4096, Head: 4200}, {Name: ".rodata", Base: 2048, Head: 2000}},
		Symbols: []SymbolSize{
			{Name: "example.com/m/cipher/des.encryptBlock", Section: ".text", Base: 300, Head: 404},
			{Name: "example.com/m/cipher/des.sBoxes", Section: ".rodata", Base: 48},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fromSizes (-want +got):\n%s", diff)
	}
	empty := fromSizes(&sizes.Delta{})
	if empty.Sections == nil || empty.Symbols == nil {
		t.Errorf("fromSizes(empty) = %#v, want empty, non-nil slices (JSON [], not null)", empty)
	}
}

func TestFromDifferential(t *testing.T) {
	rep := &differential.Report{
		Status: differential.StatusMismatch, Reason: "1 of 2 constructors differ", Seed: 42, Package: "./cipher/des",
		Added: []string{"NewFast"}, Removed: []string{"NewSlow"},
		Ciphers: []differential.Cipher{
			{Name: "NewTripleDESCipher", KeySizes: []int{24}, Keys: 16, Blocks: 4, Methods: []string{"Encrypt", "Decrypt"},
				DigestBase: "aa", DigestHead: "aa"},
			{
				Name: "NewCipher", KeySizes: []int{8}, Keys: 16, Blocks: 4, Methods: []string{"Encrypt"},
				Mismatches: 2, DigestBase: "bb", DigestHead: "cc",
				Examples: []differential.Mismatch{
					// FIPS 81 appendix B: DES-ECB with key 0123456789abcdef encrypts "Now is t" to 3fa40e8a984d4815;
					// head is made to differ in the last bit.
					{Constructor: "NewCipher", KeySize: 8, Block: 3, Direction: "encrypt", Method: "Encrypt",
						Key:   differential.Hex{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef},
						Input: differential.Hex("Now is t"),
						Base:  differential.Hex{0x3f, 0xa4, 0x0e, 0x8a, 0x98, 0x4d, 0x48, 0x15},
						Head:  differential.Hex{0x3f, 0xa4, 0x0e, 0x8a, 0x98, 0x4d, 0x48, 0x14}},
					// A key setup that failed on head has no input and no output: the hex is empty.
					{Constructor: "NewCipher", KeySize: 8, Direction: "setup", Method: "NewCipher",
						Key: differential.Hex{0xff}},
				},
			},
		},
	}
	got := fromDifferential(rep)
	want := Differential{
		Status: DiffMismatch, Reason: "1 of 2 constructors differ", Seed: 42,
		Added: []string{"NewFast"}, Removed: []string{"NewSlow"},
		Ciphers: []DiffCipher{
			{Name: "NewTripleDESCipher", KeySizes: []int{24}, Keys: 16, Blocks: 4, Methods: []string{"Encrypt", "Decrypt"},
				DigestBase: "aa", DigestHead: "aa"},
			{
				Name: "NewCipher", KeySizes: []int{8}, Keys: 16, Blocks: 4, Methods: []string{"Encrypt"},
				Mismatches: 2, DigestBase: "bb", DigestHead: "cc",
				Examples: []Mismatch{
					{KeySize: 8, Key: "0123456789abcdef", Block: 3, Direction: "encrypt", Method: "Encrypt",
						Input: "4e6f772069732074", Base: "3fa40e8a984d4815", Head: "3fa40e8a984d4814"},
					{KeySize: 8, Key: "ff", Direction: "setup", Method: "NewCipher"},
				},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fromDifferential (-want +got):\n%s", diff)
	}
	// The statuses are the same strings in both packages, so they pass through unmapped.
	for _, s := range [][2]string{
		{differential.StatusIdentical, DiffIdentical}, {differential.StatusMismatch, DiffMismatch},
		{differential.StatusNotComparable, DiffNotComparable}, {differential.StatusSkipped, DiffSkipped},
	} {
		if s[0] != s[1] {
			t.Errorf("differential status %q, perfgate status %q: want the same string", s[0], s[1])
		}
	}
	if empty := fromDifferential(&differential.Report{Status: differential.StatusSkipped}); empty.Ciphers == nil {
		t.Error("fromDifferential(no ciphers).Ciphers is nil, want [] (JSON [], not null)")
	}
}
