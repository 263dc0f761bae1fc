package gitsrc

import (
	"os"
	"testing"
)

// BenchmarkUncommitted times Repo.Uncommitted (Open included) on the repository that
// GITSRC_BENCH_REPO names, e.g. a clone of a copy of $GOROOT/src (11,478 files):
//
//	GITSRC_BENCH_REPO=/tmp/big go test -run - -bench Uncommitted ./internal/gitsrc
func BenchmarkUncommitted(b *testing.B) {
	dir := os.Getenv("GITSRC_BENCH_REPO")
	if dir == "" {
		b.Skip("GITSRC_BENCH_REPO names no repository")
	}
	for b.Loop() {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		paths, err := r.Uncommitted(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(paths)), "paths")
	}
}
