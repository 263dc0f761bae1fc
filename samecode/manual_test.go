package samecode

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestManual(t *testing.T) {
	b, h := os.Getenv("SAMECODE_BASE"), os.Getenv("SAMECODE_HEAD")
	if b == "" {
		t.Skip()
	}
	start := time.Now()
	rep, err := Analyze(b, h, strings.Fields(os.Getenv("SAMECODE_BENCH")))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v identical=%v fallback=%q units=%d common=%d", time.Since(start), rep.Identical, rep.Fallback, rep.Units, rep.Common)
	for n, v := range rep.Benchmarks {
		t.Logf("%s: %+v", n, v)
	}
}
