package benchrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// dotsTest is a benchmark that, on head, prints a dot every 10 ms and never returns: it is never
// silent, so only a hard wall-clock limit stops it.
const dotsTest = `package dots

import (
	"fmt"
	"testing"
	"time"
)

var sink int

func BenchmarkDots(b *testing.B) {
	if isHead {
		for {
			fmt.Print(".")
			time.Sleep(10 * time.Millisecond)
		}
	}
	for i := 0; i < b.N; i++ {
		sink += i
	}
}
`

func buildDots(t *testing.T, dir string, head bool) Binary {
	t.Helper()
	files := map[string]string{
		"go.mod":       "module example.com/dots\n\ngo 1.26\n",
		"dots_test.go": dotsTest,
		"side_test.go": "package dots\n\nconst isHead = " + map[bool]string{false: "false", true: "true"}[head] + "\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "dots.test")
	cmd := proc.Command(context.Background(), dir, []string{"GOWORK=off"}, "go", "test", "-c", "-trimpath", "-o", bin, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		t.Fatalf("building fixture: %v", err)
	}
	return Binary{Path: bin, Dir: dir}
}

// TestRunABBAWallClockLimit: a head benchmark that keeps printing is killed at Timeout all the same
// (before issue 12 the limit only fired on silence, and this run never ended), and its failure
// shows what it printed last.
func TestRunABBAWallClockLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs real test binaries")
	}
	dir := t.TempDir()
	base, head := buildDots(t, filepath.Join(dir, "base"), false), buildDots(t, filepath.Join(dir, "head"), true)
	// a backstop: the test must not hang
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run, err := RunABBA(ctx, RunConfig{Base: base, Head: head, Rounds: 2, BenchTime: 5 * time.Millisecond, CPU: -1,
		Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Failures) != 1 {
		t.Fatalf("failures %+v, want one: Dots on head", run.Failures)
	}
	f := run.Failures[0]
	if f.Name != "Dots" || f.Side != record.Head || f.Kind != "timeout" ||
		!strings.HasPrefix(f.Message, "killed after its wall-clock limit of 2s\n") || !strings.HasSuffix(f.Message, "...") {
		t.Errorf("failure %+v, want Dots on head killed by its wall-clock limit, with the dots it printed", f)
	}
}
