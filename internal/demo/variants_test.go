package demo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// testBinary checks out commit name, adds the crypto/des cross-check, and
// builds the fixture's test binary. It returns the binary's path.
func testBinary(t *testing.T, repo *Repo, name string) string {
	t.Helper()
	dir := checkout(t, repo, name)
	check, err := os.ReadFile("testdata/crosscheck_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "minides", "crosscheck_test.go"), check, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), name+".test")
	if out, err := goCmd(t, dir, "test", "-c", "-o", bin, Package); err != nil {
		t.Fatalf("go test -c at %s: %v\n%s", name, err, out)
	}
	return bin
}

// runBinary runs a fixture test binary with args and extra environment,
// killing it after two minutes.
func runBinary(t *testing.T, bin string, env []string, args ...string) (string, error) {
	t.Helper()
	return runBinaryTimeout(t, 2*time.Minute, bin, env, args...)
}

// runBinaryTimeout is runBinary with a chosen time limit. A benchmark's
// time is not limited by -test.timeout, which covers tests only.
func runBinaryTimeout(t *testing.T, limit time.Duration, bin string, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return string(out), err
}

// TestCrossCheckStdlib runs the fixture's own tests and a crypto/des
// cross-check (testdata/crosscheck_test.go) on base and folded, which
// must agree with crypto/des. By default it stops there; in the long
// end-to-end set (PERFGATE_E2E=1) it also proves that the variants meant
// to differ do (so the check can fail) and that the ones meant to be
// identical are.
func TestCrossCheckStdlib(t *testing.T) {
	needGit(t)
	repo := materialize(t)
	for _, tc := range []struct {
		name     string
		slow     bool
		ownTests bool   // the fixture's own tests pass
		mismatch string // "" if the output agrees with crypto/des, else the first failing check
	}{
		{"base", false, true, ""},
		{"folded", false, true, ""},
		{"broken", true, true, "des encrypt"},
		{"slower", true, true, ""},
		{"bigtable", true, true, ""},
		{"tail", true, true, "des encrypt"},
		{"parity", true, true, "des encrypt"},
		// Decryption must invert encryption, so the round trip fails too.
		{"decrypt", true, false, "des decrypt"},
		{"extraiter", true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow {
				testenv.Long(t) // builds a variant
			}
			bin := testBinary(t, repo, tc.name)
			out, err := runBinary(t, bin, nil, "-test.run=^TestCrossCheckStdlib$")
			if tc.mismatch == "" {
				if err != nil || !strings.Contains(out, "PASS") {
					t.Errorf("cross-check at %s: %v\n%s", tc.name, err, out)
				}
			} else if err == nil || !strings.Contains(out, tc.mismatch+" key ") {
				t.Errorf("cross-check at %s: err = %v, want a %q mismatch\n%s", tc.name, err, tc.mismatch, out)
			}
			out, err = runBinary(t, bin, nil, "-test.run=^Test", "-test.skip=^TestCrossCheckStdlib$")
			if ok := err == nil; ok != tc.ownTests {
				t.Errorf("fixture tests at %s: err = %v, want pass = %v\n%s", tc.name, err, tc.ownTests, out)
			}
		})
	}
}

// dumpProgram is a test added to a checkout to print the ciphertext and
// the decryption of 17 fixed blocks under the key in $DEMO_KEY (hex).
const dumpProgram = `package minides

import (
	"encoding/hex"
	"fmt"
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	key, err := hex.DecodeString(os.Getenv("DEMO_KEY"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 17*BlockSize)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, len(src))
	c.EncryptBlocks(dst, src)
	for i := 0; i < len(dst); i += BlockSize {
		fmt.Printf("encrypt %x\n", dst[i:i+BlockSize])
	}
	c.DecryptBlocks(dst, src)
	for i := 0; i < len(dst); i += BlockSize {
		fmt.Printf("decrypt %x\n", dst[i:i+BlockSize])
	}
}
`

// dumper checks out commits of repo and runs dumpProgram in them.
type dumper struct {
	t    *testing.T
	repo *Repo
	dirs map[string]string
}

// dump returns the 17 encrypted then the 17 decrypted blocks, in hex and
// prefixed with the direction, at commit name under key (hex).
func (d *dumper) dump(name, key string) []string {
	t := d.t
	t.Helper()
	dir, ok := d.dirs[name]
	if !ok {
		dir = checkout(t, d.repo, name)
		if err := os.WriteFile(filepath.Join(dir, "minides", "dump_test.go"), []byte(dumpProgram), 0o644); err != nil {
			t.Fatal(err)
		}
		d.dirs[name] = dir
	}
	t.Setenv("DEMO_KEY", key)
	out, err := goCmd(t, dir, "test", "-count=1", "-v", "-run=^TestDump$", Package)
	if err != nil {
		t.Fatalf("dump at %s: %v\n%s", name, err, out)
	}
	var blocks []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "encrypt ") || strings.HasPrefix(line, "decrypt ") {
			blocks = append(blocks, line)
		}
	}
	if len(blocks) != 34 {
		t.Fatalf("dump at %s: %d blocks, want 34\n%s", name, len(blocks), out)
	}
	return blocks
}

