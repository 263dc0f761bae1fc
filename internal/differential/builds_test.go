package differential

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestSideBuilds: each side's harness is built as its test binary is, with the side's own build.
// The same source on both sides differs only under head's -tags=flip, which makes Encrypt flip a
// bit: a mismatch, as a compiler that miscompiled one side would be. Built alike, it is identical.
func TestSideBuilds(t *testing.T) {
	module := func() string {
		src := wdesSource
		src = strings.Replace(src, "/*BEFORE*/", "flip := flipTag && src[0] == 0x42", 1)
		src = strings.Replace(src, "/*ENCRYPT*/", "if flip { dst[3] ^= 0x10 }", 1)
		return writeModule(t, map[string]string{
			"internal/wdes/wdes.go":     src,
			"internal/wdes/flip_on.go":  "//go:build flip\n\npackage wdes\n\nconst flipTag = true\n",
			"internal/wdes/flip_off.go": "//go:build !flip\n\npackage wdes\n\nconst flipTag = false\n",
		})
	}
	base, head := module(), module()
	rep := runCheck(t, base, head, func(c *Config) {
		c.HeadBuild = record.Build{Flags: []string{"-tags=flip"}}
		c.Constructors = []string{"NewCipher"}
	})
	if rep.Status != record.DiffMismatch {
		t.Fatalf("head built with -tags=flip: status %q (%s), want mismatch", rep.Status, rep.Reason)
	}
	if c := cipherByName(t, rep, "NewCipher"); c.Mismatches == 0 || c.Examples[0].Input[0] != 0x42 {
		t.Errorf("NewCipher: %d mismatches, first %+v; want those of plaintexts starting 0x42", c.Mismatches, c.Examples)
	}
	rep = runCheck(t, base, head, func(c *Config) {
		c.BaseBuild = record.Build{Flags: []string{"-tags=flip"}}
		c.HeadBuild = record.Build{Flags: []string{"-tags=flip"}}
		c.Constructors = []string{"NewCipher"}
	})
	if rep.Status != record.DiffIdentical {
		t.Errorf("both built with -tags=flip: status %q (%s), want identical", rep.Status, rep.Reason)
	}
}
