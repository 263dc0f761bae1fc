package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/changepoint"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/net/html"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

func sha(i int) string { return fmt.Sprintf("c0ffee%02d%032x", i, i) }

// fixture is a path of 30 commits; Encrypt/des/single becomes 8% slower at commit 18, KeySetup
// stays flat, and an evil-named benchmark appears from commit 10 on. Commit 5 was not recorded; one
// record is an orphan.
func fixture() ([]Entry, []Commit) {
	rng := rand.New(rand.NewPCG(1, 2))
	var entries []Entry
	var path []Commit
	for i := range 30 {
		c := Commit{SHA: sha(i), Subject: fmt.Sprintf("commit %d", i)}
		path = append(path, c)
		if i == 5 {
			continue
		}
		enc := 150e-9 * (1 + 0.01*rng.NormFloat64())
		if i >= 18 {
			enc *= 1.08
		}
		r := &record.Result{Schema: record.Schema, Package: "./cipher/des", Head: record.Revision{Commit: c.SHA},
			Started: time.Unix(int64(1000+i), 0)}
		add := func(name string, v float64) {
			r.Benchmarks = append(r.Benchmarks, record.Benchmark{Name: name, Unit: "sec/op",
				Head: record.Summary{Center: v, Lo: v * 0.99, Hi: v * 1.01, N: 10}, Class: record.ClassUnchanged})
		}
		add("Encrypt/des/single", enc)
		add("KeySetup", 80e-9*(1+0.01*rng.NormFloat64()))
		if i >= 10 {
			add("Evil<script>alert(1)</script>|```x", 20e-9*(1+0.01*rng.NormFloat64()))
		}
		r.Sizes.Sections = []record.SectionSize{{Name: ".text", Base: 2000, Head: 2000}}
		entries = append(entries, Entry{Commit: c.SHA, Subject: "from the record", Result: r})
	}
	orphan := &record.Result{Schema: record.Schema, Package: "./cipher/des", Head: record.Revision{Commit: sha(99)}}
	entries = append(entries, Entry{Commit: sha(99), Subject: "rewritten away", Result: orphan})
	return entries, path
}

func TestBuildDetect(t *testing.T) {
	entries, path := fixture()
	h := Build(entries, path)
	h.Detect(changepoint.Config{})
	if len(h.Path) != 29 || h.Unrecorded != 1 || len(h.Orphans) != 1 || h.Orphans[0].Commit != sha(99) {
		t.Fatalf("path %d, unrecorded %d, orphans %v", len(h.Path), h.Unrecorded, h.Orphans)
	}
	if h.Path[0].Subject != "commit 0" {
		t.Errorf("subject %q, want the path's", h.Path[0].Subject)
	}
	var labels []string
	for _, s := range h.Series {
		labels = append(labels, s.Label())
	}
	want := []string{
		"./cipher/des Encrypt/des/single (sec/op)", "./cipher/des Evil<script>alert(1)</script>|```x (sec/op)",
		"./cipher/des KeySetup (sec/op)", "./cipher/des Size/section=.text (B)"}
	if diff := cmp.Diff(want, labels); diff != "" {
		t.Fatalf("series (-want +got):\n%s", diff)
	}
	changes := h.Changes(false)
	if len(changes) != 1 {
		t.Fatalf("changes: %+v", changes)
	}
	c := changes[0]
	if c.Series.Name != "Encrypt/des/single" || c.Commit != sha(18) || c.Good != sha(16) || c.Bad != sha(19) {
		t.Errorf("change at %s, range %s..%s, want at %s, range %s..%s", Short(c.Commit), Short(c.Good), Short(c.Bad),
			Short(sha(18)), Short(sha(16)), Short(sha(19)))
	}
	if c.ChangePoint.Change < 0.06 || c.ChangePoint.Change > 0.10 || c.New {
		t.Errorf("change %+.3f, new %v; want about +0.08 and not new", c.ChangePoint.Change, c.New)
	}
	want2 := []string{"bisect", "-pkg", "./cipher/des", "-bench", "^Encrypt$/^des$/^single$", sha(16), sha(19)}
	if diff := cmp.Diff(want2, c.BisectArgs()); diff != "" {
		t.Errorf("bisect args (-want +got):\n%s", diff)
	}
}

