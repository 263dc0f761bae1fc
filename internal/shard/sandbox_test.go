package shard

import (
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestWeakestSandbox: a merge is as guarded as its weakest shard, and unknown when a shard recorded
// nothing.
func TestWeakestSandbox(t *testing.T) {
	guarded := &record.Sandbox{Mode: "required", Guarded: true, ABI: 7}
	off := &record.Sandbox{Mode: "off"}
	for _, c := range []struct {
		name  string
		parts []*record.Sandbox
		want  *record.Sandbox
	}{
		{"all guarded", []*record.Sandbox{guarded, guarded}, guarded},
		{"one off", []*record.Sandbox{guarded, off, guarded}, off},
		{"one unknown", []*record.Sandbox{guarded, nil}, nil},
		{"none", nil, nil},
	} {
		var parts []record.Result
		for _, s := range c.parts {
			parts = append(parts, record.Result{Sandbox: s})
		}
		if got := weakestSandbox(parts); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
