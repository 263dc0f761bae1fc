package sarif

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// SchemaURI is the OASIS location of the SARIF 2.1.0 schema (errata 01) that the log names in
// $schema.
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SrcRoot is the uriBaseId of every result's file: the repository root, where code scanning has the
// checkout.
const SrcRoot = "%SRCROOT%"

// Rule IDs, one per kind of site.
const (
	RuleBranch = "perfgate/secret-dependent-branch"
	RuleLoad   = "perfgate/secret-dependent-load"
)

// Category is the run's automationDetails.id: code scanning keeps one set of alerts per category.
const Category = "perfgate/constant-time/"

// Options are what the log says about the tool beside the record.
type Options struct {
	Version string // perfgate's version, for tool.driver.version; empty leaves it out
}

var rules = []Rule{
	{
		ID: RuleBranch, Name: "SecretDependentBranch",
		ShortDescription: &Message{Text: "Control flow depends on the secret"},
		FullDescription: &Message{Text: "Traced under valgrind with several secrets of equal length, the package's " +
			"instruction sequence diverges after this instruction: its timing can depend on the key."},
		Help: &Message{Text: "Make the branch's condition independent of the key (a mask, a constant-time " +
			"select) or accept it knowingly. perfgate's constant-time check found it; constant-time: fail-new " +
			"fails a pull request that adds one."},
		DefaultConfiguration: &Configuration{Level: "warning"},
		Properties:           map[string]any{"tags": []string{"security", "constant-time"}, "precision": "high"},
	},
	{
		ID: RuleLoad, Name: "SecretDependentLoad",
		ShortDescription: &Message{Text: "Memory access indexed by the secret"},
		FullDescription: &Message{Text: "Traced under valgrind with several secrets of equal length, this " +
			"instruction touches different 64-byte cache lines: a cache-timing side channel on the key. The " +
			"message names the table it reads, the table's size and the lines one lookup touches."},
		Help: &Message{Text: "Fewer lines per lookup leak less; a table that fits one line, a bitsliced or " +
			"add-rotate-xor design, or reading the whole table every time leaks nothing by cache line. " +
			"constant-time: fail-new fails a pull request that adds such a site or makes a lookup touch more lines."},
		DefaultConfiguration: &Configuration{Level: "warning"},
		Properties:           map[string]any{"tags": []string{"security", "constant-time"}, "precision": "high"},
	},
}

// ConstantTime returns the SARIF log of ct, indented. A check that did not run (unavailable, error,
// skipped) gives a run without results whose invocation says why, so that an upload does not read
// as "no findings".
func ConstantTime(ct *record.ConstantTime, opt Options) ([]byte, error) {
	log := FromConstantTime(ct, opt)
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sarif: %w", err)
	}
	return append(b, '\n'), nil
}

// FromConstantTime builds the log of ct.
func FromConstantTime(ct *record.ConstantTime, opt Options) *Log {
	run := Run{
		Tool:              Tool{Driver: Driver{Name: "perfgate", Version: opt.Version, Rules: rules}},
		AutomationDetails: &AutomationDetails{ID: Category},
		OriginalURIBaseIDs: map[string]ArtifactLocation{
			SrcRoot: {Description: &Message{Text: "the root of the repository under test"}},
		},
		Results: []Result{},
	}
	inv := Invocation{ExecutionSuccessful: ct != nil && ct.Status == record.CTChecked}
	switch {
	case ct == nil:
		inv.ToolExecutionNotifications = []Notification{{Message: Message{Text: "constant-time check off"},
			Level: "note"}}
	case ct.Status != record.CTChecked:
		inv.ToolExecutionNotifications = []Notification{{Message: Message{Text: text.Plain(fmt.Sprintf(
			"constant-time check %s: %s", ct.Status, ct.Reason))}, Level: "error"}}
	default:
		run.Results = results(ct)
		run.Properties = map[string]any{"tool": text.Plain(ct.Tool), "secrets": ct.Secrets, "seed": ct.Seed}
	}
	run.Invocations = []Invocation{inv}
	return &Log{Schema: SchemaURI, Version: "2.1.0", Runs: []Run{run}}
}

// group is one site (an instruction of one side) with every operation in which it depends on the
// secret.
type group struct {
	dir    string // the package's directory relative to the repository root
	kind   gate.CTSiteKind
	absent bool
	site   record.CTSite
	ops    []string
	states []gate.CTSiteState
	// perLookup and basePerLookup are the most lines one lookup touched, over the operations, on
	// the site's side and on base (for a matched head site).
	perLookup, basePerLookup int
	lines                    int
}

// siteID is an instruction of one side.
type siteID struct {
	dir        string
	kind       gate.CTSiteKind
	absent     bool
	fn, inl    string
	off        int
	accessKind string
}

