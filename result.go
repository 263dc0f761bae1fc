package perfgate

import "time"

// Schema is the version of the result.json layout. Fields documented here are stable within a schema version.
const Schema = 1

// Verdict statuses.
const (
	StatusPass  = "pass"  // the gate passed: exit code 0
	StatusFail  = "fail"  // the gate failed: exit code 1
	StatusError = "error" // perfgate could not run the comparison: exit code 3
)

// Exit codes of the command line and the Action.
const (
	ExitPass      = 0 // the gate passed
	ExitFail      = 1 // the gate failed
	ExitUsage     = 2 // usage or configuration error
	ExitCannotRun = 3 // could not run: base does not build, git error, …
)

// Benchmark classes.
const (
	ClassSlower       = "slower"       // significant after Holm correction and the estimate beyond +threshold
	ClassFaster       = "faster"       // significant after Holm correction and the estimate beyond -threshold
	ClassUnchanged    = "unchanged"    // the paired interval lies inside ±threshold
	ClassInconclusive = "inconclusive" // the interval is too wide to tell
	ClassFailed       = "failed"       // the benchmark crashed, hung or produced no samples on a side
)

// Differential statuses.
const (
	DiffIdentical     = "identical"      // every cipher produced byte-identical output on both sides
	DiffMismatch      = "mismatch"       // at least one output differs
	DiffNotComparable = "not-comparable" // the base could not be run (panic, no ciphers found, …)
	DiffSkipped       = "skipped"        // disabled by configuration, or no cipher constructors in the package
)

// Result is everything one comparison found. It is written as result.json and is the only input of the renderers.
type Result struct {
	Schema       int           `json:"schema"`
	Package      string        `json:"package"` // the gated package as given, e.g. "./cipher/des"
	ImportPath   string        `json:"import_path,omitempty"`
	Base         Revision      `json:"base"`
	Head         Revision      `json:"head"`
	Verdict      Verdict       `json:"verdict"`
	Benchmarks   []Benchmark   `json:"benchmarks"`
	Failures     []Failure     `json:"failures,omitempty"` // benchmark runs that crashed or hung
	Functional   Functional    `json:"functional"`
	Differential Differential  `json:"differential"`
	Sizes        Sizes         `json:"sizes"`
	Env          Env           `json:"env"`
	Method       Method        `json:"method"`
	Incomplete   bool          `json:"incomplete"`      // cancelled or cut short: some phases did not run
	Notes        []string      `json:"notes,omitempty"` // things the reader should know (identical binaries, unpinned, …)
	Started      time.Time     `json:"started"`
	Duration     time.Duration `json:"duration_ns"`
}

// Revision is one side of the comparison.
type Revision struct {
	Ref     string `json:"ref"`               // what the user asked for: "main", "HEAD~1", "" for the working tree
	Commit  string `json:"commit"`            // full SHA; for a dirty working tree the commit it is based on
	Dirty   bool   `json:"dirty"`             // the working tree with uncommitted changes
	Subject string `json:"subject,omitempty"` // first line of the commit message (untrusted text)
}

// Verdict is the gate's decision.
type Verdict struct {
	Status       string   `json:"status"` // StatusPass, StatusFail or StatusError
	ExitCode     int      `json:"exit_code"`
	Reasons      []string `json:"reasons"`                // why it failed (or notable passes), one sentence each
	Acknowledged []string `json:"acknowledged,omitempty"` // slower benchmarks that did not fail the gate, and why
}

// Benchmark compares one benchmark in one unit between base and head.
type Benchmark struct {
	Name         string  `json:"name"` // without the "Benchmark" prefix and the -N suffix, e.g. "Encrypt/des/single"
	Unit         string  `json:"unit"` // "sec/op", "B/s", "B/op", "allocs/op", …
	Base         Summary `json:"base"`
	Head         Summary `json:"head"`
	DeltaPct     float64 `json:"delta_pct"` // (head center / base center - 1) × 100; 0 when not comparable
	P            float64 `json:"p"`         // Mann–Whitney U p-value, before correction
	PHolm        float64 `json:"p_holm"`    // the paired t-test p-value after Holm correction across benchmarks of this unit
	Paired       *Paired `json:"paired,omitempty"`
	NoisePct     float64 `json:"noise_pct"` // noise floor from the A–A and B–B pairs, in percent
	MDEPct       float64 `json:"mde_pct"`   // smallest effect this run could detect, in percent
	Class        string  `json:"class"`
	Note         string  `json:"note,omitempty"` // e.g. "interval ±4.1% wider than threshold 2%", a benchstat warning
	Acknowledged bool    `json:"acknowledged,omitempty"`
}

