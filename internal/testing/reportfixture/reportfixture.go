// Package reportfixture holds the hand-made Results that the renderers' tests share (Pass, Fail,
// HostileResult) and their golden-file helper (Golden).
package reportfixture

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// The fixtures are hand-made Results shaped like a real comparison of cipher/des before and after
// folding the P permutation into the S-boxes. The numbers are plausible, not measured: crypto/des
// runs at 86 ns/block for DES and 243 ns/block for 3DES on the development machine (go test -bench
// . crypto/des), and the folded tables cost +2,048 bytes of .noptrdata.

// Digest is a 64-digit hexadecimal digest of one repeated character.
func Digest(c byte) string { return strings.Repeat(string(c), 64) }

// Bench builds one comparison; values in the unit, paired may be nil.
func Bench(name, unit string, base, head float64, deltaPct, p float64, pr *record.Paired, class record.Class) record.Benchmark {
	return record.Benchmark{
		Name: name, Unit: unit,
		Base:     record.Summary{Center: base, Lo: base * 0.99, Hi: base * 1.012, N: 10},
		Head:     record.Summary{Center: head, Lo: head * 0.995, Hi: head * 1.004, N: 10},
		DeltaPct: deltaPct, P: p, PHolm: min(1, p*6), Paired: pr, NoisePct: 0.8, MDEPct: 1.9, Class: class,
	}
}

// Pass is a comparison that passes the gate: DES and 3DES faster, the differential clean.
func Pass() *record.Result {
	ciphers := []record.Cipher{}
	for i, c := range []struct {
		name string
		size int
	}{{"NewCipher", 8}, {"NewTripleEDE2", 16}, {"NewTripleEDE3", 24}, {"NewTripleEEE2", 16}, {"NewTripleEEE3", 24}} {
		d := Digest("0123456789"[i+1])
		ciphers = append(ciphers, record.Cipher{
			Name: c.name, Family: record.FamilyBlock, KeySizes: []int{c.size}, Keys: 1024, Blocks: 17,
			Methods:    []string{"Encrypt", "Decrypt", "EncryptBlocks", "DecryptBlocks"},
			DigestBase: d, DigestHead: d,
		})
	}
	return &record.Result{
		Schema:     record.Schema,
		Package:    "./cipher/des",
		ImportPath: "github.com/perfgate/perfgate/cipher/des",
		Base:       record.Revision{Ref: "main", Commit: "1f0c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6", Subject: "cipher/des: add EEE variants"},
		Head:       record.Revision{Ref: "HEAD", Commit: "9a8b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3", Subject: "cipher/des: fold P into the S-boxes"},
		Verdict: record.Verdict{Status: record.StatusPass, ExitCode: record.ExitPass, Checks: []record.Check{
			{Name: record.CheckBenchmarks, Ran: true, Detail: "6 benchmarks"},
			{Name: record.CheckDifferential, Ran: true, Detail: "5 constructors"},
			{Name: record.CheckSize, Detail: "no max-size-growth set (sizes are reported only)"},
		}},
		Benchmarks: []record.Benchmark{
			Bench("Encrypt/des/single", "sec/op", 139.6e-9, 86.7e-9, -37.89, 0.0001, &record.Paired{Ratio: 0.621, Lo: 0.618, Hi: 0.624}, record.ClassFaster),
			Bench("Decrypt/des/single", "sec/op", 140.2e-9, 87.1e-9, -37.87, 0.0001, &record.Paired{Ratio: 0.622, Lo: 0.617, Hi: 0.626}, record.ClassFaster),
			Bench("Encrypt/3des-ede3/single", "sec/op", 389.0e-9, 243.0e-9, -37.53, 0.0001, &record.Paired{Ratio: 0.625, Lo: 0.621, Hi: 0.629}, record.ClassFaster),
			Bench("EncryptBlocks/des/4KiB", "sec/op", 71.3e-6, 44.9e-6, -37.03, 0.0001, &record.Paired{Ratio: 0.631, Lo: 0.602, Hi: 0.668}, record.ClassFaster),
			Bench("NewCipher/des", "sec/op", 212.4e-9, 213.0e-9, 0.28, 0.684, &record.Paired{Ratio: 1.002, Lo: 0.996, Hi: 1.009}, record.ClassUnchanged),
			Bench("NewTripleEDE3", "sec/op", 655.1e-9, 662.9e-9, 1.19, 0.089, &record.Paired{Ratio: 1.011, Lo: 0.979, Hi: 1.046}, record.ClassInconclusive),
			Bench("Encrypt/des/single", "B/s", 57.31e6, 92.27e6, 61.0, 0.0001, nil, record.ClassFaster),
			Bench("NewCipher/des", "B/op", 256, 256, 0, 1, nil, record.ClassUnchanged),
			Bench("NewCipher/des", "allocs/op", 1, 1, 0, 1, nil, record.ClassUnchanged),
		},
		Functional: record.Functional{
			Base: record.TestRun{Ran: true, Passed: true},
			Head: record.TestRun{Ran: true, Passed: true},
		},
		Differential: record.Differential{Status: record.DiffIdentical, Seed: 20261130, Ciphers: ciphers},
		Sizes: record.Sizes{
			Sections: []record.SectionSize{
				{Name: ".text", Base: 2617, Head: 2302},
				{Name: ".noptrdata", Base: 512, Head: 2560},
				{Name: ".noptrbss", Base: 768, Head: 768},
			},
			Symbols: []record.SymbolSize{
				{Name: "github.com/perfgate/perfgate/cipher/des.feistelBox", Section: ".noptrdata", Base: 0, Head: 2048},
				{Name: "github.com/perfgate/perfgate/cipher/des.permuteBlock", Section: ".text", Base: 412, Head: 0},
				{Name: "github.com/perfgate/perfgate/cipher/des.cryptBlock", Section: ".text", Base: 601, Head: 698},
			},
		},
		Env: record.Env{
			Go: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOAMD64: "v1", CPU: "AMD EPYC 7B13", CPUs: 2,
			Pinned: true, PinnedCPU: 1, Turbo: "unknown", SMT: "on", Kernel: "6.8.0-1015-gcp", Load1: 0.31,
		},
		Method: record.Method{
			Rounds: 5, BenchTime: 100 * time.Millisecond, Threshold: 2, Alpha: 0.05,
			Estimator:  "mean of per-round log ratios head/base, t-interval over rounds",
			NoiseFloor: 0.8, MedianMDE: 1.9, TimedPhase: 3*time.Minute + 2*time.Second,
		},
		Started:  time.Date(2026, 11, 30, 2, 55, 0, 0, time.UTC),
		Duration: 4*time.Minute + 12*time.Second,
	}
}