func results(ct *record.ConstantTime) []Result {
	byID := map[siteID]*group{}
	var order []siteID
	for _, d := range gate.SiteDeltas(ct) {
		dir := d.Dir
		if dir == "" {
			dir = ct.Dir
		}
		id := siteID{dir, d.Kind, d.State == gate.CTSiteAbsent, d.Site.Function, d.Site.Inlined, d.Site.Offset,
			d.Site.Kind}
		g := byID[id]
		if g == nil {
			g = &group{dir: dir, kind: d.Kind, absent: id.absent, site: d.Site}
			byID[id] = g
			order = append(order, id)
		}
		op := d.Constructor + " " + d.Operation
		if !slices.Contains(g.ops, op) {
			g.ops = append(g.ops, op)
		}
		g.states = append(g.states, d.State)
		g.perLookup = max(g.perLookup, d.Site.LinesPerLookup)
		g.lines = max(g.lines, d.Site.Lines)
		if d.Base != nil {
			g.basePerLookup = max(g.basePerLookup, d.Base.LinesPerLookup)
		}
	}
	// Fingerprints number the sites of one function, table and kind in order of offset, so that
	// they survive lines moving but not a site's own identity changing.
	sort.SliceStable(order, func(i, j int) bool {
		ga, gb := byID[order[i]], byID[order[j]]
		a, b := ga.site, gb.site
		if ga.dir != gb.dir {
			return ga.dir < gb.dir
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Offset < b.Offset
	})
	nth := map[string]int{}
	out := make([]Result, 0, len(order))
	for _, id := range order {
		g := byID[id]
		r := g.result(g.dir)
		fp := strings.Join([]string{r.RuleID, fmt.Sprint(g.absent), g.dir, g.site.File, g.site.Function, g.site.Inlined,
			g.site.Table, g.site.Kind}, "\x00")
		n := nth[fp]
		nth[fp]++
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d", fp, n)))
		r.PartialFingerprints = map[string]string{"perfgateSite/v1": hex.EncodeToString(sum[:16])}
		out = append(out, r)
	}
	return out
}

// state is the group's state: the most telling of its operations' (new, then grew, shrank,
// unchanged).
func (g *group) state() gate.CTSiteState {
	for _, s := range []gate.CTSiteState{gate.CTSiteNew, gate.CTSiteGrew, gate.CTSiteShrank,
		gate.CTSiteUnchanged, gate.CTSiteAbsent} {
		if slices.Contains(g.states, s) {
			return s
		}
	}
	return gate.CTSiteUnchanged
}

func (g *group) result(dir string) Result {
	st := g.state()
	r := Result{RuleID: RuleBranch, RuleIndex: 0, Level: "warning"}
	if g.kind == gate.CTLoad {
		r.RuleID, r.RuleIndex = RuleLoad, 1
	}
	switch st {
	case gate.CTSiteNew:
		r.BaselineState = "new"
	case gate.CTSiteGrew, gate.CTSiteShrank:
		r.BaselineState = "updated"
	case gate.CTSiteUnchanged:
		r.BaselineState, r.Level = "unchanged", "note"
	case gate.CTSiteAbsent:
		r.BaselineState, r.Level = "absent", "none"
	}
	s := g.site
	loc := Location{LogicalLocations: []LogicalLocation{{Name: text.Plain(s.Function), Kind: "function"}}}
	if s.File != "" {
		pl := &PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: text.Plain(path.Join(dirOrRoot(dir), s.File)),
			URIBaseID: SrcRoot}}
		if s.Line > 0 {
			pl.Region = &Region{StartLine: s.Line}
		}
		loc.PhysicalLocation = pl
	}
	r.Locations = []Location{loc}
	r.Message = Message{Text: g.message(st)}
	props := map[string]any{
		"perfgate/state":      string(st),
		"perfgate/operations": plainAll(g.ops),
		"perfgate/function":   text.Plain(s.Function),
		"perfgate/offset":     s.Offset,
	}
	if s.Inlined != "" {
		props["perfgate/inlined"] = text.Plain(s.Inlined)
	}
	if g.kind == gate.CTLoad {
		props["perfgate/access"] = text.Plain(s.Kind)
		props["perfgate/table"] = text.Plain(s.Table)
		props["perfgate/tableSize"] = s.TableSize
		props["perfgate/linesPerLookup"] = g.perLookup
		props["perfgate/lines"] = g.lines
		if st == gate.CTSiteGrew || st == gate.CTSiteShrank || st == gate.CTSiteUnchanged {
			props["perfgate/baseLinesPerLookup"] = g.basePerLookup
		}
	}
	r.Properties = props
	return r
}

// message says what the site does, in which operations, and how it compares with base, as one
// line of plain text: the names in it come from the repository.
func (g *group) message(st gate.CTSiteState) string {
	s := g.site
	at := fmt.Sprintf("%s+%#x", s.Function, s.Offset)
	if s.Inlined != "" {
		at += " (inlined " + s.Inlined + ")"
	}
	var b strings.Builder
	if g.kind == gate.CTBranch {
		fmt.Fprintf(&b, "Secret-dependent branch at %s", at)
	} else {
		access := s.Kind
		if access == "" {
			access = "load"
		}
		fmt.Fprintf(&b, "Secret-indexed %s at %s reads %s", access, at, table(s))
		fmt.Fprintf(&b, ", %s per lookup (%d in all)", text.Plural(g.perLookup, "64-byte line"), g.lines)
	}
	fmt.Fprintf(&b, ", in %s", opList(g.ops))
	switch st {
	case gate.CTSiteNew:
		b.WriteString(". New: base has no such site.")
	case gate.CTSiteGrew:
		fmt.Fprintf(&b, ". Grew: base's lookup touched %s.", text.Plural(g.basePerLookup, "line"))
	case gate.CTSiteShrank:
		fmt.Fprintf(&b, ". Shrank: base's lookup touched %s.", text.Plural(g.basePerLookup, "line"))
	case gate.CTSiteUnchanged:
		b.WriteString(". Unchanged: base has it too.")
	case gate.CTSiteAbsent:
		b.WriteString(". Absent: base has it, head does not.")
	}
	return text.Plain(b.String())
}

func table(s record.CTSite) string {
	switch {
	case s.Table == "":
		return "memory"
	case s.TableSize > 0:
		return fmt.Sprintf("%s (%d bytes)", s.Table, s.TableSize)
	}
	return s.Table
}

// opList names at most four operations, and how many more.
func opList(ops []string) string {
	if len(ops) <= 4 {
		return strings.Join(ops, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ops[:4], ", "), len(ops)-4)
}

// plainAll is text.Plain of each of ss: names from the repository.
func plainAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = text.Plain(s)
	}
	return out
}

func dirOrRoot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
