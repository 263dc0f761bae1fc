package record

import "time"

// ConstantTimeMode is the value of the constant-time key: what secret-dependent branches and memory
// accesses do to the gate. It is policy, so it is read from base's configuration.
type ConstantTimeMode string

// Constant-time modes.
const (
	CTReport ConstantTimeMode = "report" // trace and report; never fails the gate
	// fail when head has findings in an operation where base had none
	CTFailNew ConstantTimeMode = "fail-new"
	CTOff     ConstantTimeMode = "off" // do not trace
)

// Valid reports whether m is one of the constant-time modes.
func (m ConstantTimeMode) Valid() bool {
	return m == CTReport || m == CTFailNew || m == CTOff
}

// CTStatus is the outcome of the constant-time check.
type CTStatus string

// Constant-time statuses.
const (
	CTChecked CTStatus = "checked" // both sides were traced; Operations holds the findings
	// CTUnavailable means the check could not run on this machine (valgrind is missing): nothing
	// was checked, and nothing may be counted as constant time.
	CTUnavailable CTStatus = "unavailable"
	// disabled by configuration, or no constructor of a traced family
	CTSkipped CTStatus = "skipped"
	CTError   CTStatus = "error" // perfgate failed to trace although the code is not at fault
)

// ConstantTime is the outcome of the constant-time check of package consttime: for each constructor
// and operation, what its package's own code does differently under different secrets of equal
// length.
type ConstantTime struct {
	Status CTStatus `json:"status"`
	// why, for every status but checked (untrusted text inside)
	Reason string `json:"reason,omitempty"`
	// how the traces were taken, e.g. "valgrind-3.19.0 lackey"
	Tool string `json:"tool,omitempty"`
	// random secrets traced per operation, besides the re-run
	Secrets int `json:"secrets"`
	// BatchSecrets is Secrets for batch methods (EncryptBlocks…), which get BatchBlocks blocks per
	// call.
	BatchSecrets int    `json:"batch_secrets"`
	BatchBlocks  int    `json:"batch_blocks"`
	Seed         uint64 `json:"seed"`              // the seed of the secrets
	Package      string `json:"package,omitempty"` // as Benchmark.Package
	// by constructor, then in the order the driver runs them
	Operations []CTOperation `json:"operations"`
	Duration   time.Duration `json:"duration_ns"` // building and tracing both sides

	// Dir is the package's directory relative to the repository root, slash-separated
	// ("cipher/des"; "." at the root): the sites' files (CTSite.File, a base name) are in it.
	Dir string `json:"dir,omitempty"`
	// Mode is the mode the check ran under: CTFailNew fails the gate on new sites (gate.NewSites),
	// CTReport only reports. Empty in a record made before the field existed.
	Mode ConstantTimeMode `json:"mode,omitempty"`
	// CPU is the CPU time valgrind used tracing, both sides together; Budget the CPU time each
	// side's tracing was allowed (0: none).
	CPU    time.Duration `json:"cpu_ns,omitempty"`
	Budget time.Duration `json:"budget_ns,omitempty"`
	// NotTraced are the constructors discovered but not traced, and why (same code on both sides,
	// or the budget ran out), in the driver's order. Their operations are not in Operations.
	NotTraced []CTNotTraced `json:"not_traced,omitempty"`
}

// CTOperation is one operation of one constructor on both sides.
type CTOperation struct {
	Constructor string `json:"constructor"` // e.g. "NewTripleEDE3"
	Family      Family `json:"family"`
	// Operation is "KeySetup" (the constructor itself), a method of the result ("Encrypt",
	// "Decrypt", "EncryptBlocks", "Seal", "Open", "XORKeyStream", "Sum"), with the input it was
	// given in Input.
	Operation string  `json:"operation"`
	Base      *CTSide `json:"base"` // nil when base lacks the constructor or the operation
	Head      *CTSide `json:"head"`
	// as Benchmark.Package, when several packages are gated
	Package string `json:"package,omitempty"`
	// Dir is the package's directory as ConstantTime.Dir says it, when several packages are gated.
	Dir string `json:"dir,omitempty"`
}

