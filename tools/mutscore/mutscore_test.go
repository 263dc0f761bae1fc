package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot returns the perfgate repository this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := findRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestMutantsApply checks the table: unique names, known subjects, packages and kinds, a
// description, and an old text that occurs exactly once in its file, whose patched file still
// parses and differs from the original.
func TestMutantsApply(t *testing.T) {
	root := repoRoot(t)
	known := map[Kind]bool{}
	for _, k := range kinds() {
		known[k] = true
	}
	files := map[string]map[string][]byte{}
	seen := map[string]bool{}
	perPkg := map[string]int{}
	for _, m := range allMutants() {
		if seen[m.Name] {
			t.Errorf("%s: name used twice", m.Name)
		}
		seen[m.Name] = true
		s := subjects[m.Subject]
		if s == nil {
			t.Errorf("%s: unknown subject %q", m.Name, m.Subject)
			continue
		}
		if _, ok := s.pkgs[m.Pkg]; !ok {
			t.Errorf("%s: subject %s has no package %q", m.Name, m.Subject, m.Pkg)
		}
		if dir := strings.TrimPrefix(m.Pkg, "./"); dir != "." && !strings.HasPrefix(m.File, dir+"/") ||
			dir == "." && strings.Contains(m.File, "/") {
			t.Errorf("%s: file %s is not in package %s", m.Name, m.File, m.Pkg)
		}
		if !known[m.Kind] || m.Desc == "" || strings.Contains(m.Desc, "\n") {
			t.Errorf("%s: kind %q, description %q: want a known kind and one line", m.Name, m.Kind, m.Desc)
		}
		for _, f := range []string{"sliced.go", "const.go", "unrolled.go"} {
			if m.File == "cipher/des/"+f {
				t.Errorf("%s: patches a generated file, whose test cipher/des skips under -short", m.Name)
			}
		}
		if files[m.Subject] == nil {
			fs, err := s.files(root)
			if err != nil {
				t.Fatal(err)
			}
			files[m.Subject] = fs
		}
		src, ok := files[m.Subject][m.File]
		if !ok {
			t.Errorf("%s: no file %s in subject %s", m.Name, m.File, m.Subject)
			continue
		}
		out, err := m.apply(src)
		if err != nil {
			t.Error(err)
			continue
		}
		if bytes.Equal(out, src) {
			t.Errorf("%s: the patch changes nothing", m.Name)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), m.File, out, parser.SkipObjectResolution); err != nil {
			t.Errorf("%s: the patched file does not parse: %v", m.Name, err)
		}
		perPkg[m.Package()]++
	}
	if len(perPkg) < 4 {
		t.Errorf("mutants cover %d packages, want at least 4: %v", len(perPkg), perPkg)
	}
}

// TestApplyRefusesAmbiguousText checks that a patch whose old text is missing or repeated is an
// error.
func TestApplyRefusesAmbiguousText(t *testing.T) {
	m := Mutant{Name: "x/y", File: "f.go", Old: "a := 1\n", New: "a := 2\n"}
	if out, err := m.apply([]byte("a := 1\n")); err != nil || string(out) != "a := 2\n" {
		t.Errorf("apply once = %q, %v; want \"a := 2\\n\", nil", out, err)
	}
	for _, src := range []string{"b := 1\n", "a := 1\na := 1\n"} {
		if _, err := m.apply([]byte(src)); err == nil {
			t.Errorf("apply(%q) = nil error, want one", src)
		}
	}
}

// TestEndToEnd runs the command on two mutants of the demo that its tests miss, with 8 block-cipher
// keys per size: one the differential catches (wrong only in place, which the first keys also try),
// and one that needs a key byte value the first 8 keys lack (K3 starting with 0x13).
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and the differential twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	var stdout, stderr bytes.Buffer
	work := filepath.Join(t.TempDir(), "work")
	code := run(context.Background(), []string{"-run", "^minides/(alias-encrypt|key-byte-k3)$", "-keys", "8", "-v",
		"-work", work, "-root", repoRoot(t)}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"mutation score: 1/2 (50.0%) of the 2 mutants the package tests miss (2 mutants, 0 killed by the tests)",
		"minides  2        0                1/2 (50.0%)",
		"missed: the package tests pass and the differential finds base and head identical (1):",
		"minides/key-byte-k3  key-byte",
		"caught by the differential (1):",
		"minides/alias-encrypt",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q; stdout:\n%s\nstderr:\n%s", want, out, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "mutscore: [2/2]") {
		t.Errorf("stderr shows no progress:\n%s", stderr.String())
	}
}

// TestScoreFromJSON checks that outcomes written by -json are scored by -from as they were: per
// package, per kind, survivors listed, killed mutants left out of the score.
func TestScoreFromJSON(t *testing.T) {
	ms := allMutants()
	byName := map[string]*Mutant{}
	for i := range ms {
		byName[ms[i].Name] = &ms[i]
	}
	results := []*Result{
		{Mutant: byName["minides/key-byte-a7"], Outcome: Caught, Detail: "outputs differ"},
		{Mutant: byName["minides/alias-batch"], Outcome: Missed},
		{Mutant: byName["blake2b/key-byte-a7"], Outcome: Missed},
		{Mutant: byName["blake2b/reset-offset"], Outcome: Caught},
		{Mutant: byName["blake2b/tag-sum384"], Outcome: KilledByTests, Detail: "--- FAIL: TestSelfTest"},
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := writeJSON(a, results[:2]); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(b, results[2:]); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-from", a + "," + b}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"mutation score: 2/4 (50.0%) of the 4 mutants the package tests miss (5 mutants, 1 killed by the tests)",
		"blake2b  3        1                1/2 (50.0%)",
		"minides  2        0                1/2 (50.0%)",
		"aliasing  1        0                0/1 (0.0%)",
		"tag       1        1                -",
		"minides/alias-batch  aliasing  DES DecryptBlocks zeroes its output",
		"blake2b/key-byte-a7  key-byte  a MAC key whose first byte is 0xa7",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q; stdout:\n%s", want, out)
		}
	}
	if code := run(context.Background(), []string{"-from", a + "," + a}, &stdout, &stderr); code == 0 {
		t.Error("-from with one file twice: exit 0, want an error (a mutant in two files)")
	}
}
