package htmlreport

import (
	"fmt"

	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// ctView is the constant-time section of report.html: how the check ran, and every operation with
// findings, its sites listed side by side.
type ctView struct {
	Line string // status, tool and secrets, or why it did not run
	Ops  []ctOpView
	More string // how many operations have no findings on either side, as quietOps says it
}

type ctOpView struct {
	Name    string // "NewCipher Encrypt"
	Summary string // the comment's cells: branches, load sites, lines per lookup, per site, tables
	Sites   []ctSiteView
	Cut     int // sites left out
}

type ctSiteView struct {
	Side, Kind, Where, Table, Lines string
}

// ctSitesShown bounds the sites report.html lists per operation and side; result.json has them all.
const ctSitesShown = 40

func newCTView(ct *record.ConstantTime) *ctView {
	if ct == nil {
		return nil
	}
	v := &ctView{Line: string(ct.Status) + " — " + ct.Reason}
	if ct.Status != record.CTChecked {
		return v
	}
	v.Line = fmt.Sprintf("%s · %d secrets per operation (batch methods: %d, %d blocks) · seed %#x%s", ct.Tool,
		ct.Secrets, ct.BatchSecrets, ct.BatchBlocks, ct.Seed, report.CTCost(ct))
	quiet := 0
	for _, o := range ct.Operations {
		if !o.Base.Findings() && !o.Head.Findings() {
			quiet++
			continue
		}
		ov := ctOpView{Name: record.Qualified(o.Package, o.Constructor) + " " + o.Operation,
			Summary: fmt.Sprintf("branches %s · load sites %s · lines per lookup %s · per site %s · tables %s",
				report.CTPair(o, func(s *record.CTSide) int { return len(s.Branches) }),
				report.CTPair(o, func(s *record.CTSide) int { return len(s.Loads) }),
				report.CTPair(o, (*record.CTSide).MaxLinesPerLookup), report.CTPair(o, (*record.CTSide).MaxLines), report.CTBytes(o))}
		for _, sd := range []struct {
			name string
			s    *record.CTSide
		}{{"base", o.Base}, {"head", o.Head}} {
			if sd.s == nil {
				continue
			}
			sites := append(append([]record.CTSite{}, sd.s.Branches...), sd.s.Loads...)
			for i, s := range sites {
				if i == ctSitesShown {
					ov.Cut += len(sites) - i
					break
				}
				ov.Sites = append(ov.Sites, ctSiteHTML(sd.name, s))
			}
		}
		v.Ops = append(v.Ops, ov)
	}
	if quiet > 0 {
		v.More = report.QuietOps(quiet)
	}
	for _, n := range ct.NotTraced {
		v.More += " " + record.Qualified(n.Package, n.Constructor) + ": " + report.CTNotTracedText(n) + "."
	}
	return v
}

func ctSiteHTML(side string, s record.CTSite) ctSiteView {
	where := fmt.Sprintf("%s+%#x", s.Function, s.Offset)
	if s.Inlined != "" {
		where += " (inlined " + s.Inlined + ")"
	}
	if s.File != "" {
		where += fmt.Sprintf(" %s:%d", s.File, s.Line)
	}
	sv := ctSiteView{Side: side, Kind: "branch", Where: where}
	if s.Kind != "" {
		sv.Kind = s.Kind
		sv.Table = s.Table
		if s.TableSize > 0 {
			sv.Table += fmt.Sprintf(" (%s B)", text.Commas(int64(s.TableSize)))
		}
		sv.Lines = fmt.Sprintf("%d per lookup, %d in all", s.LinesPerLookup, s.Lines)
	}
	return sv
}
