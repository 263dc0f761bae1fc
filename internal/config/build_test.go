package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// TestBuildKeys: repeated flags add items, an item is one argument (never split at spaces), a flag
// wins over the file's list as a whole, and an Action input takes one item a line.
func TestBuildKeys(t *testing.T) {
	flag := func(name, text string) Setting { return Setting{Key: FlagKey(name), Text: text, Source: "flag"} }
	c := Default()
	err := c.Resolve("", []Setting{
		flag("head-flags", "-tags=purego"),
		flag("rounds", "3"),
		flag("head-flags", "-gcflags=all=-N -l"),
		flag("base-env", "GOAMD64=v3"),
		flag("base-toolchain", "go1.25.5"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := record.Build{Flags: []string{"-tags=purego", "-gcflags=all=-N -l"}}
	if diff := cmp.Diff(want, c.HeadBuild); diff != "" {
		t.Errorf("head build (-want +got):\n%s", diff)
	}
	want = record.Build{Toolchain: "go1.25.5", Env: []string{"GOAMD64=v3"}}
	if diff := cmp.Diff(want, c.BaseBuild); diff != "" {
		t.Errorf("base build (-want +got):\n%s", diff)
	}
	if !c.BuildsDiffer() {
		t.Error("BuildsDiffer = false for different builds")
	}

	c = Default()
	if err := c.Resolve("", []Setting{{Key: InputKey("head-env"), Text: "GOAMD64=v3\n\nCGO_ENABLED=0\n", Source: "input"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.HeadBuild.Env; !cmp.Equal(got, []string{"GOAMD64=v3", "CGO_ENABLED=0"}) {
		t.Errorf("input head-env = %q, want one item a line", got)
	}

	c = Default()
	if err := c.LoadFile(".perfgate.yml", []byte("head-flags: [-tags=a, -tags=b]\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve("", []Setting{flag("head-flags", "-tags=c")}); err != nil {
		t.Fatal(err)
	}
	if got := c.HeadBuild.Flags; !cmp.Equal(got, []string{"-tags=c"}) {
		t.Errorf("flag over file = %q, want the flag's list alone", got)
	}
	c = Default()
	c.HeadBuild.Toolchain = "local"
	if c.BuildsDiffer() {
		t.Error("local and the default are the same build")
	}
}

// TestBuildKeysRefused: every refused value is a usage error naming the key, the value and why.
func TestBuildKeysRefused(t *testing.T) {
	for _, tc := range []struct{ flag, value, why string }{
		{"head-env", "GOGC=off", "run time"},
		{"base-env", "GOMAXPROCS=4", "run time"},
		{"head-env", "GODEBUG=cpu.avx2=off", "run time"},
		{"head-env", "GOMEMLIMIT=1GiB", "run time"},
		{"head-env", "GOARCH=arm64", "cross builds"},
		{"head-env", "FOO=1", "FOO is not a build-time variable"},
		{"head-env", "GOAMD64", "not KEY=VALUE"},
		{"head-env", "GOAMD64=v9", "GOAMD64 takes v1, v2, v3, v4"},
		{"head-flags", "-ldflags=-s -w", "symbol table"},
		{"head-flags", "-ldflags=-w", "symbol table"},
		{"head-flags", "-race", "changes what is measured"},
		{"head-flags", "-tags purego", "needs its value after ="},
		{"head-flags", "-tags=purego -pgo=off", "without spaces"},
		{"head-flags", "-o=x", "perfgate's to set"},
		{"head-flags", "tags=purego", "not a flag"},
		{"base-toolchain", "go1.25.x", ""},
		{"base-toolchain", "1.25.5", ""},
	} {
		c := Default()
		err := c.Resolve("", []Setting{{Key: FlagKey(tc.flag), Text: tc.value, Source: "flag"}})
		if ExitCode(err) != record.ExitUsage {
			t.Errorf("-%s=%s: exit %d (%v), want %d", tc.flag, tc.value, ExitCode(err), err, record.ExitUsage)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "-"+tc.flag) || !strings.Contains(msg, tc.value) || !strings.Contains(msg, tc.why) {
			t.Errorf("-%s=%s: error %q does not name the flag, the value and %q", tc.flag, tc.value, msg, tc.why)
		}
	}
	for _, ok := range []string{"-tags=purego,netgo", "-pgo=/tmp/cpu.pprof", "-gcflags=all=-N -l", "-ldflags=-X=a.b=c",
		"--gcflags=-B", "-asmflags=-spectre=all"} {
		if r := flagReason(ok); r != "" {
			t.Errorf("flagReason(%q) = %q, want accepted", ok, r)
		}
	}
}
