package differential

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestOldLanguageVersions builds and runs the harness in modules whose go.mod asks for an old language version,
// has no go line (the go command then assumes go 1.16), or names a toolchain. The harness is compiled at the
// module's language version, so it may use only what go 1.12 accepts.
func TestOldLanguageVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the harness in five modules")
	}
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
