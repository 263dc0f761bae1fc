package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"golang.org/x/tools/txtar"
)

// A subject is one module the mutants patch: its files, the build tags it is built and tested with,
// and for each package a mutant may patch, what runs against it.
type subject struct {
	name string
	tags []string
	// files reads the module's files from the repository at root: slash-separated paths relative to
	// the module root.
	files func(root string) (map[string][]byte, error)
	pkgs  map[string]target
}

// A target says what judges a mutant of one package: the package tests that must pass for it to
// count, and the packages the differential checks, any of which may catch it.
type target struct {
	tests     []string // go test patterns, relative to the module root
	testFlags []string // more go test flags
	checks    []string // differential.Config.Pkg values
}

// subjects are the modules the mutants patch.
var subjects = map[string]*subject{
	"des": {
		name:  "des",
		files: repoFiles,
		// Under -short cipher/des skips only the check that sliced.go is what internal/gen
		// generates (the slowest test here), and no mutant patches a generated file.
		pkgs: map[string]target{"./cipher/des": {tests: []string{"./cipher/des"}, testFlags: []string{"-short"},
			checks: []string{"./cipher/des"}}},
	},
	"minides": {
		name:  "minides",
		files: demoFiles,
		pkgs:  map[string]target{"./minides": {tests: []string{"./minides"}, checks: []string{"./minides"}}},
	},
	// x/crypto is built with the purego tag, so that the Go code is what runs on every
	// architecture; the trimmed copy has no assembly. internal/poly1305's MAC takes its key as
	// *[32]byte: its mutants are checked through chacha20poly1305, the AEAD built on it, and
	// through its own package, where the differential may find nothing to compare.
	"xcrypto": {
		name:  "xcrypto",
		tags:  []string{"purego"},
		files: func(root string) (map[string][]byte, error) { return testdataFiles(root, "xcrypto") },
		pkgs: map[string]target{
			"./chacha20": {
				tests:  []string{"./chacha20", "./chacha20poly1305"},
				checks: []string{"./chacha20", "./chacha20poly1305"},
			},
			"./internal/poly1305": {
				tests:  []string{"./internal/poly1305", "./chacha20poly1305"},
				checks: []string{"./chacha20poly1305", "./internal/poly1305"},
			},
			"./chacha20poly1305": {tests: []string{"./chacha20poly1305"}, checks: []string{"./chacha20poly1305"}},
			"./blake2b":          {tests: []string{"./blake2b"}, checks: []string{"./blake2b"}},
		},
	},
	// siphash is built with the appengine tag, which selects its Go code; the trimmed copy has no
	// assembly.
	"siphash": {
		name:  "siphash",
		tags:  []string{"appengine"},
		files: func(root string) (map[string][]byte, error) { return testdataFiles(root, "siphash") },
		pkgs:  map[string]target{".": {tests: []string{"."}, checks: []string{"."}}},
	},
}

// repoFiles returns this repository's cipher/des, with the internal packages its tests import,
// under a go.mod of its own.
func repoFiles(root string) (map[string][]byte, error) {
	files, err := readTree(filepath.Join(root, "cipher", "des"), "cipher/des/")
	if err != nil {
		return nil, fmt.Errorf("reading cipher/des: %w", err)
	}
	// cipher/des detects CPU features through golang.org/x/sys/cpu: require it at the repository's
	// version, with its go.sum lines, which the module cache already holds (the runs are offline).
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^\s*golang\.org/x/sys (v\S+)`).FindSubmatch(mod)
	if m == nil {
		return nil, fmt.Errorf("%s/go.mod does not require golang.org/x/sys", root)
	}
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return nil, err
	}
	var sum []byte
	for line := range bytes.Lines(sums) {
		if bytes.HasPrefix(line, []byte("golang.org/x/sys "+string(m[1])+" ")) ||
			bytes.HasPrefix(line, []byte("golang.org/x/sys "+string(m[1])+"/go.mod ")) {
			sum = append(sum, line...)
		}
	}
	files["go.mod"] = fmt.Appendf(nil, "module github.com/perfgate/perfgate\n\ngo 1.26.0\n\nrequire golang.org/x/sys %s\n", m[1])
	files["go.sum"] = sum
	return files, nil
}

// demoHistory is the demo's first commit, whose tree holds the minides package.
const demoHistory = "internal/demo/history/base.txtar"

// demoFiles returns the module of the demo's first commit: go.mod and minides.
func demoFiles(root string) (map[string][]byte, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(demoHistory)))
	if err != nil {
		return nil, fmt.Errorf("reading the demo: %w", err)
	}
	files := map[string][]byte{}
	for _, f := range txtar.Parse(data).Files {
		files[f.Name] = f.Data
	}
	if files["go.mod"] == nil || files["minides/cipher.go"] == nil {
		return nil, fmt.Errorf("%s: no go.mod or minides/cipher.go in it", demoHistory)
	}
	return files, nil
}

// testdataFiles returns the module copied into testdata/name (see testdata/README.md).
func testdataFiles(root, name string) (map[string][]byte, error) {
	files, err := readTree(filepath.Join(root, "tools", "mutscore", "testdata", name), "")
	if err != nil {
		return nil, fmt.Errorf("reading the copy of %s: %w", name, err)
	}
	return files, nil
}

// readTree returns every file below dir, named by prefix and its slash-separated path relative to
// dir.
func readTree(dir, prefix string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[prefix+filepath.ToSlash(rel)] = data
		return err
	})
	return files, err
}

// findRoot returns the root of the perfgate module at or above dir.
func findRoot(dir string) (string, error) {
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/perfgate/perfgate\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the perfgate repository (hint: run it from the repository, or pass -root)")
		}
		dir = parent
	}
}

// writeTree writes files below dir, which must not exist yet.
func writeTree(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
