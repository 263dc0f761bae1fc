package report

import (
	"testing"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

func TestBuildLines(t *testing.T) {
	same := func(base, head record.Build) *record.Result {
		r := &record.Result{Base: record.Revision{Ref: "HEAD", Commit: "abc"}, Head: record.Revision{Ref: "HEAD", Commit: "abc"}}
		r.Base.Build, r.Head.Build = base, head
		return r
	}
	r := same(record.Build{Toolchain: "go1.26.8"}, record.Build{Toolchain: "go1.26.8", Flags: []string{"-tags=purego"}})
	if got, want := SameSourceText(r, text.Plain), "same source; only the build differs (head: -tags=purego)"; got != want {
		t.Errorf("SameSourceText = %q, want %q", got, want)
	}
	if got, want := BuildsLine(r, text.Plain), "base built with go1.26.8; head built with go1.26.8 -tags=purego — "+
		"same source; only the build differs (head: -tags=purego)"; got != want {
		t.Errorf("BuildsLine = %q, want %q", got, want)
	}
	if got, want := Revision(r.Head, text.Plain), "HEAD @ abc, built with go1.26.8 -tags=purego"; got != want {
		t.Errorf("Revision = %q, want %q", got, want)
	}

	r = same(record.Build{Toolchain: "go1.25.5"}, record.Build{Toolchain: "go1.26.8"})
	r.Head.Commit = "def"
	if got, want := BuildDiff(r), "base: go1.25.5; head: go1.26.8"; got != want {
		t.Errorf("BuildDiff = %q, want %q", got, want)
	}
	if got := SameSourceText(r, text.Plain); got != "" {
		t.Errorf("SameSourceText of two commits = %q, want none", got)
	}
	if got, want := BuildsLine(r, text.Plain), "base built with go1.25.5; head built with go1.26.8"; got != want {
		t.Errorf("BuildsLine = %q, want %q", got, want)
	}
	// Built alike: nothing is said.
	if got := BuildsLine(same(record.Build{}, record.Build{}), text.Plain); got != "" {
		t.Errorf("BuildsLine of equal builds = %q", got)
	}
}
