package differential

import (
	"slices"
	"testing"
)

// TestChildEnv: the go commands go/packages starts get what proc.Command gives every child — no token, and
// GOTOOLCHAIN=local so that a go.mod line never downloads and runs another toolchain — plus the extras.
func TestChildEnv(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret")
	t.Setenv("GOTOOLCHAIN", "go1.99.0+auto")
	env := childEnv([]string{"GOCACHE=/tmp/cache"})
	last := map[string]string{}
	for _, kv := range env {
		for i := range len(kv) {
			if kv[i] == '=' {
				last[kv[:i]] = kv[i+1:] // the go command, like os/exec, takes the last value
				break
			}
		}
	}
	if v, ok := last["GITHUB_TOKEN"]; ok {
		t.Errorf("GITHUB_TOKEN=%q reaches go list", v)
	}
	if last["GOTOOLCHAIN"] != "local" {
		t.Errorf("GOTOOLCHAIN = %q, want local", last["GOTOOLCHAIN"])
	}
	if !slices.Contains(env, "GOCACHE=/tmp/cache") {
		t.Errorf("the extra GOCACHE is missing")
	}
}
