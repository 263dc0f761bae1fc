package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/internal/testing/testmod"
	"github.com/perfgate/perfgate/record"
)

// TestFoundStandsAboveCouldNotRun: -pkg ./... over two packages, where base of the first (./broken)
// does not build, so that its pipeline fails, and head makes the second (./slow) some sixty times
// slower. The broken package does not stop the other; the slowdown is found, and the verdict fails
// (exit 1, not 3) with the error beside it.
func TestFoundStandsAboveCouldNotRun(t *testing.T) {
	testenv.Long(t) // builds and times two packages: about 30 s on a loaded machine
	mix := func(rounds string) string {
		return "package slow\n\n// Mix scrambles x.\nfunc Mix(x uint32) uint32 {\n\tfor i := 0; i < " + rounds +
			"; i++ {\n\t\tx = (x ^ 0x9e37) * 2654435761\n\t}\n\treturn x\n}\n"
	}
	files := func(brokenSrc, rounds string) map[string]string {
		return map[string]string{
			"go.mod":                testmod.GoMod("example.com/prec", "1.26"),
			"broken/broken.go":      brokenSrc,
			"broken/broken_test.go": strings.ReplaceAll(mixTest("broken"), "Mix(", "F("),
			"slow/slow.go":          mix(rounds),
			"slow/slow_test.go":     mixTest("slow"),
		}
	}
	dir := t.TempDir()
	gittest.Init(t, dir)
	when := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	// Base's ./broken does not compile (go list still lists it); head fixes it.
	base := commitAll(t, dir, files("package broken\n\nfunc F(x uint32) uint32 { return \"x\" }\n", "1"), when)
	head := commitAll(t, dir, files("package broken\n\nfunc F(x uint32) uint32 { return x + 1 }\n", "64"),
		when.Add(time.Hour))

	cfg := fastConfig(t, dir, "./...", base, head)
	cfg.Rounds, cfg.BenchTime, cfg.Threshold = 4, config.For(5*time.Millisecond), 5
	res, err := runE2E(t, cfg)
	if err == nil || !strings.Contains(err.Error(), "./broken: ") {
		t.Errorf("Run's error %v, want ./broken's", err)
	}
	if res.Verdict.Status != record.StatusFail || res.Verdict.ExitCode != record.ExitFail {
		t.Fatalf("verdict %s exit %d, want fail exit 1 (reasons %q)", res.Verdict.Status, res.Verdict.ExitCode,
			res.Verdict.Reasons)
	}
	var slower, broken bool
	for _, reason := range res.Verdict.Reasons {
		slower = slower || strings.HasPrefix(reason, "Mix (./slow) is slower")
		broken = broken || strings.HasPrefix(reason, "./broken: ")
	}
	if !slower || !broken {
		t.Errorf("reasons %q: want ./slow's Mix slower and ./broken's error beside it", res.Verdict.Reasons)
	}
	if got := config.ExitCode(err); got != record.ExitCannotRun {
		t.Errorf("the error alone would exit %d, want %d: the verdict, not the error, decides", got, record.ExitCannotRun)
	}
}
