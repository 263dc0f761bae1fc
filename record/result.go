package record

import "time"

// Schema is the version of the result.json layout. Fields documented here are stable within a
// schema version.
const Schema = 1

// Status is the gate's decision on a comparison.
type Status string

// Verdict statuses.
const (
	StatusPass Status = "pass" // the gate passed: exit code 0
	StatusFail Status = "fail" // the gate failed: exit code 1
	// perfgate could not run the comparison: exit code 3 (2 for a configuration error)
	StatusError Status = "error"
	// StatusInconclusive: nothing failed, but gating benchmarks could not be told changed or
	// unchanged. Exit code 4 under on-inconclusive fail (the default), 0 under on-inconclusive
	// pass.
	StatusInconclusive Status = "inconclusive"
)

// Side names one of the two revisions of a comparison. In the A–B–B–A schedule A is Base and B is
// Head.
type Side string

// The two sides.
const (
	Base Side = "base"
	Head Side = "head"
)

// Result is everything one comparison found. It is written as result.json and is the only input of
// the renderers.
//
// Scripts may rely on verdict.status, verdict.exit_code, verdict.reasons, benchmarks[].name, unit,
// class, paired and package, differential.status, differential.ciphers[].name and key_sizes,
// sizes.sections[].name, base and head, and packages; a change to any of them bumps Schema. When
// several packages are gated, every benchmark, cipher, size section and failure row carries its
// package, and package holds the -pkg value as given.
type Result struct {
	Schema int `json:"schema"`
	// Package is the gated package as given, e.g. "./cipher/des". When several are gated it is the
	// -pkg value as given ("./cipher/...,./hash/crc"), and Packages lists the packages it expanded
	// to.
	Package string `json:"package"`
	// the gated packages, when several are (rows carry theirs)
	Packages []string `json:"packages,omitempty"`
	// Shard says which part of a sharded comparison this partial result is; nil for a whole
	// comparison (also one that perfgate merge combined).
	Shard      *Shard      `json:"shard,omitempty"`
	ImportPath string      `json:"import_path,omitempty"`
	Base       Revision    `json:"base"`
	Head       Revision    `json:"head"`
	Verdict    Verdict     `json:"verdict"`
	Benchmarks []Benchmark `json:"benchmarks"`
	// one row per unit with two or more benchmarks
	Geomeans   []Geomean  `json:"geomeans,omitempty"`
	Failures   []Failure  `json:"failures,omitempty"` // benchmark runs that crashed or hung
	Functional Functional `json:"functional"`
	// Sandbox is what confined the processes that ran the repository's code; nil when nothing was
	// recorded (a result written before the sandbox existed, or a comparison stopped before it ran
	// anything).
	Sandbox      *Sandbox      `json:"sandbox,omitempty"`
	Differential Differential  `json:"differential"`
	Sizes        Sizes         `json:"sizes"`
	ConstantTime *ConstantTime `json:"constant_time,omitempty"` // nil when the check was off
	// Why explains the benchmarks that changed (Why); empty when none changed or attribution was
	// off.
	Why        []Why  `json:"why,omitempty"`
	Env        Env    `json:"env"`
	Method     Method `json:"method"`
	Incomplete bool   `json:"incomplete"` // cancelled or cut short: some phases did not run
	// head did not build (or go list failed on it): fails the gate
	HeadBuildFailed bool `json:"head_build_failed,omitempty"`
	// things the reader should know (identical binaries, unpinned, …)
	Notes []string `json:"notes,omitempty"`
	// whose configuration set the gate policy, and head's changes to it
	Policy   PolicyOrigin  `json:"policy,omitzero"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
}

// Geomean is the geometric-mean row of one unit over the comparison's benchmarks, benchstat's
// summary row (package bench computes it: bench.Geomeans).
type Geomean struct {
	Unit string  `json:"unit"`
	Base float64 `json:"base"` // geometric mean of base's centers, in the unit
	Head float64 `json:"head"` // geometric mean of head's centers
	// Head/Base: the geometric mean of the benchmarks' head/base ratios
	Ratio float64 `json:"ratio"`
	N     int     `json:"n"` // benchmarks in it: those with a positive center on both sides
}

// Shard identifies one part of a comparison split across machines (perfgate compare -shard i/n),
// and what perfgate merge checks before it combines the parts.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
	// Units are the parts of the work this shard ran: "PKG" for a package's build, tests,
	// differential check and sizes, and "PKG Benchmark" for one top-level benchmark of it.
	Units []string `json:"units"`
	// Plan fingerprints the whole split (every unit and its shard): shards of one comparison agree
	// on it.
	Plan string `json:"plan"`
	// Config fingerprints the configuration that decides the numbers (every key but the shard and
	// the output).
	Config string `json:"config"`
	// Perfgate is the version of perfgate that ran the shard.
	Perfgate string `json:"perfgate"`
	// Policy is the gate policy the shard ran with, as JSON: perfgate merge decides the verdict
	// with it.
	Policy string `json:"policy"`
}

// Revision is one side of the comparison.
type Revision struct {
	// what the user asked for: "main", "HEAD~1", "working tree"
	Ref string `json:"ref"`
	// full SHA; for a dirty working tree the commit it is based on
	Commit  string `json:"commit"`
	Dirty   bool   `json:"dirty"`             // the working tree with uncommitted changes
	Subject string `json:"subject,omitempty"` // first line of the commit message (untrusted text)
	// Build is how the side was built when the two sides were not built alike (-base-toolchain,
	// -head-env, -head-flags, …): its fields appear in the side's object, all empty (and absent)
	// when both sides were built alike with perfgate's toolchain.
	Build
}

// Build is how one side's code is built: a revision is a tree and a build. Its zero value is the
// default: the toolchain running perfgate (GOTOOLCHAIN=local), no extra variables or flags.
type Build struct {
	// Toolchain is the Go release that built the side, as the go command reports it ("go1.25.5");
	// in a Result it is set on both sides when their builds differ, "" otherwise. In a
	// configuration it is the GOTOOLCHAIN value asked for ("" or "local": perfgate's own).
	Toolchain string `json:"toolchain,omitempty"`
	// Env are the build-time variables, KEY=VALUE (GOAMD64=v3, GOEXPERIMENT=…, CGO_ENABLED=0), in
	// the order given.
	Env []string `json:"env,omitempty"`
	// Flags are the go build flags, one argument each ("-tags=purego", "-pgo=/x/default.pgo"), in
	// the order given.
	Flags []string `json:"flags,omitempty"`
}

// IsZero reports whether b is the default build.
func (b Build) IsZero() bool {
	return (b.Toolchain == "" || b.Toolchain == "local") && len(b.Env) == 0 && len(b.Flags) == 0
}

// Equal reports whether a and b are the same build.
func (b Build) Equal(o Build) bool {
	eq := func(x, y []string) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	tc := func(s string) string {
		if s == "local" {
			return ""
		}
		return s
	}
	return tc(b.Toolchain) == tc(o.Toolchain) && eq(b.Env, o.Env) && eq(b.Flags, o.Flags)
}

// Verdict is the gate's decision.
type Verdict struct {
	Status   Status `json:"status"`
	ExitCode int    `json:"exit_code"`
	// why it failed (or notable passes), one sentence each
	Reasons []string `json:"reasons"`
	// slower benchmarks that did not fail the gate, and why
	Acknowledged []string `json:"acknowledged,omitempty"`
	// what the gate noticed without failing, e.g. a benchmark head skipped
	Notes []string `json:"notes,omitempty"`
	// Checks says which of the gate's checks ran and which did not, and why, in a fixed order:
	// benchmarks, differential, size, constant time (when it was asked for), then the sandbox.
	Checks []Check `json:"checks,omitempty"`
	// AcknowledgedBenchmarks names the benchmarks (gated unit) of Acknowledged, for marking
	// Benchmark.Acknowledged.
	AcknowledgedBenchmarks []string `json:"acknowledged_benchmarks,omitempty"`
	// RuledOutBenchmarks names (as AcknowledgedBenchmarks) the inconclusive benchmarks of a gating
	// unit whose one-sided bound rules out a change for the worse beyond their threshold, so that
	// they do not block the merge; for marking Benchmark.RuledOut.
	RuledOutBenchmarks []string `json:"ruled_out_benchmarks,omitempty"`
}

// Check is one of the gate's checks (CheckBenchmarks, CheckDifferential, CheckSize,
// CheckConstantTime) and whether it ran.
type Check struct {
	Name string `json:"name"`
	Ran  bool   `json:"ran"`
	// Detail says what was checked when it ran ("12 benchmarks", "5 constructors"), else why not
	// ("no benchmarks", "disabled by configuration", "no cipher constructor").
	Detail string `json:"detail"`
}

// Names of the gate's checks.
const (
	CheckBenchmarks   = "benchmarks"   // speed: the A–B–B–A benchmarks
	CheckDifferential = "differential" // correctness: base and head outputs compared
	CheckSize         = "size"         // size growth against max-size-growth
	// secret-dependent branches and loads, under constant-time report or fail-new
	CheckConstantTime = "constant-time"
	// CheckSandbox is not a check of the code: it says whether the checks above ran guarded (Ran)
	// and what the sandbox guaranteed (Detail). A comparison in which only it ran checked nothing.
	CheckSandbox = "sandbox"
)

// Functional is the outcome of running the package's own tests on each side before timing.
type Functional struct {
	Base TestRun `json:"base"`
	Head TestRun `json:"head"`
}

// TestRun is one side's test run.
type TestRun struct {
	Ran    bool `json:"ran"`
	Passed bool `json:"passed"`
	// the tail of the output when it failed (untrusted text)
	Output string `json:"output,omitempty"`
}

// Env describes the machine the benchmarks ran on.
type Env struct {
	Go        string  `json:"go"`
	GOOS      string  `json:"goos"`
	GOARCH    string  `json:"goarch"`
	GOAMD64   string  `json:"goamd64,omitempty"`
	CPU       string  `json:"cpu"`
	CPUs      int     `json:"cpus"`
	Pinned    bool    `json:"pinned"`
	PinnedCPU int     `json:"pinned_cpu"` // -1 when unpinned
	Governor  string  `json:"governor,omitempty"`
	Turbo     string  `json:"turbo,omitempty"`
	SMT       string  `json:"smt,omitempty"`
	Kernel    string  `json:"kernel,omitempty"`
	Load1     float64 `json:"load1"`
	// valgrind's version when the instruction-count lane ran, e.g. "valgrind-3.19.0"
	Valgrind string `json:"valgrind,omitempty"`
	// ValgrindGODEBUG are the GODEBUG settings every Go process under valgrind ran with, on both
	// sides, because valgrind reports CPU features this machine lacks and cannot run them, e.g.
	// ["cpu.rdtscp=off"]
	ValgrindGODEBUG []string `json:"valgrind_godebug,omitempty"`
}

// Method records how the numbers were obtained.
type Method struct {
	Rounds int `json:"rounds"`
	// time per measured run: the calibration target, or less when a budget shortened the runs; 0
	// when BenchIters fixed the count instead
	BenchTime time.Duration `json:"benchtime_ns"`
	// iterations per measured run when they were fixed (-benchtime Nx): the same on both sides,
	// not calibrated; 0 when BenchTime calibrated them
	BenchIters int     `json:"bench_iters,omitempty"`
	Threshold  float64 `json:"threshold_pct"`
	Alpha      float64 `json:"alpha"`
	// a one-line description of the paired estimator
	Estimator string `json:"estimator"`
	// median noise floor across benchmarks, percent
	NoiseFloor   float64       `json:"noise_pct"`
	MedianMDE    float64       `json:"median_mde_pct"` // median smallest detectable effect, percent
	TimedPhase   time.Duration `json:"timed_phase_ns"`
	BinariesSame bool          `json:"binaries_identical"`
	// Metric is the lane that ran and gates: "time" (sec/op), "instructions" (instructions/op) or
	// "both" (each gates); "" in results written before the lane existed, meaning time.
	Metric string `json:"metric,omitempty"`
	// InstrThreshold is the instruction-count lane's threshold in percent, when it ran.
	InstrThreshold float64 `json:"instructions_threshold_pct,omitempty"`
	// BenchSource says whose benchmark code the sides ran: "head" when base's timed binary was
	// built with head's _test.go files (or they are the same on both sides), "each" when head's do
	// not compile against base's package and each side ran its own. BenchChanged names the
	// top-level benchmarks (without "Benchmark") whose test code differs between the sides.
	BenchSource  string   `json:"bench_source,omitempty"`
	BenchChanged []string `json:"bench_changed,omitempty"`
	// Budget is the time the timing phase was allowed (0: exactly Rounds rounds); Stages counts the
	// stages run, after each of which settled benchmarks stopped; Settled counts the benchmarks
	// (sec/op) settled for the gate: classed slower, faster or unchanged, or inconclusive with a
	// slowdown beyond the threshold ruled out.
	Budget  time.Duration `json:"budget_ns"`
	Stages  int           `json:"stages,omitempty"`
	Settled int           `json:"settled"`
	// Schedule says where the timing ran and what ran beside it or not, and why: what a valgrind on
	// the spare CPU did to a timed probe on the timed one (the count lane and the constant-time
	// trace run beside the timing only where that was within a quarter of the threshold); "" when
	// there was no CPU to spare.
	Schedule string `json:"schedule,omitempty"`
	// Phases are the comparison's phases in the order they ran, each with its wall time (several
	// packages: each package's, in turn).
	Phases []Phase `json:"phases,omitempty"`
	// Steady is the timed runs' evidence that they measured the steady state go test measures; nil
	// when nothing was timed, or in results written before it was kept.
	Steady *Steady `json:"steady,omitempty"`
}

// Steady says how the timed processes were warmed up and what they still paid for memory: each
// timed process ran WarmUp sub-runs at the run's iteration count first, discarded, and every
// process's minor page faults and garbage collections per op (over all it ran, start-up and
// warm-up included; bench.txt's faults/op and gcs/op) are summed up as the lowest and highest,
// across benchmarks, of each benchmark's median. A first touch of a fresh page is a page fault
// (on a VM whose host reclaims memory, possibly a VM exit); a benchmark that still faults much per
// op measures its heap's growth as much as its code. Evidence only: never compared, never gated.
type Steady struct {
	WarmUp   int     `json:"warm_up_sub_runs"`
	FaultsLo float64 `json:"faults_per_op_lo"`
	FaultsHi float64 `json:"faults_per_op_hi"`
	// GCsLo and GCsHi are -1 when the collections were not counted.
	GCsLo float64 `json:"gcs_per_op_lo"`
	GCsHi float64 `json:"gcs_per_op_hi"`
}

// Phase is one phase of a comparison: export, build, differential, constant time, tests, sizes,
// machine code, timing (and counting), why; how long it took by the wall clock, and how many of its
// artifacts came from the store of artifacts instead of being computed (never a timing: both sides
// are timed fresh in every run). A phase that ran beside another on a CPU the timed children do not
// use names it in Alongside, and its wall time overlaps that phase's.
type Phase struct {
	Name      string        `json:"name"`
	Wall      time.Duration `json:"wall_ns"`
	FromStore int           `json:"from_store,omitempty"`
	Alongside string        `json:"alongside,omitempty"`
}
