package gate

import (
	"slices"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Stopped is v for a comparison that err stopped early: an error verdict with exit code code (what the caller's
// ExitCode makes of err), with err as its last reason in place of the reasons Decide gives an unfinished
// comparison or one that checked nothing, which err explains. A nil err leaves v as it is.
func Stopped(v record.Verdict, code int, err error) record.Verdict {
	if err == nil {
		return v
	}
	v.Reasons = slices.DeleteFunc(slices.Clone(v.Reasons), func(s string) bool {
		return s == reasonUnfinished || strings.HasPrefix(s, reasonNothingChecked)
	})
	v.Status, v.ExitCode = record.StatusError, code
	v.Reasons = append(v.Reasons, err.Error())
	return v
}
