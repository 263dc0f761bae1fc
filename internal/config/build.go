package config

import (
	"regexp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// A side is a revision and a build: the keys below give each side its own Go toolchain, build-time
// variables and go build flags (record.Build), so that one comparison can ask whether a Go release,
// GOAMD64=v3, a PGO profile or a build tag changes the speed, the size or the bytes computed. The
// default build of both sides is the one perfgate always made: its own toolchain, no variables, no
// flags beyond -trimpath and the tags key.

// Build returns the build of side.
func (c *Config) Build(side record.Side) record.Build {
	if side == record.Base {
		return c.BaseBuild
	}
	return c.HeadBuild
}

// BuildsDiffer reports whether base and head are built differently: then the same revision on both
// sides is a comparison of two builds.
func (c *Config) BuildsDiffer() bool { return !c.BaseBuild.Equal(c.HeadBuild) }

// toolchainRe is a GOTOOLCHAIN value naming a release: go1.25.5, go1.26rc1, go1.22.
var toolchainRe = regexp.MustCompile(`^go1\.[0-9]+(\.[0-9]+)?((rc|beta)[0-9]+)?$`)

// ValidToolchain reports whether s is a toolchain a side can ask for: "" or "local" (perfgate's
// own), or a release such as go1.25.5.
func ValidToolchain(s string) bool { return s == "" || s == "local" || toolchainRe.MatchString(s) }

// buildVars are the build-time variables a side may set: they change the code the toolchain
// emits, and nothing about how the timed runs execute.
var buildVars = []string{"GOAMD64", "GOARM", "GOARM64", "GO386", "GOPPC64", "GORISCV64", "GOMIPS", "GOMIPS64",
	"GOWASM", "GOEXPERIMENT", "GOFIPS140", "CGO_ENABLED", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS"}

// refusedVars are variables a user may well try, with why a side cannot set them.
var refusedVars = map[string]string{
	"GOGC":        "GOGC changes how the timed runs execute (run time), not the build",
	"GOMAXPROCS":  "GOMAXPROCS changes how the timed runs execute (run time), not the build; every run is GOMAXPROCS=1",
	"GODEBUG":     "GODEBUG changes how the timed runs execute (run time), not the build",
	"GOMEMLIMIT":  "GOMEMLIMIT changes how the timed runs execute (run time), not the build",
	"GOTRACEBACK": "GOTRACEBACK changes how the timed runs execute (run time), not the build",
	"GOTOOLCHAIN": "the toolchain is the key base-toolchain or head-toolchain",
	"GOFLAGS":     "go build flags are the key base-flags or head-flags",
	"GOOS":        "a side must run on this machine: no cross builds",
	"GOARCH":      "a side must run on this machine: no cross builds",
}

// values are the accepted values of the variables whose bad values the go command does not refuse.
var values = map[string]*regexp.Regexp{
	"GOAMD64":     regexp.MustCompile(`^(v1|v2|v3|v4)$`),
	"GO386":       regexp.MustCompile(`^(sse2|softfloat)$`),
	"CGO_ENABLED": regexp.MustCompile(`^(0|1)$`),
}

// envReason says why the KEY=VALUE item is not a build-time variable a side may set; "" when it is.
func envReason(item string) string {
	name, value, ok := strings.Cut(item, "=")
	switch {
	case !ok || name == "":
		return "not KEY=VALUE"
	case refusedVars[name] != "":
		return refusedVars[name]
	case !slices.Contains(buildVars, name):
		return name + " is not a build-time variable perfgate passes"
	case values[name] != nil && !values[name].MatchString(value):
		// the go command takes some bad values without a word (GOAMD64=v9 builds as v1)
		return name + " takes " + strings.ReplaceAll(strings.Trim(values[name].String(), "^$()"), "|", ", ")
	}
	return ""
}

// buildFlagNames are the go build flags a side may give, as -name=value.
var buildFlagNames = []string{"tags", "pgo", "gcflags", "ldflags", "asmflags"}

// flagReason says why item is not a go build flag a side may give; "" when it is.
func flagReason(item string) string {
	if !strings.HasPrefix(item, "-") {
		return "not a flag: one argument each, such as -tags=purego"
	}
	name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(item, "-"), "-"), "=")
	if i := strings.IndexAny(name, " \t"); i >= 0 {
		name, ok = name[:i], false // -tags purego: two arguments in one
	}
	switch name {
	case "trimpath":
		return "-trimpath is always on"
	case "race", "msan", "asan", "cover", "covermode", "coverpkg":
		return "-" + name + " changes what is measured, not only how the code is built"
	case "o", "C", "overlay", "mod", "modfile", "work", "toolexec", "exec", "n", "x", "a", "p":
		return "-" + name + " is perfgate's to set"
	}
	if !slices.Contains(buildFlagNames, name) {
		return "-" + name + " is not a go build flag perfgate passes"
	}
	if !ok {
		return "-" + name + " needs its value after =, in the same argument: -" + name + "=…"
	}
	switch name {
	case "tags":
		if value == "" || strings.ContainsAny(value, " \t\n") {
			return "-tags takes comma-separated tags without spaces"
		}
	case "pgo":
		if value == "" {
			return "-pgo needs a profile, auto or off"
		}
	case "ldflags":
		for _, f := range strings.Fields(value) {
			if n, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "="); n == "s" || n == "w" {
				return "-ldflags=-" + n + " strips the symbol table the size measurement reads"
			}
		}
	}
	return ""
}