// TestNewChangePoint: a change shows as new with the commit that makes it significant, and not
// after.
func TestNewChangePoint(t *testing.T) {
	var entries []Entry
	var path []Commit
	for i := range 16 {
		v := 100e-9 * (1 + 0.002*float64(i%3))
		if i >= 12 {
			v *= 1.2
		}
		r := &record.Result{Schema: record.Schema, Package: ".", Head: record.Revision{Commit: sha(i)},
			Benchmarks: []record.Benchmark{{Name: "Sum", Unit: "sec/op", Head: record.Summary{Center: v, N: 10}}}}
		entries = append(entries, Entry{Commit: sha(i), Result: r})
		path = append(path, Commit{SHA: sha(i)})
	}
	var newAt []int
	for n := 12; n <= 16; n++ {
		h := Build(entries[:n], path[:n])
		h.Detect(changepoint.Config{})
		if len(h.Changes(true)) > 0 {
			newAt = append(newAt, n)
		}
	}
	// 12 values, then 4 at the new level: the first length at which the permutation test can tell
	// (with 3 after it, 1 arrangement in C(15,3) = 455 is as extreme: p ≈ 0.004, borderline at
	// alpha 0.005).
	if diff := cmp.Diff([]int{16}, newAt); diff != "" {
		t.Errorf("new change point with the newest commit among the first n (-want +got):\n%s", diff)
	}
}

