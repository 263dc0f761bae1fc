package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/pipeline"
	"github.com/perfgate/perfgate/record"
)

// StepsDir is the folder of the bisection's results directory that holds one results directory per
// comparison.
const StepsDir = "steps"

// PipelineOracle compares commits with the ordinary pipeline (pipeline.Run): exported trees,
// sandboxed and sealed binaries, the A–B–B–A timing lane and, as configured, the instruction-count
// lane, on the benchmarks the configuration selects. Each comparison writes a results directory of
// its own under Out/steps, with report.md and the pipeline's progress in progress.log, and Classify
// reads its Result.
type PipelineOracle struct {
	// Config is the comparison as configured (flags, file, defaults); Base, Head, Out and Log are
	// set per step. For CheckDifferential the benchmarks run as briefly as the pipeline allows: the
	// outputs decide.
	Config config.Config
	Check  string // CheckTime or CheckDifferential
	Out    string // the bisection's results directory
}

// Compare runs one comparison. A re-run (Try 2, 3, …) doubles the budget each time, or the rounds
// when there is no budget. Errors that no commit can cause end the bisection: the base does not
// build or cannot be compared, a configuration error, an interruption.
func (o *PipelineOracle) Compare(ctx context.Context, req Request) (Probe, error) {
	cfg := o.Config
	cfg.Base, cfg.Head = req.Base.SHA, req.Head.SHA
	name := fmt.Sprintf("%02d-%s", req.Step, req.Head.Short())
	if req.Try > 1 {
		name += fmt.Sprintf("-run%d", req.Try)
	}
	cfg.Out = filepath.Join(o.Out, StepsDir, name)
	scale := 1 << min(req.Try-1, 6)
	switch {
	case o.Check == CheckDifferential:
		cfg.Differential = true
		cfg.Metric, cfg.Rounds, cfg.BenchTime, cfg.Budget = record.MetricTime, 2, config.For(time.Millisecond), 0
	case cfg.Budget > 0:
		cfg.Budget = min(cfg.Budget*time.Duration(scale), time.Hour)
	default:
		cfg.Rounds = min(cfg.Rounds*scale, 100)
	}
	if o.Check == CheckTime {
		cfg.Differential = false // not the question; its harnesses would double every step's builds
	}
	// Nor is constant time, whichever the check: tracing under valgrind took 2 to 5 minutes of a
	// 12-commit bisection's steps of 3 (measured on this project's 2-core VM), more than their
	// timing.
	cfg.ConstantTime = string(record.CTOff)
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return Probe{}, fmt.Errorf("bisect results: %w", err)
	}
	logf, err := os.Create(filepath.Join(cfg.Out, "progress.log"))
	if err != nil {
		return Probe{}, fmt.Errorf("bisect results: %w", err)
	}
	defer logf.Close()
	cfg.Log = logf

	// Each step's directory gets report.md, not the page: nobody reads a step's report.html.
	res, err := pipeline.RunWith(ctx, cfg, evidence.Options{Markdown: true})
	if res == nil {
		return Probe{Dir: cfg.Out}, err
	}
	p := Classify(res, o.Check)
	p.Dir = cfg.Out
	if err != nil && !headFault(res, err) {
		return p, err
	}
	return p, nil
}

// headFault reports whether the error of a comparison that returned res lies with the commit under
// test (its head), so that the commit is skipped rather than the bisection ended: head did not
// build, or benchmarks failed on it. An interruption, a configuration error and anything about base
// are not.
func headFault(res *record.Result, err error) bool {
	var ce *config.Error
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ce) {
		return false
	}
	return res.HeadBuildFailed || headFailure(res) != ""
}
