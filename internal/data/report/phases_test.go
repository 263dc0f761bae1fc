package report

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/record"
)

func TestPhasesText(t *testing.T) {
	got := phasesText([]record.Phase{{Name: "export", Wall: 20 * time.Millisecond},
		{Name: "build", Wall: 4200 * time.Millisecond}, {Name: "tests", Wall: 90 * time.Millisecond, FromStore: 2},
		{Name: "sizes", Wall: 300 * time.Millisecond}, {Name: "timing", Wall: 61 * time.Second}})
	want := "build 4.2s, tests 100ms with 2 artifacts from the store, timing 1m1s, the rest 300ms"
	if got != want {
		t.Errorf("phasesText:\n got %q\nwant %q", got, want)
	}
	if got := phasesText(nil); got != "" {
		t.Errorf("no phases: %q", got)
	}
}
