package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/perfgate/perfgate/internal/sarif"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Annotation is one line of head's source that the report names: a line where a changed
// benchmark's count moved most ("why it changed") or a site of the constant-time check. A check run
// shows it on that line of the pull request's diff. Its strings are plain text, escaped
// (text.Plain): they come from the repository.
type Annotation struct {
	Path string // relative to the repository root, slash-separated
	Line int    // head's, from 1
	// Failure marks a line behind a failing verdict: a benchmark called slower, or a new or grown
	// constant-time site under fail-new, when the gate failed. The rest are warnings.
	Failure bool
	Title   string
	Message string
}

// Annotations returns the lines of head that r names, in the order the report names them: the top
// WhyLines lines of each changed benchmark's "why it changed" (those in the gated package's
// directory, whose repository path RepoPath knows), then every constant-time site on head with a
// file and line (one per site, as in consttime.sarif). A line only base has is not head's: it is
// left out.
func Annotations(r *record.Result) []Annotation {
	var out []Annotation
	failing := r.Verdict.Status == record.StatusFail
	for _, w := range r.Why {
		for i, l := range w.Lines {
			if i == WhyLines {
				break
			}
			p, ok := RepoPath(r, w, l.File)
			if l.Line <= 0 || !ok {
				continue
			}
			out = append(out, Annotation{
				Path: p, Line: l.Line,
				Failure: failing && w.Class == record.ClassSlower,
				Title:   text.Plain(Clip(w.Name, 120)) + ": " + string(w.Class) + ", why it changed",
				Message: whyLineText(w, l, func(s string) string { return text.Plain(Clip(s, 200)) }),
			})
		}
	}
	ct := r.ConstantTime
	if ct == nil || ct.Status != record.CTChecked {
		return out
	}
	failNew := failing && ct.Mode == record.CTFailNew
	for _, res := range sarif.FromConstantTime(ct, sarif.Options{}).Runs[0].Results {
		if res.BaselineState == "absent" || len(res.Locations) == 0 || res.Locations[0].PhysicalLocation == nil {
			continue
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.Region == nil || pl.Region.StartLine <= 0 || !isRepoPath(pl.ArtifactLocation.URI) {
			continue
		}
		what := "secret-dependent branch"
		if res.RuleID == sarif.RuleLoad {
			what = "secret-indexed load"
		}
		out = append(out, Annotation{
			Path: pl.ArtifactLocation.URI, Line: pl.Region.StartLine,
			Failure: failNew && (res.BaselineState == "new" || res.BaselineState == "updated"),
			Title:   fmt.Sprintf("constant time: %s (%s)", what, res.BaselineState),
			// sarif's text is plain already; clipped here
			Message: text.Plain(Clip(res.Message.Text, 500)),
		})
	}
	return out
}

// isRepoPath reports whether p is a clean relative path inside the repository.
func isRepoPath(p string) bool {
	return p != "" && p == path.Clean(p) && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
}

// RepoPath maps a file as the binaries name it (import path of its package, then its name) to its
// path in the repository, through the gated package's directory:
// "example.com/m/cipher/des/block.go" of the package ./cipher/des is cipher/des/block.go. A file
// outside the gated package, or a pattern of packages, has none.
func RepoPath(r *record.Result, w record.Why, file string) (string, bool) {
	pkg := w.Package
	if pkg == "" {
		pkg = r.Package
	}
	if pkg == "" || strings.ContainsAny(pkg, ", ") || strings.Contains(pkg, "...") || !strings.HasPrefix(pkg, ".") {
		return "", false
	}
	rel := strings.TrimPrefix(path.Clean(pkg), "./")
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	dir, name := path.Dir(file), path.Base(file)
	switch {
	case w.Package == "" && r.ImportPath != "" && dir == r.ImportPath:
		return path.Join(rel, name), true
	case rel != "." && strings.HasSuffix(dir, "/"+rel):
		return path.Join(rel, name), true
	}
	return "", false
}
