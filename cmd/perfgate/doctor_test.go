package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/pipeline"
)

// TestDoctorNeighbour: where valgrind and a second CPU exist, perfgate doctor runs the scheduler's
// probe and says what a valgrind beside the timed CPU does to it, and where perfgate runs the lanes
// therefore. Which answer it gives depends on this host and decides nothing here.
func TestDoctorNeighbour(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("no valgrind: doctor has no neighbour line")
	}
	if _, _, ok := pipeline.NeighbourCPUs(); !ok {
		t.Skip("no second CPU: doctor has no neighbour line")
	}
	var stdout, stderr bytes.Buffer
	runDoctor(t.Context(), []string{"-format", "json"}, &stdout, &stderr)
	var rep doctorReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor's JSON: %v\n%s", err, stdout.Bytes())
	}
	for _, c := range rep.Checks {
		if c.Name != "neighbour" {
			continue
		}
		t.Log(c.Detail)
		if !strings.Contains(c.Detail, "a valgrind beside the timed CPU") ||
			!(strings.Contains(c.Detail, "perfgate runs the lanes beside the timing on this host") ||
				strings.Contains(c.Detail, "perfgate runs the lanes before the timing on this host")) {
			t.Errorf("neighbour check %q, want what the probe moved and where the lanes run", c.Detail)
		}
		return
	}
	t.Errorf("no neighbour check in %+v", rep.Checks)
}
