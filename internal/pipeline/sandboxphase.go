package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
)

// startSandbox sets up the sandbox every process that runs the repository's code starts in, base's
// and head's alike, with its children's scratch directories in the work directory. In mode
// required, a kernel that cannot confine them stops the comparison (exit 3) before anything is
// built.
func (p *pipeline) startSandbox() error {
	mode, err := sandbox.ParseMode(cmp.Or(p.cfg.Sandbox, string(sandbox.ModeAuto)))
	if err != nil {
		return err
	}
	scratch := filepath.Join(p.work, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return err
	}
	sb, err := sandbox.New(sandbox.Config{Mode: mode, AllowNetwork: p.cfg.AllowNetwork, Scratch: scratch})
	if err != nil {
		var ue *sandbox.UnavailableError
		if errors.As(err, &ue) {
			return fmt.Errorf("%w (set sandbox: auto to run with the code unguarded, and the report saying so)", err)
		}
		return err
	}
	p.sandbox = sb
	g := sb.Guarantee()
	p.logf("sandbox: %s", g)
	if !g.Guarded {
		p.session.notes = append(p.session.notes, "sandbox "+g.String()+": the repository's code ran unguarded, "+
			"and could have touched the evidence")
	}
	return nil
}

// seal records the SHA-256 of every binary built so far, before any repository code runs: both test
// binaries and, when there is one, base built with head's test files.
func (p *pipeline) seal() error {
	for _, s := range []*side{&p.base, &p.head} {
		if !s.built {
			continue
		}
		b, err := sandbox.Seal(s.bin)
		if err != nil {
			return err
		}
		s.sha = b.SHA256
	}
	if p.source.baseBin != "" {
		b, err := sandbox.Seal(p.source.baseBin)
		if err != nil {
			return err
		}
		p.source.baseSHA = b.SHA256
	}
	return nil
}

// verifySealed checks every sealed binary again: one that changed since the build is an error
// naming the tampering, so that no size, machine-code comparison or timing is taken from it.
func (p *pipeline) verifySealed() error {
	for _, b := range []sandbox.Binary{{Path: p.base.bin, SHA256: p.base.sha}, {Path: p.head.bin, SHA256: p.head.sha},
		{Path: p.source.baseBin, SHA256: p.source.baseSHA}} {
		if b.SHA256 == "" {
			continue
		}
		if err := b.Verify(); err != nil {
			return err
		}
	}
	return nil
}

// runTestBinary runs the side's package tests (-test.short) from its sealed test binary, in the
// sandbox.
func (p *pipeline) runTestBinary(ctx context.Context, s *side) (stdout, stderr []byte, err error) {
	if err := (sandbox.Binary{Path: s.bin, SHA256: s.sha}).Verify(); err != nil {
		return nil, []byte(err.Error()), err
	}
	scratch, remove, err := p.sandbox.Scratch()
	if err != nil {
		return nil, nil, err
	}
	defer remove()
	// a copy of the package directory, for it to write
	dir, release, err := p.sandbox.WorkDir(scratch, s.pkgDir)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	tctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	args := []string{"-test.short", "-test.run=.", "-test.bench=^$", "-test.timeout=" + p.cfg.Timeout.String()}
	key, keep := p.testKey(s, args)
	if keep {
		var t storedTest
		if p.store.GetJSON(key, &t) && t.Passed {
			p.logf("%s tests: passed (kept in the store, binary %.12s)", s.name, s.sha)
			return t.Output, nil, nil
		}
	}
	cmd := proc.Command(tctx, dir, nil, append([]string{s.bin}, args...)...)
	stdout, stderr, err = proc.RunStart(cmd, proc.MaxOutput, func() error { return p.sandbox.Start(cmd, scratch, nil) })
	if keep && err == nil {
		p.store.PutJSON(key, string(s.name)+" tests", storedTest{Passed: true, Output: append(stdout, stderr...)})
	}
	return stdout, stderr, err
}
