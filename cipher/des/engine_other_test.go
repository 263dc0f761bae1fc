//go:build !amd64 || purego

package des

// wideBuilt says whether this build has the 256-lane engine.
const wideBuilt = false

// wideEngines returns none: this build has no 256-lane engine.
func wideEngines() []engine { return nil }
