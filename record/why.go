package record

// Why explains one benchmark that changed (slower or faster, named by a gate reason, or whose
// instruction count moved beyond its threshold, or whose inconclusive time the count could not
// settle): where its instruction count moved, base → head, by source line and function; what the
// compiler decided differently about the functions on those lines; which symbols it reaches changed
// size; and, where the count cannot say, how the CPU profiles of the two sides differ. Everything
// in it that names code (files, functions, compiler messages) comes from the repository: renderers
// escape it.
type Why struct {
	Name    string `json:"name"`              // the benchmark, as in Benchmark.Name
	Package string `json:"package,omitempty"` // as Benchmark.Package
	// Class is the gating unit's class: slower or faster, else inconclusive or unchanged when the
	// count moved or an inconclusive time asked for the explanation.
	Class Class `json:"class"`
	// Unit of Lines and Funcs: "instructions/op" from the count lane; empty when the count did not
	// say.
	Unit string `json:"unit,omitempty"`
	// the benchmark's attributed instructions per op, base
	BaseCount float64 `json:"base_count,omitempty"`
	HeadCount float64 `json:"head_count,omitempty"` // head
	// the lines whose counts moved most, largest first
	Lines []WhyLine `json:"lines,omitempty"`
	// the functions whose counts moved most, largest first
	Funcs []WhyFunc `json:"funcs,omitempty"`
	// Replaced is set when the top function, or the top line's, ran only in base: it names head's
	// code that took its place.
	Replaced *WhyReplaced `json:"replaced,omitempty"`
	// Annotated holds, for the functions whose counts moved most, every line of head's source with
	// both sides' counts: report.html's annotated diff.
	Annotated []WhyAnnotated `json:"annotated,omitempty"`
	// inlining and escape decisions that differ (-gcflags=-m=2)
	Compiler []string `json:"compiler,omitempty"`
	// symbols the benchmark reaches whose size changed
	Symbols []SymbolSize `json:"symbols,omitempty"`
	// CPU profile diff, when the count could not say
	Profile []WhyProfile `json:"profile,omitempty"`
	// ProfileFiles are the CPU profiles' file names in the results directory, readable by go tool
	// pprof.
	ProfileFiles map[Side]string `json:"profile_files,omitempty"`
	// what was left out and why (budget spent, count lost, …)
	Notes []string `json:"notes,omitempty"`
}

// WhyLine is one source line's instructions per op on both sides. Line is head's line number and
// BaseLine base's for the same unchanged line (edits above it move it); a line changed or added in
// head has BaseLine 0, one only base has, Line 0.
type WhyLine struct {
	// as the binaries record it: module path and file, e.g. "example.com/xtea/xtea.go"
	File     string `json:"file"`
	Line     int    `json:"line"`
	BaseLine int    `json:"base_line"`
	// the function whose machine code holds the line's instructions
	Func string `json:"func"`
	// the function inlined there whose line it is, "" when none
	Inlined string  `json:"inlined,omitempty"`
	Base    float64 `json:"base"` // instructions per op
	Head    float64 `json:"head"`
	// (Head − Base) / the benchmark's change; 0 when the benchmark's count did not change
	Share float64 `json:"share"`
}

// WhyFunc is one function's instructions per op on both sides, with what was inlined into it.
type WhyFunc struct {
	Func  string  `json:"func"`
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	Share float64 `json:"share"`
}

// WhyReplaced is code base ran and head no longer does, and the code head runs instead: the
// head-only function whose count ranks first.
type WhyReplaced struct {
	Func string  `json:"func"` // the function only base ran
	Base float64 `json:"base"` // its instructions per op in base
	By   string  `json:"by"`   // the function only head ran that replaced it
	Head float64 `json:"head"` // its instructions per op in head
}

// WhyAnnotated is one function's source with both sides' counts per line.
type WhyAnnotated struct {
	Func  string         `json:"func"`
	File  string         `json:"file"`
	Lines []WhySourceRow `json:"lines"`
}

// WhySourceRow is one line of an annotated function: head's text (base's for a line head removed).
type WhySourceRow struct {
	Line     int     `json:"line"`      // head's line number, 0 for a line only base has
	BaseLine int     `json:"base_line"` // base's, 0 for a line only head has
	Text     string  `json:"text"`
	Base     float64 `json:"base"`
	Head     float64 `json:"head"`
}

// WhyProfile is one function's CPU seconds per op on both sides, from profiles taken after the
// timed rounds.
type WhyProfile struct {
	Func     string  `json:"func"`
	BaseFlat float64 `json:"base_flat"`
	HeadFlat float64 `json:"head_flat"`
	BaseCum  float64 `json:"base_cum"`
	HeadCum  float64 `json:"head_cum"`
}
