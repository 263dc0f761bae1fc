package consttime

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/record"
)

// prepareTrace runs Prepare and Trace on base and head of the arx fixture.
func prepareTrace(t *testing.T, base, head string, opt Options) *record.ConstantTime {
	t.Helper()
	p, err := Prepare(context.Background(), Config{Sides: subject.Sides{BaseDir: base, HeadDir: head, Pkg: "./arx",
		Log: testLog{t}}, Secrets: 3}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ct, err := p.Trace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

// TestSameCodeNotTraced: a constructor whose driver function reaches the same machine code on both
// sides is not traced; one whose code changed is; identical trees trace nothing; a budget that has
// run out leaves the rest out and says so.
func TestSameCodeNotTraced(t *testing.T) {
	needValgrind(t)
	if testing.Short() {
		t.Skip("builds three revisions and traces one constructor under valgrind")
	}
	base := arxModule(t, func(s string) string { return s })
	// Only (*Cipher).Decrypt changes: NewStream's code (its constructor, XORKeyStream, round) stays
	// the same.
	head := arxModule(t, func(s string) string {
		return mustReplace(t, s, "x = bits.RotateLeft64(x, -13) ^ c.k[i]", "x = bits.RotateLeft64(x, -11) ^ c.k[i]")
	})

	t.Run("changed", func(t *testing.T) {
		ct := prepareTrace(t, base, head, Options{SameCode: true})
		if ct.Status != record.CTChecked {
			t.Fatalf("status %q (%s)", ct.Status, ct.Reason)
		}
		if diff := cmp.Diff([]string{"NewCipher"}, ct.Traced()); diff != "" {
			t.Errorf("traced (-want +got):\n%s", diff)
		}
		want := []record.CTNotTraced{{Constructor: "NewStream", Reason: record.CTSameCode}}
		if diff := cmp.Diff(want, ct.NotTraced); diff != "" {
			t.Errorf("not traced (-want +got):\n%s", diff)
		}
		if ct.CPU <= 0 {
			t.Errorf("CPU time %v, want the valgrind runs' time", ct.CPU)
		}
		if o := op(t, ct, "NewCipher", "Decrypt"); !o.Base.Clean() || !o.Head.Clean() {
			t.Errorf("Decrypt: %+v / %+v, want clean on both sides", o.Base, o.Head)
		}
	})
	t.Run("identical", func(t *testing.T) {
		ct := prepareTrace(t, base, base, Options{SameCode: true})
		if ct.Status != record.CTChecked || len(ct.Operations) != 0 || ct.CPU != 0 || len(ct.NotTraced) != 2 {
			t.Errorf("status %q (%s), %d operations, CPU %v, not traced %+v; want checked, nothing traced, both "+
				"constructors same code", ct.Status, ct.Reason, len(ct.Operations), ct.CPU, ct.NotTraced)
		}
	})
	t.Run("budget", func(t *testing.T) {
		// The first constructor uses up a budget of a nanosecond of CPU; the second is left out.
		ct := prepareTrace(t, base, head, Options{Budget: time.Nanosecond})
		want := []record.CTNotTraced{{Constructor: "NewStream", Reason: record.CTBudget}}
		if ct.Status != record.CTChecked || !cmp.Equal([]string{"NewCipher"}, ct.Traced()) ||
			!cmp.Equal(want, ct.NotTraced) {
			t.Errorf("status %q (%s), traced %q, not traced %+v; want checked, NewCipher traced, NewStream left "+
				"out for the budget", ct.Status, ct.Reason, ct.Traced(), ct.NotTraced)
		}
	})
}
