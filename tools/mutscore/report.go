package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"
	"time"
)

// tally counts the outcomes of one group of mutants.
type tally struct {
	mutants, killed, caught, missed, failed, noBuild int
}

// survivors is the number of mutants the package tests do not catch: the ones scored.
func (t tally) survivors() int { return t.caught + t.missed + t.failed }

func (t *tally) add(o Outcome) {
	t.mutants++
	switch o {
	case KilledByTests:
		t.killed++
	case Caught:
		t.caught++
	case Missed:
		t.missed++
	case CheckFailed:
		t.failed++
	case NoBuild:
		t.noBuild++
	}
}

// score returns "caught/survivors (pct%)", or "-" with no survivors.
func (t tally) score() string {
	if t.survivors() == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", t.caught, t.survivors(), 100*float64(t.caught)/float64(t.survivors()))
}

// printScore writes the score, the tables per package and per kind, and the mutants the
// differential missed.
func printScore(w io.Writer, results []*Result, verbose bool) {
	var all tally
	byPkg, byKind := map[string]*tally{}, map[Kind]*tally{}
	for _, r := range results {
		all.add(r.Outcome)
		p, k := r.Mutant.Package(), r.Mutant.Kind
		if byPkg[p] == nil {
			byPkg[p] = &tally{}
		}
		if byKind[k] == nil {
			byKind[k] = &tally{}
		}
		byPkg[p].add(r.Outcome)
		byKind[k].add(r.Outcome)
	}
	fmt.Fprintf(w, "mutation score: %s of the %d mutants the package tests miss (%d mutants, %d killed by the tests)\n",
		all.score(), all.survivors(), all.mutants, all.killed)
	var pkgs []string
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\npackage\tmutants\tkilled by tests\tscore")
	for _, p := range pkgs {
		t := byPkg[p]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", p, t.mutants, t.killed, t.score())
	}
	fmt.Fprintln(tw, "\nkind\tmutants\tkilled by tests\tscore")
	for _, k := range kinds() {
		if t := byKind[k]; t != nil {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", k, t.mutants, t.killed, t.score())
		}
	}
	tw.Flush()
	list := func(title string, keep func(*Result) bool) {
		var rs []*Result
		for _, r := range results {
			if keep(r) {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(rs))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range rs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Mutant.Name, r.Mutant.Kind, r.Mutant.Desc)
			if r.Detail != "" && r.Outcome != Missed {
				fmt.Fprintf(tw, "  \t\t→ %s\n", r.Detail)
			}
		}
		tw.Flush()
	}
	list("missed: the package tests pass and the differential finds base and head identical",
		func(r *Result) bool { return r.Outcome == Missed })
	list("not scored as caught: the differential could not compare",
		func(r *Result) bool { return r.Outcome == CheckFailed })
	list("not scored: the mutant does not build (a defect of the table)",
		func(r *Result) bool { return r.Outcome == NoBuild })
	if verbose {
		list("caught by the differential", func(r *Result) bool { return r.Outcome == Caught })
		list("killed by the package tests", func(r *Result) bool { return r.Outcome == KilledByTests })
	}
}

// printList writes every mutant's name, kind and description.
func printList(w io.Writer, ms []Mutant) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.Name, m.Kind, m.File, m.Desc)
	}
	tw.Flush()
}

// jsonRow is one result as -json writes it and -from reads it.
type jsonRow struct {
	Name    string  `json:"name"`
	Package string  `json:"package"`
	Kind    Kind    `json:"kind"`
	Outcome Outcome `json:"outcome"`
	Desc    string  `json:"desc"`
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
}

// writeJSON writes every result to the file name: name, package, kind, outcome, detail and seconds,
// in run order.
func writeJSON(name string, results []*Result) error {
	rows := []jsonRow{}
	for _, r := range results {
		rows = append(rows, jsonRow{r.Mutant.Name, r.Mutant.Package(), r.Mutant.Kind, r.Outcome, r.Mutant.Desc, r.Detail,
			r.Took.Seconds()})
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	return nil
}

// readJSON reads the results that -json wrote to files, keeping those of the mutants ms (in their
// order). A mutant that is not in the table, or that two files hold, is an error; a mutant of ms
// that no file holds is left out.
func readJSON(files []string, ms []Mutant) ([]*Result, error) {
	rows := map[string]jsonRow{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("-from: %w", err)
		}
		var rs []jsonRow
		if err := json.Unmarshal(data, &rs); err != nil {
			return nil, fmt.Errorf("-from %s: %w (hint: give files that -json wrote)", f, err)
		}
		for _, r := range rs {
			if _, dup := rows[r.Name]; dup {
				return nil, fmt.Errorf("-from: mutant %s is in two files", r.Name)
			}
			rows[r.Name] = r
		}
	}
	known := map[string]bool{}
	for _, m := range allMutants() {
		known[m.Name] = true
	}
	for name := range rows {
		if !known[name] {
			return nil, fmt.Errorf("-from: mutant %s is not in the table", name)
		}
	}
	var results []*Result
	for i := range ms {
		if r, ok := rows[ms[i].Name]; ok {
			results = append(results, &Result{Mutant: &ms[i], Outcome: r.Outcome, Detail: r.Detail,
				Took: time.Duration(r.Seconds * float64(time.Second))})
		}
	}
	if len(results) == 0 {
		return nil, errors.New("-from: the files hold none of the mutants chosen")
	}
	return results, nil
}