// TestVariantOutputs compares variants with base block by block: tail
// differs in encrypted block 16 only, decrypt in decryption only, parity
// only for keys whose parity bits are set.
func TestVariantOutputs(t *testing.T) {
	testenv.Long(t) // builds variants
	needGit(t)
	d := &dumper{t: t, repo: materialize(t), dirs: map[string]string{}}
	const (
		key       = "7065726667617465" // "perfgate": parity (low) bits 0,1,0,0,1,1,0,1
		keyParity = "7064726666607464" // the same key with every parity bit cleared
	)
	for _, tc := range []struct {
		name, key string
		differ    func(i int) bool // whether block i of the 34 differs from base
	}{
		{"tail", key, func(i int) bool { return i == 16 }},
		{"decrypt", key, func(i int) bool { return i >= 17 }},
		{"parity", key, func(i int) bool { return true }},
		{"parity", keyParity, func(i int) bool { return false }},
		{"slower", key, func(i int) bool { return false }},
		{"bigtable", key, func(i int) bool { return false }},
		{"extraiter", key, func(i int) bool { return false }},
	} {
		base, got := d.dump("base", tc.key), d.dump(tc.name, tc.key)
		for i := range base {
			if differ := base[i] != got[i]; differ != tc.differ(i) {
				t.Errorf("%s, key %s, block %d: base %s, %s %s", tc.name, tc.key, i, base[i], tc.name, got[i])
			}
		}
	}
}

// TestBenchmarkVariants runs the variants whose benchmarks or tests
// misbehave and checks each misbehaves as documented, and only there.
func TestBenchmarkVariants(t *testing.T) {
	testenv.Long(t) // builds variants
	needGit(t)
	repo := materialize(t)
	bench := func(pattern string) []string {
		return []string{"-test.run=^$", "-test.bench=" + pattern, "-test.benchtime=2x"}
	}

	t.Run("base", func(t *testing.T) {
		out, err := runBinary(t, testBinary(t, repo, "base"), nil, bench(".")...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, name := range []string{"Encrypt/des", "Encrypt/tdes", "Decrypt/des", "Decrypt/tdes", "KeySetup/des", "KeySetup/tdes"} {
			if !strings.Contains(out, "Benchmark"+name) {
				t.Errorf("no Benchmark%s in\n%s", name, out)
			}
		}
		if n := strings.Count(out, "ns/op"); n != 6 {
			t.Errorf("%d benchmark results, want 6\n%s", n, out)
		}
	})
	t.Run("panicbench", func(t *testing.T) {
		bin := testBinary(t, repo, "panicbench")
		out, err := runBinary(t, bin, nil, bench("^BenchmarkEncrypt$/^des$")...)
		if err == nil || !strings.Contains(out, "panic: minides: boom") {
			t.Errorf("Encrypt/des: err = %v, want panic: minides: boom\n%s", err, out)
		}
		if out, err := runBinary(t, bin, nil, bench("^BenchmarkEncrypt$/^tdes$")...); err != nil {
			t.Errorf("Encrypt/tdes: %v\n%s", err, out)
		}
	})
	t.Run("hangbench", func(t *testing.T) {
		bin := testBinary(t, repo, "hangbench")
		out, err := runBinaryTimeout(t, 3*time.Second, bin, nil, bench("^BenchmarkDecrypt$/^des$")...)
		if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(out, "ns/op") {
			t.Errorf("Decrypt/des: err = %v, want it killed at the deadline with no result\n%s", err, out)
		}
		if out, err := runBinary(t, bin, nil, bench("^BenchmarkDecrypt$/^tdes$")...); err != nil {
			t.Errorf("Decrypt/tdes: %v\n%s", err, out)
		}
	})
	t.Run("nobench", func(t *testing.T) {
		out, err := runBinary(t, testBinary(t, repo, "nobench"), nil, bench(".")...)
		if err != nil || strings.Contains(out, "ns/op") {
			t.Errorf("err = %v, want success and no benchmarks\n%s", err, out)
		}
	})
	t.Run("failtest", func(t *testing.T) {
		bin := testBinary(t, repo, "failtest")
		out, err := runBinary(t, bin, nil, "-test.run=.")
		if err == nil || !strings.Contains(out, "minides: deliberate test failure") {
			t.Errorf("err = %v, want the deliberate failure\n%s", err, out)
		}
		if out, err := runBinary(t, bin, nil, bench("^BenchmarkEncrypt$/^des$")...); err != nil {
			t.Errorf("benchmarks: %v\n%s", err, out)
		}
	})
	t.Run("envdump", func(t *testing.T) {
		dump := filepath.Join(t.TempDir(), "env.txt")
		out, err := runBinary(t, testBinary(t, repo, "envdump"),
			[]string{"PERFGATE_ENVDUMP=" + dump, "DEMO_CANARY=s3cr3t"}, bench("^BenchmarkKeySetup$/^des$")...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		env, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(env), "\n")
		for _, want := range []string{"DEMO_CANARY=s3cr3t", "PERFGATE_ENVDUMP=" + dump} {
			if !bytes.Contains(env, []byte(want+"\n")) {
				t.Errorf("dump (%d lines) lacks %s", len(lines), want)
			}
		}
	})
	t.Run("weird", func(t *testing.T) {
		out, err := runBinary(t, testBinary(t, repo, "weird"), nil, bench("^BenchmarkWeird$")...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// The name as go test prints it (no -N suffix check: GOMAXPROCS varies).
		const want = "BenchmarkWeird/<b>x</b>|*y*_`z`_[l](http://e.x)_&amp;_@all_<!--c-->_#1\\"
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s\n%s", want, out)
		}
	})
	t.Run("nobuild", func(t *testing.T) {
		dir := checkout(t, repo, "nobuild")
		out, err := goCmd(t, dir, "test", "-c", "-o", filepath.Join(t.TempDir(), "x.test"), Package)
		if err == nil || !strings.Contains(string(out), "minides/block.go") {
			t.Errorf("go test -c: err = %v, want a compile error in minides/block.go\n%s", err, out)
		}
	})
}
