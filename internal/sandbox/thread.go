package sandbox

import "runtime"

// onLockedThread runs f on a goroutine locked to its OS thread and never unlocks it: when the goroutine returns,
// the runtime terminates the thread, and whatever f did to it (a Landlock domain, no_new_privs, a narrowed CPU
// mask, dropped capabilities) dies with it. Threads the runtime creates meanwhile are not affected: a locked
// thread hands thread creation to the runtime's template thread. Should the goroutine run on the main thread,
// which cannot exit, the runtime parks that thread for good instead; a parked thread runs no Go code again.
func onLockedThread(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- f()
	}()
	return <-done
}