func TestRenderings(t *testing.T) {
	entries, path := fixture()
	h := Build(entries, path)
	h.Detect(changepoint.Config{})

	var text bytes.Buffer
	if err := h.Text(&text, false); err != nil {
		t.Fatal(err)
	}
	cmd := "perfgate bisect -pkg ./cipher/des -bench '^Encrypt$/^des$/^single$' " + sha(16) + " " + sha(19)
	for _, want := range []string{"29 recorded commits", "Encrypt/des/single (sec/op)", Short(sha(18)), cmd,
		"Orphaned records", "rewritten away"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}

	var md bytes.Buffer
	if err := h.Markdown(&md, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "```sh\n"+cmd+"\n```") {
		t.Errorf("markdown lacks the command in a code block:\n%s", md.String())
	}
	// The evil name is in a series but not a change point: make it one to check the escaping.
	for _, s := range h.Series {
		if strings.HasPrefix(s.Name, "Evil") {
			s.Changes = []Change{{ChangePoint: changepoint.ChangePoint{Index: 3}, Commit: sha(13), Good: sha(11), Bad: sha(14)}}
		}
	}
	md.Reset()
	if err := h.Markdown(&md, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| ./cipher/des Evil&lt;script&gt;") {
		t.Errorf("markdown does not escape the name in its table:\n%s", md.String())
	}
	// the command holds a backtick run: a longer fence
	if !strings.Contains(md.String(), "````sh\n") {
		t.Errorf("markdown's fence is not longer than the command's backticks:\n%s", md.String())
	}

	page, err := h.HTML("perfgate history")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var scripts, svgs, csp int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "link", "img", "iframe":
				scripts++
			case "svg":
				svgs++
			case "meta":
				for _, a := range n.Attr {
					if a.Key == "content" && strings.Contains(a.Val, "default-src 'none'") {
						csp++
					}
				}
			}
			for _, a := range n.Attr {
				if (a.Key == "href" && !strings.HasPrefix(a.Val, "#")) || a.Key == "src" {
					scripts++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != 0 || csp != 1 || svgs != len(h.Series) {
		t.Errorf("page: %d loading elements or external URLs, %d CSP, %d charts for %d series", scripts, csp, svgs,
			len(h.Series))
	}
	if !bytes.Contains(page, []byte("Evil&lt;script&gt;")) {
		t.Errorf("page does not show the evil name escaped")
	}

	reports := h.Bencher()
	if len(reports) != 29 {
		t.Fatalf("%d Bencher reports, want one per recorded commit on the path (29)", len(reports))
	}
	var bmf map[string]map[string]BencherMetric
	if err := json.Unmarshal(reports[sha(20)], &bmf); err != nil {
		t.Fatal(err)
	}
	m, ok := bmf["./cipher/des:Encrypt/des/single"]["latency"]
	if !ok || m.Value < 150 || m.Value > 180 || m.LowerValue == nil || *m.LowerValue >= m.Value {
		t.Errorf("Bencher report of commit 20: %s", reports[sha(20)])
	}
	if _, ok := bmf["./cipher/des:Size/section=.text"]["bytes"]; !ok {
		t.Errorf("Bencher report lacks the size: %s", reports[sha(20)])
	}
}

func TestShellQuote(t *testing.T) {
	got := ShellQuote([]string{"bisect", "-bench", "^A$/^b c$", "it's", ""})
	if want := `bisect -bench '^A$/^b c$' 'it'\''s' ''`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

const benchTxt = `goos: linux
pkg: example.com/des
perfgate-commit: 1111111111111111111111111111111111111111
perfgate-side: base
perfgate-round: 0
perfgate-slot: 0
BenchmarkEncrypt 1000 150 ns/op
perfgate-commit: 2222222222222222222222222222222222222222
perfgate-side: head
perfgate-slot: 1
BenchmarkEncrypt 1000 160 ns/op
perfgate-slot: 2
BenchmarkEncrypt 1000 161 ns/op
perfgate-commit: 1111111111111111111111111111111111111111
perfgate-side: base
perfgate-slot: 3
BenchmarkEncrypt 1000 151 ns/op
`

func TestRecordFiles(t *testing.T) {
	dir := t.TempDir()
	d := results.Dir(dir)
	head := strings.Repeat("2", 40)
	if err := d.WriteResult(&record.Result{Schema: record.Schema, Package: ".", Head: record.Revision{Commit: head}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Path(results.FileBench), []byte(benchTxt), 0o644); err != nil {
		t.Fatal(err)
	}
	commit, files, err := RecordFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if commit != head {
		t.Errorf("commit %s", commit)
	}
	got := string(files[results.FileBench])
	if strings.Contains(got, "perfgate-side: base") || strings.Count(got, "BenchmarkEncrypt") != 2 ||
		!strings.Contains(got, "pkg: example.com/des") || !strings.Contains(got, "perfgate-commit: "+head) {
		t.Errorf("head side of bench.txt:\n%s", got)
	}
	if _, ok := files[results.FileSizes]; ok {
		t.Errorf("sizes.txt recorded though there is none")
	}
	// A dirty working tree has no commit to record under.
	if err := d.WriteResult(&record.Result{Schema: record.Schema, Head: record.Revision{Commit: head, Dirty: true}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := RecordFiles(dir); err == nil || !strings.Contains(err.Error(), "uncommitted") {
		t.Errorf("dirty head: err = %v", err)
	}
}

func TestLoadDirs(t *testing.T) {
	root := t.TempDir()
	write := func(name, commit string, started int64) {
		d := results.Dir(filepath.Join(root, name))
		if err := d.Create(); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteResult(&record.Result{Schema: record.Schema, Head: record.Revision{Commit: commit},
			Started: time.Unix(started, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	write("b", sha(2), 20)
	write("a", sha(1), 10)
	write("a-again", sha(1), 30) // a later run of the same commit wins
	if err := os.Mkdir(filepath.Join(root, "not-results"), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := LoadDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ByTime(entries) {
		got = append(got, c.SHA)
	}
	if diff := cmp.Diff([]string{sha(2), sha(1)}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRecordsCompareByCommit: the bench.txt of two records, concatenated, is what benchstat
// compares by commit: with the projections of `benchstat -col perfgate-commit -ignore
// perfgate-side,perfgate-round,perfgate-slot` the columns are the two commits and nothing else
// differs between the results (benchstat's residue is one key).
func TestRecordsCompareByCommit(t *testing.T) {
	var all bytes.Buffer
	for _, commit := range []string{strings.Repeat("2", 40), strings.Repeat("3", 40)} {
		dir := t.TempDir()
		d := results.Dir(dir)
		if err := d.WriteResult(&record.Result{Schema: record.Schema, Head: record.Revision{Commit: commit}}); err != nil {
			t.Fatal(err)
		}
		txt := strings.ReplaceAll(benchTxt, strings.Repeat("2", 40), commit)
		if err := os.WriteFile(d.Path(results.FileBench), []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
		_, files, err := RecordFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(files[results.FileBench])
	}
	var parser benchproc.ProjectionParser
	if _, err := parser.Parse("perfgate-side,perfgate-round,perfgate-slot", nil); err != nil {
		t.Fatal(err)
	}
	col, err := parser.Parse("perfgate-commit", nil)
	if err != nil {
		t.Fatal(err)
	}
	row, _, err := parser.ParseWithUnit(".fullname", nil)
	if err != nil {
		t.Fatal(err)
	}
	residue := parser.Residue()
	cols, rows, residues := map[benchproc.Key]int{}, map[benchproc.Key]bool{}, map[benchproc.Key]bool{}
	rd := benchfmt.NewReader(&all, "records")
	for rd.Scan() {
		r, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("%v", rd.Result())
		}
		cols[col.Project(r)]++
		rows[row.Project(r)] = true
		residues[residue.Project(r)] = true
	}
	if len(cols) != 2 || len(rows) != 1 || len(residues) != 1 {
		t.Errorf("%d columns (%v), %d rows, %d residue keys; want 2, 1, 1", len(cols), cols, len(rows), len(residues))
	}
	for k, n := range cols {
		if n != 2 {
			t.Errorf("column %v has %d results, want the 2 of head", k, n)
		}
	}
}
