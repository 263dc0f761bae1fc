package gobuild

import (
	"strings"

	"github.com/perfgate/perfgate/record"
)

// SideFlags returns the go build flags of one side's build b, one argument each, after -trimpath
// (which every build of perfgate's gets): the key tags (both sides) and b's own -tags merged into
// one -tags flag (the go command keeps only the last of several), then b's other flags in the
// order given. Every go command that builds or lists a side's code takes them: its test binary,
// go list, the differential harness, the constant-time driver and the compiler's -m=2 report.
func SideFlags(tags []string, b record.Build) []string {
	all := append([]string(nil), tags...)
	var rest []string
	for _, f := range b.Flags {
		name, value, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name == "tags" {
			for _, t := range strings.Split(value, ",") {
				if t = strings.TrimSpace(t); t != "" {
					all = append(all, t)
				}
			}
			continue
		}
		rest = append(rest, f)
	}
	var out []string
	if len(all) > 0 {
		out = append(out, "-tags="+strings.Join(all, ","))
	}
	return append(out, rest...)
}

// SideEnv returns the environment of one side's go commands for its build b: GOTOOLCHAIN=local
// (the toolchain running perfgate) or the release b names, which the go command fetches through
// the module proxy into the module cache the first time (GOPROXY, GOMODCACHE and GOPATH pass
// through proc's scrubbed environment), then b's build-time variables.
func SideEnv(b record.Build) []string {
	tc := b.Toolchain
	if tc == "" {
		tc = "local"
	}
	return append([]string{"GOTOOLCHAIN=" + tc}, b.Env...)
}