// splitLines splits a flag's, an input's or a file's value of a repeatable key into its items: one
// a line (repeated flags are joined with newlines; an Action input is one item a line), each one
// argument, never split at spaces: -gcflags=all=-N -l is one.
func splitLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// itemsKey is a repeatable key: each flag given adds an item (Resolve joins a key's repeated flags
// or inputs), an Action input takes one item a line, the file a YAML sequence or one scalar. Items
// are arguments, never split at spaces; reason says why an item is refused, "" when it is not.
func itemsKey(k Key, field func(*Config) *[]string, reason func(string) string) *Key {
	k.repeat = true
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error { *field(c) = splitLines(s); return nil }
	k.list = func(c *Config, items []string) error { *field(c) = items; return nil }
	k.check = func(c *Config) (string, bool) {
		for _, item := range *field(c) {
			if reason(item) != "" {
				return item, false
			}
		}
		return "", true
	}
	k.reason = reason
	return &k
}

// buildKeys are the keys of both sides' builds, in the table's order.
func buildKeys() []*Key {
	var out []*Key
	for _, side := range []record.Side{record.Base, record.Head} {
		build := func(c *Config) *record.Build {
			if side == record.Base {
				return &c.BaseBuild
			}
			return &c.HeadBuild
		}
		s := string(side)
		out = append(out,
			stringKey(Key{File: s + "-toolchain", Flag: s + "-toolchain", Policy: true, Input: s + "-toolchain",
				Form: "a Go release such as go1.25.5 (fetched through the module proxy like GOTOOLCHAIN's), or local",
				Doc: "the Go toolchain that builds " + s + ", as GOTOOLCHAIN names it (go1.25.5); " +
					"default local: the toolchain running perfgate"},
				func(c *Config) *string { return &build(c).Toolchain }, ValidToolchain),
			itemsKey(Key{File: s + "-env", Flag: s + "-env", Policy: true, Input: s + "-env", Type: "KEY=VALUE",
				Form: "KEY=VALUE of a build-time variable: " + strings.Join(buildVars, ", "),
				Doc: "a build-time variable of " + s + "'s build, KEY=VALUE (GOAMD64=v3, GOEXPERIMENT=…, CGO_ENABLED=0); " +
					"several: repeat the flag (a list in the file, one a line in the input); run-time variables (GOGC, GOMAXPROCS, GODEBUG, " +
					"GOMEMLIMIT) are refused"},
				func(c *Config) *[]string { return &build(c).Env }, envReason),
			itemsKey(Key{File: s + "-flags", Flag: s + "-flags", Policy: true, Input: s + "-flags", Type: "flag",
				Form: "go build flags, one argument each: -tags=…, -pgo=…, -gcflags=…, -ldflags=… (without -s or -w) " +
					"or -asmflags=…",
				Doc: "a go build flag of " + s + "'s build, one argument (-tags=purego, -pgo=cpu.pprof, " +
					"-gcflags=all=-N -l); several: repeat the flag (a list in the file, one a line in the input); -pgo's path is relative to -C"},
				func(c *Config) *[]string { return &build(c).Flags }, flagReason),
		)
	}
	return out
}
