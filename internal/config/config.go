package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
)

// FileName is the optional configuration file at the repository root.
const FileName = ".perfgate.yml"

// DefaultOutput is the results directory when none is given: inside .perfgate, which carries a
// .gitignore that ignores it (IgnoreOutput), so that a run leaves the work tree clean.
const DefaultOutput = ".perfgate/results"

// IgnoreOutput makes the directory that holds out ignore itself in git, with a .gitignore of "*"
// that it writes unless there is one. It is for DefaultOutput: a directory the user names is theirs
// to place.
func IgnoreOutput(out string) error {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	ignore := filepath.Join(parent, ".gitignore")
	if _, err := os.Lstat(ignore); err == nil {
		return nil
	}
	const content = "# Written by perfgate: its results are not part of the repository.\n*\n"
	if err := os.WriteFile(ignore, []byte(content), 0o644); err != nil {
		return fmt.Errorf("results directory: %w", err)
	}
	return nil
}

// Config is everything a comparison can be told. Its zero value is not usable: start from
// DefaultConfig, whose values are the defaults of the key table (ConfigKeys), then Resolve a file
// and flags or inputs on top of it.
//
// Each field that a user can set is declared once, as a ConfigKey in keys.go: its file key, flag,
// Action input, default, parser, validator and documentation. The field comments below name the
// key.
type Config struct {
	// Dir is a directory inside the git work tree to compare: a relative Package is relative to it.
	// Flag -C.
	Dir string
	// Base and Head are the revisions to compare. Base "" means the merge-base of HEAD with the
	// default branch; Head "" means the working tree, uncommitted changes included. Inputs "base"
	// and "head".
	Base, Head string

	// Package is the gated package: a directory relative to Dir ("./cipher/des"), anywhere in the
	// repository (each side finds the module that contains it in its own tree), or an import path.
	// Several, separated by commas, and patterns ("./cipher/...") gate several packages of one
	// module as one comparison (Packages). Key "package".
	Package string
	// Shard runs one part of the comparison (-shard i/n); the zero value runs it all. Key "shard".
	Shard Shard
	// Changed gates only the packages that differ between base and head: their own files or those
	// of their dependencies inside the module (go list -deps on each side). Key "changed".
	Changed bool
	// ShardCosts is an earlier run's results directory (or its result.json): the shards split the
	// work by the sub-benchmarks each top-level benchmark had there. Key "shard-costs".
	ShardCosts string
	// Bench selects benchmarks by a regular expression over their full names ("Encrypt/des"). Key
	// "bench".
	Bench string
	// Rounds is how many A–B–B–A rounds run; each side gets 2×Rounds samples. Key "rounds".
	Rounds int
	// BenchTime is how long one run of one benchmark lasts: a calibration target, or a fixed
	// count of iterations. Key "benchtime".
	BenchTime BenchTime
	// CPU is the CPU children are pinned to; -1 picks the last CPU this process may use. Key
	// "pin-cpu".
	CPU int
	// NoPin runs children unpinned. Key "no-pin".
	NoPin bool
	// TimeSameCode times benchmarks whose reachable machine code is the same on both sides (package
	// samecode) too; by default they are unchanged without timing. Timing more never loosens the
	// gate, so it is not a policy key. Key "time-same-code".
	TimeSameCode bool
	// Cycles runs callgrind's cache simulation in the instruction-count lane, which adds
	// est-cycles/op, the estimated cycles per op, beside instructions/op. Key "cycles".
	Cycles bool
	// Threshold is the smallest change, in percent, that counts as slower or faster. Key
	// "threshold".
	Threshold float64
	// Metric is the lane that measures and gates: MetricTime, MetricInstructions or MetricBoth. Key
	// "metric".
	Metric string
	// InstrThreshold is the smallest change of instructions/op, in percent, that counts as slower
	// or faster. Key "instructions-threshold".
	InstrThreshold float64
	// Alpha is the significance level, after Holm correction across benchmarks. Key "alpha".
	Alpha float64
	// Budget is the time the timing phase may take: rounds run in stages and a benchmark whose
	// class is settled stops being timed (benchrun.RunConfig.Budget). 0 runs exactly Rounds rounds.
	// Key "budget".
	Budget time.Duration
	// GateUnits are the units whose slower class fails the gate: by default sec/op and allocs/op.
	// Key "gate-units".
	GateUnits []string
	// OnInconclusive is what gating benchmarks that stay inconclusive do to the merge: "fail" (exit
	// 4) or "pass" (exit 0); the status is inconclusive either way. Key "on-inconclusive", read
	// from base like every policy key.
	OnInconclusive string
	// Limits are absolute limits on head's figures: benchmark-name regular expression → unit → the
	// largest value head may have (e.g. {"Encrypt/.*": {"instructions/op": 150000}}). Key "limits",
	// in the file only.
	Limits map[string]map[string]float64
	// Timeout bounds one benchmark run, one test run and one harness run. Key "timeout".
	Timeout time.Duration
	// Tags are build tags used on both sides. Key "tags".
	Tags []string
	// BaseBuild and HeadBuild are how each side is built: its Go toolchain, build-time variables
	// and go build flags (build.go). Keys "base-toolchain", "base-env", "base-flags" and head's.
	BaseBuild, HeadBuild record.Build

	// Sandbox says how the processes that run the repository's code are confined (package
	// internal/sandbox): "required", "auto" or "off"; "" is auto, except in the GitHub Action on
	// Linux, where it is required. Key "sandbox", a policy key, so that a pull request cannot
	// switch its own confinement off.
	Sandbox string
	// AllowNetwork lets the sandboxed processes use TCP. Key "allow-network".
	AllowNetwork bool

	// Differential turns the differential check on or off. Key "differential".
	Differential bool
	// ConstantTime is what the constant-time check does: record.CTReport, CTFailNew or CTOff; empty
	// (the default) is report where valgrind is installed, off elsewhere. Key "constant-time".
	ConstantTime string
	// ConstantTimeBudget bounds the constant-time check's tracing (0: no bound). Key
	// "constant-time-budget".
	ConstantTimeBudget time.Duration
	// ConstantTimeBlocks is how many blocks each traced batch call (EncryptBlocks…) gets. Key
	// "constant-time-blocks".
	ConstantTimeBlocks int
	// ConstantTimeConstructors narrows the constant-time check to these constructors; empty traces
	// every one the check discovers. No key: perfgate demo sets it, to trace the one constructor
	// its lesson needs.
	ConstantTimeConstructors []string
	// Constructors names the cipher constructors to check; empty discovers them. Key
	// "constructors".
	Constructors []string
	// Keys and Blocks size the differential check per cipher and key size. Keys "keys" and
	// "blocks".
	Keys, Blocks int
	// MessageKeys and MessageBlocks size the differential check of AEADs, stream ciphers and
	// hashes: keys per key size, and the longest message in blocks. Keys "message-keys" and
	// "message-blocks".
	MessageKeys, MessageBlocks int
	// Seed makes the differential inputs; it is printed so any run can be repeated. Key "seed".
	Seed uint64

	// Thresholds acknowledges slower benchmarks per name: a benchmark whose full name matches the
	// regular expression may be slower by up to the given percent without failing the gate. Key
	// "thresholds".
	Thresholds map[string]float64
	// Oracles names, per constructor, a reference constructor by import path and function
	// ("NewTripleEDE3": "crypto/des.NewTripleDESCipher"): head is checked against it on the
	// differential's vectors. Key "oracle".
	Oracles map[string]string
	// MaxSizeGrowth fails the gate when the package's symbols grow by more than this many bytes in
	// total; 0 means size never gates. Key "max-size-growth".
	MaxSizeGrowth int64
	// AcknowledgeLabel is the pull-request label that acknowledges slower benchmarks. Key
	// "acknowledge-label".
	AcknowledgeLabel string
	// Acknowledged is set when the pull request carries AcknowledgeLabel: slower benchmarks do not
	// fail the gate.
	Acknowledged bool

	// PolicyFrom is whose configuration file sets the keys of the gate policy (ConfigKey.Policy):
	// PolicyFromBase, PolicyFromHead, or "" for the command's default (head for compare, base for
	// the Action). Key "policy-from", which no file can set: head's file must not choose whose file
	// decides.
	PolicyFrom string
	// PolicyOrigin records whose file the policy came from and head's changes to it; BasePolicy
	// and PolicyFromFile set it and the Result carries it.
	PolicyOrigin record.PolicyOrigin

	// Out is the results directory. Key "output".
	Out string
	// Cache is the GOCACHE both sides build with; "" uses the user's cache.
	Cache string
	// Store is the directory of the store of artifacts kept between runs (package internal/store):
	// "" for the user's cache directory, "off" for none. Key "cache".
	Store string
	// Log receives progress and tool output for humans; nil discards it.
	Log io.Writer
}

