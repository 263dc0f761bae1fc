package pipeline

import (
	"os/exec"
	"testing"
)

// TestProbeNeighbour runs the probe on this host and logs what it found; what a neighbour does here
// decides no pass or fail (a timing never does), only that the probe measured something.
func TestProbeNeighbour(t *testing.T) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("no valgrind")
	}
	timed, spare, ok := NeighbourCPUs()
	if !ok {
		t.Skipf("no CPU beside the timed one (%d)", timed)
	}
	n, err := ProbeNeighbour(t.Context(), vg, timed, spare)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(n)
	for _, k := range n.Kinds {
		t.Logf("%s: alone %v, beside %v per 1,000 iterations, A–A/B–B noise %.2f%%", k.Name, k.Alone, k.Beside, k.NoisePct)
		if k.Alone <= 0 || k.Beside <= 0 || k.Ratio <= 0 {
			t.Errorf("%s: %+v, want times and a ratio", k.Name, k)
		}
	}
	if len(n.Kinds) != 2 || n.Beside <= 0 {
		t.Errorf("probe %+v, want two loops and a ratio", n)
	}
}
