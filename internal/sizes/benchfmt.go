package sizes

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteBenchfmt writes base and head in Go benchmark format, the content of sizes.txt, so that
// stock benchstat compares sizes as it compares timings:
//
//	benchstat -col perfgate-side -ignore perfgate-commit sizes.txt
//
// (-ignore keeps the two commits from splitting the comparison into two tables.) The file declares
// the unit exact ("Unit B assume=exact"), so benchstat reports each size change without a
// significance test. Each side is a block of configuration lines (perfgate-side: base|head,
// perfgate-commit: SHA, pkg: import path) followed by one result per section,
//
//	BenchmarkSize/section=.text 1 2617 B
//
// with one pkg block per package (the measured package, then its subpackages) so that benchstat
// shows the subpackages in tables of their own. Both sides get the same rows: every package either
// side has, and every section in which that package has bytes on either side (0 on the other), so
// each row compares. Tests and unattributed symbols are not written. A nil side is skipped; a
// commit may be empty.
func WriteBenchfmt(w io.Writer, base, head *Sizes, baseCommit, headCommit string) error {
	for _, v := range []string{baseCommit, headCommit} {
		if strings.ContainsAny(v, "\n\r") {
			return fmt.Errorf("writing sizes: commit %q contains a line break", v)
		}
	}
	rows := Diff(base, head).Packages // the union of both sides, in order
	for _, p := range rows {
		if strings.ContainsAny(p.Path, "\n\r") {
			return fmt.Errorf("writing sizes: package %q contains a line break", p.Path)
		}
		for _, s := range p.Sections {
			if s.Name == "" || strings.ContainsAny(s.Name, " \t\n\r/") {
				return fmt.Errorf("writing sizes: section name %q cannot be part of a benchmark name", s.Name)
			}
		}
	}

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Unit B assume=exact\n")
	for _, side := range []struct {
		name, commit string
		sizes        *Sizes
	}{{"base", baseCommit, base}, {"head", headCommit, head}} {
		if side.sizes == nil {
			continue
		}
		fmt.Fprintf(bw, "\nperfgate-side: %s\n", side.name)
		if side.commit != "" {
			fmt.Fprintf(bw, "perfgate-commit: %s\n", side.commit)
		} else {
			fmt.Fprintf(bw, "perfgate-commit:\n") // an empty value clears base's commit
		}
		for _, p := range rows {
			fmt.Fprintf(bw, "pkg: %s\n", p.Path)
			for _, s := range p.Sections {
				if s.Base == 0 && s.Head == 0 {
					continue
				}
				size := s.Base
				if side.name == "head" {
					size = s.Head
				}
				fmt.Fprintf(bw, "BenchmarkSize/section=%s 1 %d B\n", s.Name, size)
			}
		}
	}
	return bw.Flush()
}
