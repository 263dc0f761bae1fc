package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// Outcome is what one perfgate compare run said about a pair.
type Outcome struct {
	Args     []string       // perfgate's arguments, the repository's commits last
	ExitCode int            // perfgate's exit status
	Result   *record.Result // the results directory's result.json; nil when perfgate wrote none
	Wall     time.Duration  // the run's wall time, build included
	Stderr   []byte         // perfgate's standard error, for a run that failed
}

// Compare runs `perfgate compare` (binary bin) on the materialized repo with flags, writing its
// results directory into out, and reads the result. A run that exits with a status perfgate uses
// for a verdict (0, 1) or an error (2, 3) is an Outcome; only a failure to start or a missing
// result.json is an error.
func Compare(ctx context.Context, bin string, p *Pair, repo *Repo, flags []string, out string) (*Outcome, error) {
	args := []string{"compare", "-C", repo.Dir, "-pkg", p.Pkg, "-o", out, "-format", "json"}
	args = append(args, p.Flags...)
	args = append(args, flags...)
	args = append(args, repo.Base, repo.Head)
	o := &Outcome{Args: args}
	start := time.Now()
	cmd := proc.Command(ctx, repo.Dir, nil, append([]string{bin}, args...)...)
	_, stderr, err := proc.Run(cmd)
	o.Wall = time.Since(start)
	o.Stderr = stderr
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.ExitCode = ee.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("corpus: running perfgate on %s: %w", p.Name, err)
	}
	r, err := readResult(out)
	if err != nil {
		if o.ExitCode != 0 {
			return o, nil
		}
		return nil, fmt.Errorf("corpus: perfgate on %s exited 0 without a result: %w", p.Name, err)
	}
	o.Result = r
	return o, nil
}

// ReadOutcome reads the outcome of an earlier run from its results directory: the exit code its
// verdict says, and perfgate's own duration as the wall time.
func ReadOutcome(dir string) (*Outcome, error) {
	r, err := readResult(dir)
	if err != nil {
		return nil, err
	}
	return &Outcome{ExitCode: r.Verdict.ExitCode, Result: r, Wall: r.Duration}, nil
}

func readResult(dir string) (*record.Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	r := &record.Result{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	return r, nil
}
