package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/differential"
	"github.com/perfgate/perfgate/record"
)

// Outcome is what became of one mutant.
type Outcome string

// The outcomes. Only a mutant that survives the package tests is scored: caught or missed.
const (
	KilledByTests Outcome = "killed-by-tests" // the package's own tests fail on it
	// the tests pass and the differential reports a mismatch
	Caught Outcome = "caught"
	// the tests pass and the differential reports identical outputs
	Missed Outcome = "missed"
	// the tests pass and the differential could not compare (error, skipped)
	CheckFailed Outcome = "check-failed"
	NoBuild     Outcome = "does-not-build" // a defect of the mutant table, not scored
)

// A Result is one mutant's outcome, with the evidence.
type Result struct {
	Mutant  *Mutant
	Outcome Outcome
	Detail  string        // the first failing test, or the differential's reason
	Took    time.Duration // tests and differential together
}

// runner runs mutants of the subjects below work.
type runner struct {
	root, work string
	vectors    string // shared/vectors for cipher/des's tests, or ""
	// the differential's settings; BaseDir, HeadDir, Pkg and Tags are set per check
	cfg   differential.Config
	log   io.Writer
	bases map[string]string // subject name → base module root, written on first use
	files map[string]map[string][]byte
}

// base returns the directory of the subject's unmutated module, writing it on first use.
func (r *runner) base(s *subject) (string, map[string][]byte, error) {
	if dir, ok := r.bases[s.name]; ok {
		return dir, r.files[s.name], nil
	}
	files, err := s.files(r.root)
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Join(r.work, s.name, "base")
	if err := writeTree(dir, files); err != nil {
		return "", nil, fmt.Errorf("writing %s: %w", s.name, err)
	}
	if s.name == "des" && r.vectors != "" {
		// cipher/des's tests read the NESSIE vectors from shared/vectors beside the module root.
		if err := os.MkdirAll(filepath.Join(r.work, s.name, "shared"), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.Symlink(r.vectors, filepath.Join(r.work, s.name, "shared", "vectors")); err != nil {
			return "", nil, err
		}
	}
	r.bases[s.name], r.files[s.name] = dir, files
	return dir, files, nil
}

// run judges one mutant: its package tests on head, then, if they pass, the differential of every
// package its target checks, base against head, until one reports a mismatch.
func (r *runner) run(ctx context.Context, m *Mutant) (*Result, error) {
	start := time.Now()
	s := subjects[m.Subject]
	if s == nil {
		return nil, fmt.Errorf("mutant %s: no subject %q", m.Name, m.Subject)
	}
	t, ok := s.pkgs[m.Pkg]
	if !ok {
		return nil, fmt.Errorf("mutant %s: subject %s has no package %s", m.Name, s.name, m.Pkg)
	}
	baseDir, files, err := r.base(s)
	if err != nil {
		return nil, err
	}
	src, ok := files[m.File]
	if !ok {
		return nil, fmt.Errorf("mutant %s: subject %s has no file %s", m.Name, s.name, m.File)
	}
	patched, err := m.apply(src)
	if err != nil {
		return nil, err
	}
	headDir := filepath.Join(r.work, s.name, "head")
	if err := os.RemoveAll(headDir); err != nil {
		return nil, err
	}
	head := make(map[string][]byte, len(files))
	for k, v := range files {
		head[k] = v
	}
	head[m.File] = patched
	if err := writeTree(headDir, head); err != nil {
		return nil, fmt.Errorf("writing %s: %w", m.Name, err)
	}
	res := &Result{Mutant: m}
	defer func() { res.Took = time.Since(start) }()
	if failed, err := r.test(ctx, headDir, s.tags, t); err != nil {
		var nb *noBuild
		if errors.As(err, &nb) {
			res.Outcome, res.Detail = NoBuild, nb.out
			return res, nil
		}
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	} else if failed != "" {
		res.Outcome, res.Detail = KilledByTests, failed
		return res, nil
	}
	res.Outcome, res.Detail, err = r.differential(ctx, s, t, baseDir, headDir)
	if err != nil {
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	return res, nil
}

// differential runs the check of every package the target checks, base against head, until one
// reports a mismatch. A package in which the check finds nothing to compare ("skipped") is passed
// over; the mutant is missed when at least one package compared identical and none differed.
func (r *runner) differential(ctx context.Context, s *subject, t target, base, head string) (Outcome, string, error) {
	var skipped []string
	compared := false
	for _, pkg := range t.checks {
		cfg := r.cfg
		cfg.BaseDir, cfg.HeadDir, cfg.Pkg, cfg.Tags = base, head, pkg, s.tags
		rep, err := differential.Check(ctx, cfg)
		if err != nil {
			return "", "", fmt.Errorf("differential of %s: %w", pkg, err)
		}
		switch rep.Status {
		case record.DiffMismatch:
			return Caught, pkg + ": " + firstFinding(rep), nil
		case record.DiffIdentical:
			compared = true
		case record.DiffSkipped:
			skipped = append(skipped, pkg+": "+oneLine(rep.Reason))
		default:
			return CheckFailed, fmt.Sprintf("%s: %s: %s", pkg, rep.Status, oneLine(rep.Reason)), nil
		}
	}
	if !compared {
		return CheckFailed, strings.Join(skipped, "; "), nil
	}
	return Missed, "", nil
}

// firstFinding returns a short account of what the differential found.
func firstFinding(rep *differential.Report) string {
	if rep.Reason != "" {
		return oneLine(rep.Reason)
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches > 0 {
			return fmt.Sprintf("%s: %d mismatches", c.Name, c.Mismatches)
		}
	}
	for _, c := range rep.Ciphers {
		if len(c.Notes) > 0 {
			return c.Name + ": " + oneLine(c.Notes[0])
		}
	}
	return "mismatch"
}

// test runs go test on the target's test patterns in dir. It returns "" when they pass, the first
// failure when they fail, and an error when go test could not judge the code (the mutant does not
// build, or the go command failed to start).
func (r *runner) test(ctx context.Context, dir string, tags []string, t target) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	args := []string{"test"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(append(args, t.testFlags...), t.tests...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if r.cfg.Cache != "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+r.cfg.Cache)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return "", nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("go test %s: %w", strings.Join(t.tests, " "), ctx.Err())
	}
	text := out.String()
	if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
		return "", &noBuild{lastLines(text, 4)}
	}
	return firstFailure(text), nil
}

// noBuild is go test failing to build the mutated package: out is its last lines.
type noBuild struct{ out string }

func (e *noBuild) Error() string { return "does not build: " + e.out }

// firstFailure returns the first "--- FAIL" line of go test's output with the line after it, or its
// last lines.
func firstFailure(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
			s := strings.TrimSpace(l)
			if i+1 < len(lines) {
				s += " " + strings.TrimSpace(lines[i+1])
			}
			return oneLine(s)
		}
	}
	return lastLines(out, 2)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return oneLine(strings.Join(lines, " | "))
}

// oneLine shortens s to one line of at most 160 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
