package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunOutput runs the command on one path with the fewest measurements
// and checks the shape of its output, not the figures (they are timings).
func TestRunOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 40,000 encryptions")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-n", "20000", "-evict", "0", "-run", `^des Encrypt \(table`, "-prep", "cold"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header, a column line and one path, got:\n%s", out.String())
	}
	if !strings.HasPrefix(lines[2], "des Encrypt (table, 1 block)") || !strings.Contains(lines[2], " 20000 ") {
		t.Errorf("path line %q", lines[2])
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"-n", "10"}, {"extra"}, {"-run", "("}, {"-bogus"}, {"-prep", "hot"}, {"-fixed", "x"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if errb.Len() == 0 {
			t.Errorf("%q: nothing on stderr", args)
		}
	}
}
