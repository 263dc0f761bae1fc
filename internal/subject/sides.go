package subject

import (
	"fmt"
	"io"
	"time"

	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/store"
	"github.com/perfgate/perfgate/record"
)

// Sides is what every check that builds code inside the gated package is told about it (package
// differential's Config and package consttime's embed it): the two trees, the package, how its go
// commands run, where the check works and logs, and the sandbox its programs run in.
type Sides struct {
	BaseDir, HeadDir string // module roots of the two trees; never written to
	// the gated package, relative to the module root ("./cipher/des"); default "."
	Pkg  string
	Seed uint64 // seed of every input; 0 means the check's DefaultSeed
	Tags []string
	// BaseBuild and HeadBuild are how each side is built (its toolchain, build-time variables and
	// go build flags): every go command on a side's code takes them (BuildFlags, BuildEnv), so that
	// a side's harness or driver is compiled as its test binary is.
	BaseBuild, HeadBuild record.Build
	// GOCACHE for the go commands, shared by both sides; default inherited
	Cache string
	// limit of one run of a side's program (a harness, a traced driver); 0 means the check's
	// DefaultTimeout
	Timeout time.Duration
	// where the check's sources, overlays and binaries go; default a temporary directory
	WorkDir string
	Log     io.Writer // build output and progress; default discarded
	// Sandbox confines every run of a side's program, base's and head's alike; nil runs them
	// unconfined. Both programs are built, and sealed (their SHA-256 recorded), before either runs,
	// and each run checks its seal first.
	Sandbox *sandbox.Sandbox
	// Store, when not nil, keeps the outputs of the sides' programs between runs, keyed by the
	// sealed program's digest and its input (and, for an analysis, by perfgate's own digest): a run
	// whose key is there is not run again. Every entry is verified when read; a damaged one is
	// computed again.
	Store *store.Store
}

// Resolve checks that the base and head directories are given, makes them absolute, and defaults
// the package to ".".
func (s *Sides) Resolve() error { return Resolve(&s.BaseDir, &s.HeadDir, &s.Pkg) }

// Logf writes to Log, when there is one.
func (s *Sides) Logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format, args...)
	}
}

// Env is the extra environment of the go commands: GOCACHE when Cache is set.
func (s *Sides) Env() []string {
	if s.Cache == "" {
		return nil
	}
	return []string{"GOCACHE=" + s.Cache}
}

// build is side's build ("base" or "head").
func (s *Sides) build(side string) record.Build {
	if side == string(record.Base) {
		return s.BaseBuild
	}
	return s.HeadBuild
}

// BuildFlags are the go build flags of side ("base" or "head"): -trimpath, the tags and the side's
// own flags (gobuild.SideFlags).
func (s *Sides) BuildFlags(side string) []string {
	return append([]string{"-trimpath"}, gobuild.SideFlags(s.Tags, s.build(side))...)
}

// BuildEnv is the extra environment of side's go commands: Env, then its toolchain and build-time
// variables (gobuild.SideEnv).
func (s *Sides) BuildEnv(side string) []string {
	return append(s.Env(), gobuild.SideEnv(s.build(side))...)
}
