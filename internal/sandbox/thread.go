package sandbox

import "runtime"

// onLockedThread runs f on a goroutine locked to an OS thread other than the main one and never
// unlocks it: when the goroutine returns, the runtime terminates the thread, and whatever f did to
// it (a Landlock domain, no_new_privs, a narrowed CPU mask, dropped capabilities) dies with it.
// Threads the runtime creates meanwhile are not affected: a locked thread hands thread creation to
// the runtime's template thread.
//
// The main thread is avoided: on Linux it stands for the whole process when another process signals
// or traces it, so a child started from it would share its Landlock domain and could stop perfgate.
// A goroutine that lands there starts the next attempt and returns still locked: the main thread
// cannot exit, so the runtime parks it for good, unrestricted, and no goroutine runs on it again.
func onLockedThread(f func() error) error {
	done := make(chan error, 1)
	var attempt func()
	attempt = func() {
		runtime.LockOSThread()
		if onMainThread() {
			go attempt()
			return
		}
		done <- f()
	}
	go attempt()
	return <-done
}