// CTSide is what one side's traces of one operation show.
type CTSide struct {
	KeySize int `json:"key_size"`
	// bytes of plaintext, ciphertext or message per call; 0 for KeySetup
	Input int `json:"input"`
	// traced runs compared: the secrets and the re-run of the first one
	Runs  int    `json:"runs"`
	Error string `json:"error,omitempty"`
	// Instructions and Accesses count the package's own instructions and memory accesses in the
	// first run.
	Instructions int `json:"instructions"`
	Accesses     int `json:"accesses"`
	// Branches are the instructions after which the package's instruction sequence differs between
	// secrets: secret-dependent control flow.
	Branches []CTSite `json:"branches"`
	// Loads are the instructions that touch a different 64-byte line (or, in the receiver object
	// and elsewhere on the heap, a different offset) at the same position of the trace under
	// different secrets: secret-dependent memory access. Stores count too (Kind says which).
	Loads []CTSite `json:"loads"`
	// Unstable counts the sites that differed between two runs of the same secret. They are left
	// out of Branches and Loads: something other than the secret moves them.
	Unstable int `json:"unstable"`
}

// CTSite is one instruction of the package's code: where it is and, for a memory access, what it
// reads.
type CTSite struct {
	// the symbol holding the instruction, without the package path
	Function string `json:"function"`
	Offset   int    `json:"offset"` // from the symbol's start
	Inlined  string `json:"inlined,omitempty"`
	File     string `json:"file,omitempty"` // from DWARF, the base name
	Line     int    `json:"line,omitempty"`
	Kind     string `json:"kind,omitempty"` // memory access: "load", "store" or "modify"
	// Table is the data symbol read ("spBox"), "object" for the value the constructor returned,
	// "heap" or "stack"; TableSize its size in bytes (0 when unknown).
	Table     string `json:"table,omitempty"`
	TableSize int    `json:"table_size,omitempty"`
	// distinct 64-byte lines the site touched over all runs
	Lines int `json:"lines,omitempty"`
	// LinesPerLookup is the most distinct lines one dynamic access of the site (the same lookup in
	// every run) touched: a site in a loop over several tables touches all of them, each lookup
	// only its own table's lines.
	LinesPerLookup int `json:"lines_per_lookup,omitempty"`
	// dynamic accesses (or branch executions) that differed
	Positions int `json:"positions,omitempty"`
}

// Findings reports whether s shows secret-dependent branches or memory accesses.
func (s *CTSide) Findings() bool {
	return s != nil && (len(s.Branches) > 0 || len(s.Loads) > 0)
}

// MaxLines returns the most 64-byte lines one of s's secret-indexed sites touched.
func (s *CTSide) MaxLines() int { return s.maxOfLoads(func(l CTSite) int { return l.Lines }) }

// MaxLinesPerLookup returns the most 64-byte lines one lookup (one dynamic access of a site)
// touched.
func (s *CTSide) MaxLinesPerLookup() int {
	return s.maxOfLoads(func(l CTSite) int { return l.LinesPerLookup })
}

// maxOfLoads is the largest f over s's secret-indexed sites, 0 for none (or a nil s).
func (s *CTSide) maxOfLoads(f func(CTSite) int) int {
	n := 0
	if s == nil {
		return 0
	}
	for _, l := range s.Loads {
		n = max(n, f(l))
	}
	return n
}

// TableBytes returns the bytes of the distinct tables s's secret-indexed sites read.
func (s *CTSide) TableBytes() int {
	if s == nil {
		return 0
	}
	seen := map[string]bool{}
	n := 0
	for _, l := range s.Loads {
		if !seen[l.Table] {
			seen[l.Table] = true
			n += l.TableSize
		}
	}
	return n
}

// Clean reports whether this side of the operation was traced without error and shows no findings:
// the state a constant-time implementation must keep.
func (s *CTSide) Clean() bool {
	return s != nil && s.Error == "" && !s.Findings()
}

// Changed reports whether the operation's findings differ between the sides in their counts, lines
// or tables.
func (o *CTOperation) Changed() bool {
	b, h := o.Base, o.Head
	if b == nil || h == nil {
		return b != h
	}
	return len(b.Branches) != len(h.Branches) || len(b.Loads) != len(h.Loads) ||
		b.MaxLines() != h.MaxLines() || b.MaxLinesPerLookup() != h.MaxLinesPerLookup() ||
		b.TableBytes() != h.TableBytes() || (b.Error == "") != (h.Error == "")
}

// NewlyNotConstantTime returns the operations that fail under CTFailNew: base traced them clean and
// head shows secret-dependent branches or memory accesses. An operation only head has is reported,
// not failed; so is one that base already leaked in. Nothing fails unless the check ran (Status
// CTChecked).
func (ct *ConstantTime) NewlyNotConstantTime() []CTOperation {
	if ct == nil || ct.Status != CTChecked {
		return nil
	}
	var out []CTOperation
	for _, o := range ct.Operations {
		if o.Base.Clean() && o.Head != nil && o.Head.Error == "" && o.Head.Findings() {
			out = append(out, o)
		}
	}
	return out
}
