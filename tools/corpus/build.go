package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
)

// BuildPerfgate builds perfgate's cmd/perfgate into dir and returns the binary's path. root is a
// directory of the perfgate module or of the tools module; either way the build runs in the
// perfgate module's own directory (the tools module replaces it with its parent directory), so that
// the product is built with its own go.mod and go.sum.
func BuildPerfgate(ctx context.Context, root, dir string) (string, error) {
	out, _, err := proc.Run(proc.Command(ctx, root, nil, "go", "list", "-m", "-f", "{{.Dir}}",
		"github.com/perfgate/perfgate"))
	if err != nil {
		return "", fmt.Errorf("corpus: finding the perfgate module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	bin := filepath.Join(dir, "perfgate")
	if _, _, err := proc.Run(proc.Command(ctx, mod, nil, "go", "build", "-o", bin, "./cmd/perfgate")); err != nil {
		return "", fmt.Errorf("corpus: building perfgate in %s: %w", mod, err)
	}
	return bin, nil
}

// Select returns the pairs whose names match the regular expression expr ("" selects all).
func Select(pairs []*Pair, expr string) ([]*Pair, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("corpus: -run: %w", err)
	}
	var out []*Pair
	for _, p := range pairs {
		if re.MatchString(p.Name) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus: no pair matches %q", expr)
	}
	return out, nil
}

// LoadAvg returns /proc/loadavg's three load averages, or "unknown".
func LoadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// Session is what the corpus's commands share: the selected pairs, the perfgate binary, a scratch
// directory.
type Session struct {
	Pairs    []*Pair
	Perfgate string // the perfgate binary
	Dir      string // a scratch directory, removed by Close
}

// NewSession selects the pairs matching sel and, when bin is "", builds perfgate as the module in
// the current directory resolves it ("-" builds nothing: the caller runs no perfgate).
func NewSession(ctx context.Context, sel, bin string) (*Session, error) {
	all, err := Load()
	if err != nil {
		return nil, err
	}
	pairs, err := Select(all, sel)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "corpus-")
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if bin == "" {
		if bin, err = BuildPerfgate(ctx, ".", dir); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%w (hint: run it in the tools module, or give -perfgate)", err)
		}
	}
	return &Session{Pairs: pairs, Perfgate: bin, Dir: dir}, nil
}

// Close removes the scratch directory.
func (s *Session) Close() error { return os.RemoveAll(s.Dir) }
