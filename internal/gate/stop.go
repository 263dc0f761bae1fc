package gate

import (
	"slices"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Stopped is v for a comparison that err stopped early: an error verdict with exit code code (what
// the caller's ExitCode makes of err), with err as its last reasons (one per error that errors.Join
// put together) in place of the reasons Decide gives an unfinished comparison or one that checked
// nothing, which err explains. What was found stands above what could not run: a failing v stays a
// failure (exit 1), with err's reasons beside its own. A nil err leaves v as it is.
func Stopped(v record.Verdict, code int, err error) record.Verdict {
	if err == nil {
		return v
	}
	v.Reasons = slices.DeleteFunc(slices.Clone(v.Reasons), func(s string) bool {
		return s == reasonUnfinished || strings.HasPrefix(s, reasonNothingChecked)
	})
	if v.Status != record.StatusFail {
		v.Status, v.ExitCode = record.StatusError, code
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		v.Reasons = append(v.Reasons, e.Error())
	}
	return v
}
