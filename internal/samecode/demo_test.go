package samecode

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/gittest"
)

// TestDemoKeySetupSame: perfgate demo's head folds the P permutation into the S-boxes, which adds a
// table of 2 KiB and changes the block functions, not the key schedule. KeySetup reaches the same
// machine code; Encrypt and Decrypt do not. Each layer that used to call KeySetup changed is a case
// here: the type descriptor of the allocated *Cipher and *TripleCipher led to their block methods
// (an allocation's type was followed like an interface's); constants of the runtime (8 MiB, 32 MiB)
// and an itab's hash read as addresses inside the 32 MiB buffer of crypto/internal/fips140/drbg,
// which the new table moved; eight bytes of a string read as a pointer; the types' names and the
// static temporaries named by their distance from a symbol the new table shifted.
func TestDemoKeySetupSame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo's test binaries; skipped under -short")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git command on PATH")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	repo, err := demo.Materialize(filepath.Join(dir, "repo"))
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, name := range []string{"base", "folded"} {
		wt := filepath.Join(dir, name)
		cmd := proc.Command(context.Background(), repo.Dir, gittest.TestEnv(t), git, "worktree", "add", "--detach", wt, repo.Commits[name])
		if _, _, err := proc.Run(cmd); err != nil {
			t.Fatal(err)
		}
		bins[name] = filepath.Join(dir, name+".test")
		cmd = proc.Command(context.Background(), wt,
			[]string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GOARCH=amd64", "GOOS=linux"},
			goTool, "test", "-c", "-trimpath", "-o", bins[name], demo.Package)
		if _, _, err := proc.Run(cmd); err != nil {
			t.Fatalf("building %s: %v", name, err)
		}
	}
	rep, err := Analyze(bins["base"], bins["folded"], []string{"KeySetup", "Encrypt", "Decrypt"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fallback != "" || rep.Identical {
		t.Fatalf("fallback %q, identical %v: want an analysis", rep.Fallback, rep.Identical)
	}
	if v := rep.Benchmarks["KeySetup"]; !v.Same {
		t.Errorf("KeySetup: changed (%s), want same", v.Reason)
	}
	for _, n := range []string{"Encrypt", "Decrypt"} {
		if v := rep.Benchmarks[n]; v.Same {
			t.Errorf("%s: same, want changed (its block functions changed)", n)
		} else {
			t.Logf("%s: %s", n, v.Reason)
		}
	}
}