// Fail fails the gate four ways at once: a differential mismatch, a benchmark that panics on
// head, failing head tests, and two slower benchmarks that a label acknowledged.
func Fail() *record.Result {
	r := Pass()
	r.Head.Dirty = true
	r.Verdict = record.Verdict{
		Status: record.StatusFail, ExitCode: record.ExitFail,
		Reasons: []string{
			"differential mismatch: NewTripleEEE3 differs on 3 of 34,816 blocks",
			"Decrypt/3des-eee3/single panicked on head",
			"head tests failed",
		},
		Acknowledged: []string{
			"NewCipher/des: by label perf-regression-ok",
			"NewTripleEDE3: by label perf-regression-ok",
		},
	}
	r.Notes = []string{"head is the working tree with uncommitted changes"}
	r.Benchmarks[4] = Bench("NewCipher/des", "sec/op", 212.4e-9, 231.9e-9, 9.18, 0.0002, &record.Paired{Ratio: 1.092, Lo: 1.081, Hi: 1.104}, record.ClassSlower)
	r.Benchmarks[4].Acknowledged = true
	r.Benchmarks[5] = Bench("NewTripleEDE3", "sec/op", 655.1e-9, 701.0e-9, 7.01, 0.0004, &record.Paired{Ratio: 1.069, Lo: 1.052, Hi: 1.087}, record.ClassSlower)
	r.Benchmarks[5].Acknowledged = true
	failed := record.Benchmark{Name: "Decrypt/3des-eee3/single", Unit: "sec/op",
		Base: record.Summary{Center: 391e-9, Lo: 389e-9, Hi: 394e-9, N: 10}, Class: record.ClassFailed,
		Note: "no samples on head"}
	r.Benchmarks = append(r.Benchmarks[:6], append([]record.Benchmark{failed}, r.Benchmarks[6:]...)...)
	r.Failures = []record.Failure{{
		Name: "Decrypt/3des-eee3/single", Side: "head", Round: 0, Kind: "panic",
		Message: "panic: runtime error: index out of range [64] with length 64\n\ngoroutine 7 [running]:\n" +
			"github.com/perfgate/perfgate/cipher/des.feistel(...)\n\t/tmp/perfgate-head/cipher/des/block.go:61\n" +
			"github.com/perfgate/perfgate/cipher/des.(*TripleCipher).Decrypt(0xc000012345, {0xc00001a000, 0x8, 0x8})\n" +
			"\t/tmp/perfgate-head/cipher/des/cipher.go:140 +0x1d6\n",
	}}
	r.Functional.Head = record.TestRun{Ran: true, Passed: false, Output: "=== RUN   TestEEE3\n" +
		"    des_test.go:88: NewTripleEEE3(0123456789abcdef…).Encrypt(4e6f772069732074) = 1a2b3c4d5e6f7081, want 3fa40e8a984d4815\n" +
		"--- FAIL: TestEEE3 (0.00s)\nFAIL\nexit status 1\nFAIL\tgithub.com/perfgate/perfgate/cipher/des\t0.012s\n"}
	eee3 := &r.Differential.Ciphers[4]
	r.Differential.Status = record.DiffMismatch
	eee3.Mismatches = 3
	eee3.DigestHead = Digest('f')
	eee3.Examples = []record.Mismatch{
		{KeySize: 24, Key: HexBytes("0123456789abcdef23456789abcdef01456789abcdef0123"), Block: 0, Direction: "encrypt",
			Method: "Encrypt", Input: HexBytes("4e6f772069732074"), Base: HexBytes("3fa40e8a984d4815"), Head: HexBytes("1a2b3c4d5e6f7081")},
		{KeySize: 24, Key: HexBytes("0123456789abcdef23456789abcdef01456789abcdef0123"), Block: 1, Direction: "decrypt",
			Method: "DecryptBlocks", Input: HexBytes("6a271787ab8883f9"), Base: HexBytes("e2ddb87b2a1c2e4f"), Head: HexBytes("00ff00ff00ff00ff")},
	}
	r.Differential.Added = []string{"NewTripleEEE3X"}
	// An AEAD whose tag differs on one message, and a hash whose chunked writes disagree with one
	// Write on head.
	key := HexBytes("000102030405060708090a0b0c0d0e0f")
	r.Differential.Ciphers = append(r.Differential.Ciphers,
		record.Cipher{Name: "NewCipher/GCM", Family: record.FamilyAEAD, Type: "cipher.AEAD",
			KeySizes: []int{16}, NonceSizes: []int{12}, Keys: 8, Lengths: []int{0, 1, 15, 16, 17}, Inputs: 40,
			Methods: []string{"Seal", "Open"}, Mismatches: 1, DigestBase: Digest('a'), DigestHead: Digest('b'),
			Examples: []record.Mismatch{{Constructor: "NewCipher/GCM", KeySize: 16, Key: key, Block: -1,
				Direction: "seal", Method: "Seal", Part: "tag", Length: 17, Nonce: HexBytes("cafebabefacedbaddecaf888"),
				AD: HexBytes("feedface"), Input: HexBytes("d9313225f88406e5a55909c5aff5269a86"),
				Base: HexBytes("42831ec2217774244b7221b784d0d49c"), Head: HexBytes("42831ec2217774244b7221b784d0d49d")}},
		},
		record.Cipher{Name: "NewMAC", Family: record.FamilyHash, Type: "hash.Hash",
			KeySizes: []int{1, 10, 19, 28, 37, 46, 55, 64}, Keys: 8, Lengths: []int{0, 1, 2, 63, 64, 65}, Inputs: 384,
			Methods: []string{"Write", "Sum", "Reset", "Size", "BlockSize"}, DigestBase: Digest('c'), DigestHead: Digest('c'),
			InconsistentHead: 2, Notes: []string{"56 more size pairs accepted by both sides were not compared"},
			Inconsistencies: []record.Inconsistency{{Side: "head", Constructor: "NewMAC", KeySize: 10,
				Key: HexBytes("00112233445566778899"), Block: -1, Part: "chunk boundary", Length: 65, Chunks: []int{0, 64, 1},
				Input: HexBytes("00"), Single: HexBytes("5d1a"), Batch: HexBytes("77e0"),
				Note: "chunks differ from one Write from byte 64"}},
		})
	return r
}

