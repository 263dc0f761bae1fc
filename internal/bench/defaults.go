package bench

import "time"

// Defaults of a timing run (benchrun.RunConfig), which the configuration's defaults are too.
const (
	DefaultRounds    = 5
	DefaultBenchTime = 100 * time.Millisecond
)
