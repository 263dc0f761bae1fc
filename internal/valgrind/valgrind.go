// Package valgrind finds the installed valgrind, and installs it on a runner that lacks it: the one
// place that knows how valgrind is found, which version it is, and the one command that installs
// it. The instruction-count lane (package benchrun, callgrind) and the constant-time check (package
// consttime, lackey) run it.
package valgrind

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
)

// InstallCommand is the command that installs valgrind on the Debian and Ubuntu machines perfgate
// runs on, GitHub's hosted runners among them: the hint every missing-valgrind error gives.
const InstallCommand = "sudo apt-get install -y valgrind"

// ErrNotFound is wrapped by Find's error when valgrind is not installed. A check that needs it
// cannot run: a caller exits 3 (could not run) or records the check as unavailable, never as
// passed.
var ErrNotFound = errors.New("valgrind not found")

// Program is an installed valgrind.
type Program struct {
	Path    string // the valgrind program
	Version string // as valgrind --version prints it, e.g. "valgrind-3.19.0"; env.json records it
}

// Find finds valgrind (path, or "valgrind" in PATH when path is "") and asks it for its version. A
// missing valgrind is an error wrapping ErrNotFound that says why it is needed (need, e.g. "the
// instruction-count lane needs it") and names InstallCommand.
func Find(ctx context.Context, path, need string) (Program, error) {
	if path == "" {
		path = "valgrind"
	}
	full, err := exec.LookPath(path)
	if err != nil {
		return Program{}, fmt.Errorf("%w (%s); %s: install it with %q", ErrNotFound, path, need, InstallCommand)
	}
	out, _, err := proc.Run(proc.Command(ctx, "", nil, full, "--version"))
	if err != nil {
		return Program{}, fmt.Errorf("asking valgrind for its version: %w", err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "valgrind-") {
		return Program{}, fmt.Errorf("%s --version printed %q, not a valgrind version", full, v)
	}
	return Program{Path: full, Version: v}, nil
}