// Hostile is the text an attacker would put in a benchmark name, a panic or a commit subject to
// break out of a table cell, a code fence or a <details> section.
const Hostile = "<b>x</b>|*y*` ```\n</details>\n<img src=x onerror=alert(1)>\n# head\n| a | b |\n~~~\n[l](javascript:x) \x1b[31m$x$ &lt;"

// HostileResult puts Hostile text into every field of the Result that the pull request controls.
func HostileResult() *record.Result {
	r := Fail()
	r.Base.Ref = Hostile
	r.Base.Subject = Hostile
	r.Head.Subject = Hostile
	r.Benchmarks[0].Name = "<b>x</b>|*y*"
	r.Benchmarks[1].Name = Hostile
	r.Benchmarks[1].Note = Hostile
	r.Failures[0].Name = Hostile
	r.Failures[0].Message = "panic: ```` backticks ```` and </details> and <script>alert(1)</script>\n" + Hostile
	r.Functional.Head.Output = Hostile + "\n```\n</details>\n"
	r.Differential.Ciphers[4].Name = Hostile
	r.Differential.Ciphers[4].DigestHead = "`|" + Hostile
	r.Differential.Added = []string{Hostile}
	r.Sizes.Symbols[0].Name = Hostile
	r.Verdict.Reasons = append(r.Verdict.Reasons, Hostile)
	r.Notes = append(r.Notes, Hostile)
	return r
}

// Golden compares got with testdata/name, or rewrites the file when update is set (the test
// package's -update flag).
func Golden(t *testing.T, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

// HexBytes decodes a hexadecimal test constant.
func HexBytes(s string) record.Hex {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// ForestResult has n sec/op benchmarks named b00, b01, …, with the given ratios and classes; each
// interval is the ratio ±1%.
func ForestResult(threshold float64, ratios []float64, classes []record.Class) *record.Result {
	r := &record.Result{Method: record.Method{Threshold: threshold}}
	for i, ratio := range ratios {
		r.Benchmarks = append(r.Benchmarks, record.Benchmark{
			Name: fmt.Sprintf("b%02d", i), Unit: record.UnitTime, Class: classes[i],
			Paired: &record.Paired{Ratio: ratio, Lo: ratio * 0.99, Hi: ratio * 1.01},
		})
	}
	return r
}
