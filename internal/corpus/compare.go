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

// Compare runs `perfgate compare` (binary bin) on the materialized repo with flags, writing its results directory
// into out, and reads the result. A run that exits with a status perfgate uses for a verdict (0, 1) or an error
// (2, 3) is an Outcome; only a failure to start or a missing result.json is an error.
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
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		if o.ExitCode != 0 {
			return o, nil
		}
		return nil, fmt.Errorf("corpus: perfgate on %s exited 0 without a result: %w", p.Name, err)
	}
	o.Result = &record.Result{}
	if err := json.Unmarshal(data, o.Result); err != nil {
		return nil, fmt.Errorf("corpus: reading %s's result: %w", p.Name, err)
	}
	return o, nil
}
