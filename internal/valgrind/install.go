package valgrind

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
)

// The Action installs valgrind itself, rather than action.yml: whether the instruction-count lane
// runs depends on the metric key, which may come from an input or from .perfgate.yml, and only
// perfgate resolves the two. So perfgate action, once its configuration is resolved, installs
// valgrind when the lane is on and valgrind is missing, on a Linux runner where apt-get and
// password-less sudo exist (GitHub's hosted Ubuntu runners). Anywhere else it does nothing, and the
// comparison stops with the missing-valgrind error and its install command (exit 3).

// installLimit bounds one apt-get run.
const installLimit = 5 * time.Minute

// Ensure installs valgrind with apt-get when it is not installed; who is what needs it ("metric
// auto"). It reports what it did on w; an error means valgrind is still missing (the comparison
// then says so, exit 3).
func Ensure(ctx context.Context, who string, w io.Writer) error {
	if _, err := Find(ctx, "", who+" needs it"); err == nil {
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
	fmt.Fprintf(w, "perfgate: %s needs valgrind: installing it (%s)\n", who, InstallCommand)
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
