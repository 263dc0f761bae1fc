package config

import (
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// CheckGateUnits returns a *ConfigError when a unit of units is not one that bs report, naming
// those they do. A comparison without any benchmark to compare checks nothing, and a benchmark left
// untimed because its machine code is the same on both sides reports no unit (its one row stands
// for all of them).
func CheckGateUnits(units []string, bs []record.Benchmark) error {
	var reported []string
	for _, b := range bs {
		if b.SameCode && b.Rounds == 0 {
			continue
		}
		if b.Class != record.ClassFailed && !slices.Contains(reported, b.Unit) {
			reported = append(reported, b.Unit)
		}
	}
	if len(reported) == 0 {
		return nil
	}
	sort.SliceStable(reported, func(i, j int) bool { return record.UnitRank(reported[i]) < record.UnitRank(reported[j]) })
	for _, u := range units {
		if !slices.Contains(reported, u) {
			return &Error{Key: "gate-units", Value: u,
				Want: "units the benchmarks report: " + strings.Join(reported, ", ")}
		}
	}
	return nil
}

// ExitCode is the exit code for an error that stopped a comparison: ExitUsage for a configuration
// error (a *ConfigError anywhere in its chain), ExitCannotRun for any other, ExitPass for nil.
func ExitCode(err error) int {
	var ce *Error
	switch {
	case err == nil:
		return record.ExitPass
	case errors.As(err, &ce):
		return record.ExitUsage
	}
	return record.ExitCannotRun
}
