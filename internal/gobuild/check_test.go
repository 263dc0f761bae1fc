package gobuild

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

func TestSideFlags(t *testing.T) {
	got := SideFlags([]string{"netgo"}, record.Build{Flags: []string{"-gcflags=all=-N -l", "-tags=purego,x", "-pgo=off"}})
	want := []string{"-tags=netgo,purego,x", "-gcflags=all=-N -l", "-pgo=off"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SideFlags (-want +got):\n%s", diff)
	}
	if got := SideFlags(nil, record.Build{}); len(got) != 0 {
		t.Errorf("SideFlags of nothing = %q", got)
	}
	if got, want := SideEnv(record.Build{Toolchain: "go1.25.5", Env: []string{"GOAMD64=v3"}}),
		[]string{"GOTOOLCHAIN=go1.25.5", "GOAMD64=v3"}; !cmp.Equal(got, want) {
		t.Errorf("SideEnv = %q, want %q", got, want)
	}
	if got := sideGCFlags(record.Build{Flags: []string{"-gcflags=-B", "-gcflags=all=-N -l", "-gcflags=other/pkg=-S"}}, "m/p"); !cmp.Equal(got, []string{"-B", "-N", "-l"}) {
		t.Errorf("sideGCFlags = %q", got)
	}
}

// TestCheckBuild: a toolchain that cannot be fetched (offline: GOPROXY=off), a variable and a flag
// the go command refuses are each an error naming the side and the value, and nothing of the check
// is left in the temporary directory.
func TestCheckBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("GOPROXY", "off")
	ctx := t.Context()

	v, err := CheckBuild(ctx, record.Base, nil, record.Build{}, "")
	if err != nil || v != runtime.Version() {
		t.Errorf("CheckBuild(local) = %q, %v; want %s", v, err, runtime.Version())
	}

	_, err = CheckBuild(ctx, record.Base, nil, record.Build{Toolchain: "go1.99.0"}, "")
	var te *ToolchainError
	if !errors.As(err, &te) || te.Side != record.Base || !strings.Contains(err.Error(), "go1.99.0") {
		t.Errorf("CheckBuild(go1.99.0) = %v, want a *ToolchainError naming base and go1.99.0", err)
	}

	_, err = CheckBuild(ctx, record.Head, nil, record.Build{Env: []string{"GOEXPERIMENT=notanexperiment"}}, "")
	var se *SettingsError
	if !errors.As(err, &se) || se.Side != record.Head || se.What != "env" || !strings.Contains(err.Error(), "GOEXPERIMENT=notanexperiment") {
		t.Errorf("CheckBuild(GOEXPERIMENT=notanexperiment) = %v, want a *SettingsError naming head's env GOEXPERIMENT=notanexperiment", err)
	}

	_, err = CheckBuild(ctx, record.Head, nil, record.Build{Env: []string{"GOAMD64=v1"},
		Flags: []string{"-gcflags=-notaflag"}}, "")
	if !errors.As(err, &se) || se.What != "flags" || !strings.Contains(err.Error(), "-gcflags=-notaflag") ||
		!strings.Contains(err.Error(), "notaflag") {
		t.Errorf("CheckBuild(-gcflags=-notaflag) = %v, want a *SettingsError naming head's flags", err)
	}
	if strings.Contains(err.Error(), "usage:") {
		t.Errorf("the error carries the compiler's usage text: %v", err)
	}

	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the check left %d entries in TMPDIR, first %s", len(left), left[0].Name())
	}
}
