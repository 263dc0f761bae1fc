//go:build !linux

package sandbox

import "runtime"

// policy is empty where there is no Landlock.
type policy struct{}

func probe(cfg Config) (policy, Guarantee) {
	return policy{}, Guarantee{Mode: cfg.Mode, Unavailable: "Landlock is Linux only (this is " + runtime.GOOS + ")"}
}

func (policy) restrictThread(string) error { return nil }

// onMainThread is false: elsewhere nothing is applied to the thread that a later signal could reach.
func onMainThread() bool { return false }
