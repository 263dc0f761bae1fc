package differential

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// TestOldLanguageVersions builds and runs the harness in modules whose go.mod asks for an old
// language version, has no go line (the go command then assumes go 1.16), or names a toolchain. The
// harness is compiled at the module's language version, so it may use only what go 1.12 accepts.
func TestOldLanguageVersions(t *testing.T) {
	testenv.Long(t) // builds the harness in five modules
	for _, tc := range []struct{ name, gomod string }{
		{"go1.12", "module example.com/wdes\n\ngo 1.12\n"},
		{"go1.16", "module example.com/wdes\n\ngo 1.16\n"},
		{"go1.20", "module example.com/wdes\n\ngo 1.20\n"},
		{"no-go-line", "module example.com/wdes\n"},
		{"toolchain", "module example.com/wdes\n\ngo 1.21\n\ntoolchain go1.21.0\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			module := func(variant string) string {
				src := wdesSource
				for marker, code := range wdesVariants[variant] {
					src = strings.Replace(src, "/*"+marker+"*/", code, 1)
				}
				return writeModule(t, map[string]string{"go.mod": tc.gomod, "internal/wdes/wdes.go": src})
			}
			rep := runCheck(t, module("base"), module("broken"), func(c *Config) { c.Keys = 64 })
			if rep.Status != record.DiffMismatch || rep.HeadFailed {
				t.Fatalf("status %q (%s), head failed %v; want a mismatch found by running both harnesses",
					rep.Status, rep.Reason, rep.HeadFailed)
			}
			mismatches := 0
			for _, c := range rep.Ciphers {
				mismatches += c.Mismatches
				if len(c.KeySizes) != 1 {
					t.Errorf("%s: key sizes %v, want one", c.Name, c.KeySizes)
				}
			}
			if len(rep.Ciphers) != 2 || mismatches == 0 {
				t.Errorf("%d ciphers with %d mismatches, want 2 with some", len(rep.Ciphers), mismatches)
			}
		})
	}
}

// TestOwnFailures: when the check cannot run because of perfgate, not the code, the status is
// "error" on both sides alike, never a finding about head or base.
func TestOwnFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnesses")
	}
	src := "package wdes\n\nimport \"crypto/aes\"\nimport \"crypto/cipher\"\n\n" +
		"func NewCipher(key []byte) (cipher.Block, error) { return aes.NewCipher(key) }\n"
	for _, tc := range []struct {
		name, gomod, want string
	}{
		// go 1.8 compiles the package but not the harness, which is written for go 1.12 and later
		// (it declares a type alias, go 1.9).
		{"harness-does-not-compile", "module example.com/wdes\n\ngo 1.8\n",
			"the generated harness does not compile in base's module: "},
		// A go line newer than any toolchain: neither side loads (GOTOOLCHAIN=local, so nothing is
		// downloaded).
		{"loads-on-neither-side", "module example.com/wdes\n\ngo 1.999\n", "neither side's package loads and builds: base: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOTOOLCHAIN", "local")
			mod := writeModule(t, map[string]string{"go.mod": tc.gomod, "internal/wdes/wdes.go": src})
			rep := runCheck(t, mod, mod, nil)
			if rep.Status != record.DiffError || rep.HeadFailed || !strings.HasPrefix(rep.Reason, tc.want) {
				t.Fatalf("status %q, head failed %v, reason %q; want error, %q…", rep.Status, rep.HeadFailed,
					rep.Reason, tc.want)
			}
			t.Logf("reason: %s", rep.Reason)
		})
	}
}
