package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/perfgate/perfgate/benchrun"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// The Action installs valgrind itself, rather than action.yml: whether the instruction-count lane runs depends on
// the metric key, which may come from an input or from .perfgate.yml, and only perfgate resolves the two. So
// perfgate action, once its configuration is resolved, installs valgrind when the lane is on and valgrind is
// missing, on a Linux runner where apt-get and password-less sudo exist (GitHub's hosted Ubuntu runners). Anywhere
// else it does nothing, and the comparison stops with the missing-valgrind error and its install command (exit 3).

// installLimit bounds one apt-get run.
const installLimit = 5 * time.Minute

// ensureValgrind installs valgrind with apt-get when metric needs it and it is not installed. It reports what it
// did on w; an error means valgrind is still missing (the comparison then says so, exit 3).
func ensureValgrind(ctx context.Context, metric string, w io.Writer) error {
	if metric == record.MetricTime {
		return nil
	}
	if _, err := benchrun.FindValgrind(ctx, ""); err == nil {
		return nil
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("valgrind is missing and perfgate installs it on Linux runners only")
	}
	for _, tool := range []string{"sudo", "apt-get"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("valgrind is missing and cannot be installed here: no %s", tool)
		}
	}
	fmt.Fprintf(w, "perfgate: metric %s needs valgrind: installing it (%s)\n", metric, benchrun.ValgrindInstall)
	install := []string{"sudo", "-n", "apt-get", "install", "-y", "-q", "--no-install-recommends", "valgrind"}
	if err := runLimited(ctx, install); err == nil {
		return nil
	}
	// A fresh runner's package lists may be stale: update them once and retry.
	if err := runLimited(ctx, []string{"sudo", "-n", "apt-get", "update", "-q"}); err != nil {
		return fmt.Errorf("installing valgrind: %w", err)
	}
	if err := runLimited(ctx, install); err != nil {
		return fmt.Errorf("installing valgrind: %w", err)
	}
	return nil
}

func runLimited(ctx context.Context, argv []string) error {
	ctx, cancel := context.WithTimeout(ctx, installLimit)
	defer cancel()
	_, _, err := proc.Run(proc.Command(ctx, "", nil, argv...))
	return err
}
