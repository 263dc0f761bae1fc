package report

import (
	"slices"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// BuildText is one side's build in words: "go1.25.5 GOAMD64=v3 -tags=purego"; "" for the default
// build.
func BuildText(b record.Build) string {
	var w []string
	if b.Toolchain != "" {
		w = append(w, b.Toolchain)
	}
	return strings.Join(append(append(w, b.Env...), b.Flags...), " ")
}

// SameSource reports whether both sides are the same commit, neither a dirty working tree: then
// whatever differs is the build.
func SameSource(r *record.Result) bool {
	return r.Base.Commit != "" && r.Base.Commit == r.Head.Commit && !r.Base.Dirty && !r.Head.Dirty
}

// BuildsDiffer reports whether the sides were built differently (record.Revision.Build).
func BuildsDiffer(r *record.Result) bool { return !r.Base.Build.Equal(r.Head.Build) }

// BuildDiff says what differs between the sides' builds, each side's part only where it differs:
// "base: go1.25.5; head: go1.26.8" or "head: -tags=purego"; "" when they do not differ.
func BuildDiff(r *record.Result) string {
	b, h := r.Base.Build, r.Head.Build
	var parts []string
	for _, side := range []struct {
		name        string
		self, other record.Build
	}{{"base", b, h}, {"head", h, b}} {
		var w []string
		if side.self.Toolchain != side.other.Toolchain && side.self.Toolchain != "" {
			w = append(w, side.self.Toolchain)
		}
		for _, item := range slices.Concat(side.self.Env, side.self.Flags) {
			if !slices.Contains(side.other.Env, item) && !slices.Contains(side.other.Flags, item) {
				w = append(w, item)
			}
		}
		if len(w) > 0 {
			parts = append(parts, side.name+": "+strings.Join(w, " "))
		}
	}
	return strings.Join(parts, "; ")
}

// BuildsLine is the method's line on the sides' builds: each side's build, and whether the source
// is the same; "" when both sides were built alike.
func BuildsLine(r *record.Result, esc func(string) string) string {
	if !BuildsDiffer(r) {
		return ""
	}
	side := func(b record.Build) string {
		if t := BuildText(b); t != "" {
			return esc(Clip(t, 300))
		}
		return "perfgate's toolchain"
	}
	s := "base built with " + side(r.Base.Build) + "; head built with " + side(r.Head.Build)
	if SameSource(r) {
		s += " — " + SameSourceText(r, esc)
	}
	return s
}

// SameSourceText says that only the build differs: "same source; only the build differs (head:
// -tags=purego)"; "" when the sources differ or the builds do not.
func SameSourceText(r *record.Result, esc func(string) string) string {
	if !SameSource(r) || !BuildsDiffer(r) {
		return ""
	}
	return "same source; only the build differs (" + esc(Clip(BuildDiff(r), 300)) + ")"
}
