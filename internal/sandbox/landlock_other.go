//go:build !linux

package sandbox

import (
	"runtime"

	"github.com/perfgate/perfgate/record"
)

// policy is empty where there is no Landlock.
type policy struct{}

func probe(cfg Config) (policy, record.Sandbox) {
	return policy{}, record.Sandbox{Mode: string(cfg.Mode), Unavailable: "Landlock is Linux only (this is " +
		runtime.GOOS + ")"}
}

func (policy) restrictThread(string) error { return nil }

// onMainThread is false: elsewhere nothing is applied to the thread that a later signal could
// reach.
func onMainThread() bool { return false }
