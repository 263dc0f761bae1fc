package consttime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/elfsym"
	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// TestParseTrace parses lackey output written out by hand: only the package's instructions between
// the markers, with their accesses, are kept.
func TestParseTrace(t *testing.T) {
	b := &binary{begin: 0x100, end: 0x200, own: elfsym.Spans{{Lo: 0x400, Hi: 0x500, Name: "p.f"}}}
	trace := `==1== Lackey
I  00000400,3
 L 00000900,8
I  00000100,1
I  00000300,4
 L 00000910,8
I  00000400,3
 L 00000a00,8
 S 00000b00,4
I  00000404,2
I  00000200,1
I  00000404,2
 L 00000c00,8
`
	runs, log, err := parseTrace(strings.NewReader(trace), b)
	if err != nil {
		t.Fatal(err)
	}
	want := &run{insns: []uint64{0x400, 0x404}, acc: []access{{0, 'L', 0xa00}, {0, 'S', 0xb00}}}
	if len(runs) != 1 || !cmp.Equal(runs[0], want, cmp.AllowUnexported(run{}, access{})) {
		t.Errorf("runs %+v, want [%+v]", runs, want)
	}
	if len(log) != 1 || log[0] != "==1== Lackey" {
		t.Errorf("log %q", log)
	}
}

// synthetic builds a group of runs of one site at pc 0x400 that loads from the static table at
// 0x1000 (1 KiB) at the offsets given per run; runs[0] is the warm-up, the last the re-run of
// runs[1].
func synthetic(offsets ...[]uint64) (*analyzer, int) {
	b := &binary{static: elfsym.Spans{{Lo: 0x1000, Hi: 0x1400, Name: ".rodata"}},
		data:  elfsym.Spans{{Lo: 0x1000, Hi: 0x1400, Name: "p.table"}},
		funcs: elfsym.Spans{{Lo: 0x400, Hi: 0x500, Name: "p.f"}}, pkgSym: "p."}
	g := &group{}
	for i, offs := range offsets {
		r := &run{}
		for _, o := range offs {
			r.insns = append(r.insns, 0x400)
			r.acc = append(r.acc, access{uint32(len(r.insns) - 1), 'L', 0x1000 + o})
		}
		g.runs = append(g.runs, r)
		g.segs = append(g.segs, segLine{Run: i})
	}
	return &analyzer{b: b, g: g}, len(offsets) - 2
}

func TestAnalyzeLoads(t *testing.T) {
	check := func(name string, wantSites, wantLines, wantUnstable int, offsets ...[]uint64) {
		t.Helper()
		a, secrets := synthetic(offsets...)
		s := a.side(secrets)
		if len(s.Loads) != wantSites || s.Unstable != wantUnstable || len(s.Branches) != 0 {
			t.Errorf("%s: loads %+v, unstable %d; want %d sites, %d unstable", name, s.Loads, s.Unstable, wantSites,
				wantUnstable)
			return
		}
		if wantSites > 0 && (s.Loads[0].Lines != wantLines || s.Loads[0].Table != "table") {
			t.Errorf("%s: site %+v, want %d lines of table", name, s.Loads[0], wantLines)
		}
	}
	same := []uint64{0, 8, 16}
	check("fixed offsets", 0, 0, 0, same, same, same, same, same)
	// The same line at another offset is the same line.
	check("within one line", 0, 0, 0, same, same, []uint64{8, 16, 24}, same, same)
	check("secret-indexed", 1, 3, 0, same, same, []uint64{64, 8, 16}, []uint64{0, 8, 128}, same)
	// What also moves on the re-run of the same secret is not the secret's doing.
	check("unstable", 0, 0, 1, same, same, []uint64{64, 8, 16}, same, []uint64{64, 8, 16})
}

func TestAnalyzeBranches(t *testing.T) {
	a, secrets := synthetic([]uint64{0}, []uint64{0}, []uint64{0}, []uint64{0})
	// Run 2 takes the other way after 0x400: 0x400 → 0x410 instead of 0x400 → 0x404.
	a.g.runs[1].insns = []uint64{0x400, 0x404, 0x408}
	a.g.runs[2].insns = []uint64{0x400, 0x410, 0x408}
	a.g.runs[3].insns = []uint64{0x400, 0x404, 0x408}
	s := a.side(secrets)
	if len(s.Branches) != 1 || s.Branches[0].Function != "f" || s.Branches[0].Offset != 0 {
		t.Fatalf("branches %+v, want one at f+0", s.Branches)
	}
	if len(s.Loads) != 0 {
		t.Errorf("loads %+v, want none", s.Loads)
	}
}

// TestNoValgrind: without valgrind the check says so, and nothing counts as checked.
func TestNoValgrind(t *testing.T) {
	dir := t.TempDir()
	ct, err := Check(context.Background(), Config{Sides: subject.Sides{BaseDir: dir, HeadDir: dir},
		Valgrind: filepath.Join(dir, "valgrind")})
	if err != nil {
		t.Fatal(err)
	}
	if ct.Status != record.CTUnavailable || !strings.Contains(ct.Reason, "apt-get install -y valgrind") {
		t.Errorf("status %q (%s), want unavailable with the install hint", ct.Status, ct.Reason)
	}
}