var metrics = []string{record.MetricTime, record.MetricInstructions, record.MetricBoth, record.MetricAuto}

// CountsInstructions reports whether the instruction-count lane runs.
func (c *Config) CountsInstructions() bool {
	return c.Metric == record.MetricInstructions || c.Metric == record.MetricBoth || c.Metric == record.MetricAuto
}

// TimesBenchmarks reports whether the timing lane runs.
func (c *Config) TimesBenchmarks() bool { return c.Metric != record.MetricInstructions }

// Packages returns the packages and patterns of Package, in the order given.
func (c *Config) Packages() []string { return splitList(c.Package) }

// Shard is one part of a comparison split across n machines: Index of Count, 1-based. The zero
// value is the whole.
type Shard struct{ Index, Count int }

// Sharded reports whether s names a part of the comparison.
func (s Shard) Sharded() bool { return s != Shard{} }

// String is the form the flag takes: "2/4", or "" for the whole comparison.
func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Default returns the defaults: every key of the table set to its Default.
func Default() Config {
	var c Config
	for _, k := range keys {
		if k.Default == "" || k.set == nil {
			continue
		}
		if err := k.set(&c, k.Default); err != nil {
			// caught by the tests
			panic("perfgate: the default of key " + k.Name() + " does not parse: " + err.Error())
		}
	}
	return c
}