// Summary is benchstat's summary of one side's samples.
type Summary struct {
	Center float64 `json:"center"` // median
	Lo     float64 `json:"lo"`     // lower end of the confidence interval of the median
	Hi     float64 `json:"hi"`     // upper end
	N      int     `json:"n"`      // number of samples
}

// Paired is the paired A–B–B–A estimate of head/base: a ratio and its 95% interval.
type Paired struct {
	Ratio float64 `json:"ratio"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// Failure is a benchmark run that did not produce a result.
type Failure struct {
	Name    string `json:"name"`
	Side    string `json:"side"` // "base" or "head"
	Round   int    `json:"round"`
	Kind    string `json:"kind"`    // "panic", "timeout", "exit", "no-result"
	Message string `json:"message"` // the panic message or the tail of its output (untrusted text)
}

// Functional is the outcome of running the package's own tests on each side before timing.
type Functional struct {
	Base TestRun `json:"base"`
	Head TestRun `json:"head"`
}

// TestRun is one side's test run.
type TestRun struct {
	Ran    bool   `json:"ran"`
	Passed bool   `json:"passed"`
	Output string `json:"output,omitempty"` // the tail of the output when it failed (untrusted text)
}

// Differential is the outcome of the differential check.
type Differential struct {
	Status  string       `json:"status"`
	Reason  string       `json:"reason,omitempty"`
	Seed    uint64       `json:"seed"`
	Ciphers []DiffCipher `json:"ciphers"`
	Added   []string     `json:"added,omitempty"`   // constructors only head has
	Removed []string     `json:"removed,omitempty"` // constructors only base has
}

// DiffCipher is one constructor's differential result.
type DiffCipher struct {
	Name       string     `json:"name"` // constructor name, e.g. "NewTripleEDE3"
	KeySizes   []int      `json:"key_sizes"`
	Keys       int        `json:"keys"`   // keys per key size
	Blocks     int        `json:"blocks"` // blocks per key and direction
	Methods    []string   `json:"methods,omitempty"`
	Mismatches int        `json:"mismatches"`
	DigestBase string     `json:"digest_base"`
	DigestHead string     `json:"digest_head"`
	Examples   []Mismatch `json:"examples,omitempty"` // the first few mismatches
}

// Mismatch is one differing output block.
type Mismatch struct {
	KeySize   int    `json:"key_size"`
	Key       string `json:"key"` // hex
	Block     int    `json:"block"`
	Direction string `json:"direction"` // "encrypt" or "decrypt"
	Method    string `json:"method"`    // "Encrypt", "EncryptBlocks", …
	Input     string `json:"input"`     // hex
	Base      string `json:"base"`      // hex
	Head      string `json:"head"`      // hex
}

// Sizes is the size diff of the package's symbols.
type Sizes struct {
	Sections []SectionSize `json:"sections"`
	Symbols  []SymbolSize  `json:"symbols"` // the symbols that changed, largest change first
	Error    string        `json:"error,omitempty"`
}

// SectionSize is the bytes the package's symbols occupy in one section.
type SectionSize struct {
	Name string `json:"name"`
	Base int64  `json:"base"`
	Head int64  `json:"head"`
}

// SymbolSize is one symbol that grew, shrank, appeared or vanished.
type SymbolSize struct {
	Name    string `json:"name"`
	Section string `json:"section"`
	Base    int64  `json:"base"`
	Head    int64  `json:"head"`
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
}

// Method records how the numbers were obtained.
type Method struct {
	Rounds       int           `json:"rounds"`
	BenchTime    time.Duration `json:"benchtime_ns"` // target time per run used for calibration
	Threshold    float64       `json:"threshold_pct"`
	Alpha        float64       `json:"alpha"`
	Estimator    string        `json:"estimator"`      // a one-line description of the paired estimator
	NoiseFloor   float64       `json:"noise_pct"`      // median noise floor across benchmarks, percent
	MedianMDE    float64       `json:"median_mde_pct"` // median smallest detectable effect, percent
	TimedPhase   time.Duration `json:"timed_phase_ns"`
	BinariesSame bool          `json:"binaries_identical"`
}