// Error is an invalid configuration value. It names where it came from, the key and the accepted
// form.
type Error struct {
	// "flag" (Key is then the flag's name), "input", "config", or the file and line:
	// ".perfgate.yml:3"
	Source string
	Key    string // "" when the problem is the whole source (a file that is not YAML)
	Value  string
	Want   string
	Why    string // why Value is refused, when the accepted form does not say it; "" for none
}

func (e *Error) Error() string {
	where := e.Key
	switch {
	case e.Source == "flag":
		where = "-" + e.Key
	case e.Source != "" && e.Key != "":
		where = e.Source + ": " + e.Key
	case e.Source != "":
		where = e.Source
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: want %s", where, e.Want)
	}
	if e.Why != "" {
		return fmt.Sprintf("%s: invalid value %q (%s): want %s", where, e.Value, e.Why, e.Want)
	}
	return fmt.Sprintf("%s: invalid value %q: want %s", where, e.Value, e.Want)
}

// Validate checks every value against its key's bounds and returns the first problem as a
// *ConfigError naming the key's file name (or, for a key the file cannot set, its flag or input).
func (c *Config) Validate() error {
	for _, k := range keys {
		if err := k.validate(c); err != nil {
			return err
		}
	}
	return nil
}

// Setting is one key's value as text, given on the command line (Source "flag") or as an Action
// input (Source "input").
type Setting struct {
	Key    *Key
	Text   string
	Source string // "flag" or "input"
}

// Resolve applies, on top of c, the configuration file at path (when path is not "" and the file
// exists), then the settings in order, and validates the result: a setting wins over the file, the
// file over what c held (the defaults). Every error is a *ConfigError naming where the bad value
// came from: the flag, the input, or the file and line.
func (c *Config) Resolve(path string, settings []Setting) error {
	origin := map[*Key]string{}
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return err
		default:
			if err := c.loadFile(path, data, origin); err != nil {
				return err
			}
		}
	}
	for _, s := range joinRepeated(settings) {
		if err := s.Key.setText(c, s.Text, s.Source); err != nil {
			return err
		}
		origin[s.Key] = s.Source
	}
	for _, k := range keys {
		err := k.validate(c)
		var ce *Error
		if !errors.As(err, &ce) {
			continue
		}
		switch src := origin[k]; src {
		case "":
			ce.Source = "config"
		case "flag":
			ce.Source, ce.Key = src, k.Flag
		case "input":
			ce.Source, ce.Key = src, k.Input
		default:
			ce.Source = src // the file and the line
		}
		return err
	}
	return nil
}

// LoadFile applies the YAML configuration in data (read from name, used in messages) on top of c.
// Unknown keys, repeated keys and values of the wrong form are *ConfigError values naming the file,
// the line and the key. It does not check bounds: call Validate, or use Resolve, which does both.
func (c *Config) LoadFile(name string, data []byte) error {
	return c.loadFile(name, data, nil)
}

// LoadConfigFile reads path into c when it exists. A missing file is not an error.
func (c *Config) LoadConfigFile(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.LoadFile(path, data)
}

// joinRepeated joins the settings of a repeatable key (Key.Repeats) from one source into one, its
// texts a line each, in place of the first: -head-flags=-tags=purego -head-flags=-pgo=off is one
// list of two flags. Other settings are kept as they are, in order.
func joinRepeated(settings []Setting) []Setting {
	out := make([]Setting, 0, len(settings))
	at := map[[2]any]int{}
	for _, s := range settings {
		if s.Key.Repeats() {
			id := [2]any{s.Key, s.Source}
			if i, ok := at[id]; ok {
				out[i].Text += "\n" + s.Text
				continue
			}
			at[id] = len(out)
		}
		out = append(out, s)
	}
	return out
}

// splitList splits a comma-separated flag or input value, dropping empty items and surrounding
// space.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
