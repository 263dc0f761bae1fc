package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// rootCommit is the one commit without a parent; mainCommit is the commit
// branch main points at.
const (
	rootCommit = "base"
	mainCommit = "folded"
)

// commit is one parsed history archive.
type commit struct {
	name    string   // commit name, also its branch name
	parent  string   // parent commit name; empty only for the root
	message string   // commit message, one line
	deletes []string // paths removed from the parent's tree
	files   []txtar.File
	source  string // archive file name, for errors
	depth   int    // distance from the root, set by orderCommits
}

// validName is what a commit name may look like: it becomes a branch name.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// loadHistory parses every *.txtar file in dir of fsys and returns the
// commits parents first.
func loadHistory(fsys fs.FS, dir string) ([]commit, error) {
	paths, err := fs.Glob(fsys, path.Join(dir, "*.txtar"))
	if err != nil {
		return nil, fmt.Errorf("listing history: %w", err)
	}
	if len(paths) == 0 {
		return nil, errors.New("history: no *.txtar archives")
	}
	var commits []commit
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("reading history: %w", err)
		}
		c, err := parseCommit(path.Base(p), data)
		if err != nil {
			return nil, err
		}
		commits = append(commits, c)
	}
	return orderCommits(commits)
}

// parseCommit parses one archive: a header of "key: value" lines (commit,
// parent, message, delete) followed by the files.
func parseCommit(source string, data []byte) (commit, error) {
	c := commit{source: source}
	bad := func(format string, args ...any) (commit, error) {
		return commit{}, fmt.Errorf("history %s: %s", source, fmt.Sprintf(format, args...))
	}
	ar := txtar.Parse(data)
	seen := map[string]bool{}
	for i, line := range strings.Split(string(ar.Comment), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			return bad("line %d: want \"key: value\", got %q", i+1, line)
		}
		if key != "delete" && seen[key] {
			return bad("line %d: duplicate %q", i+1, key)
		}
		seen[key] = true
		switch key {
		case "commit":
			c.name = value
		case "parent":
			c.parent = value
		case "message":
			c.message = value
		case "delete":
			if err := checkPath(value); err != nil {
				return bad("line %d: delete: %v", i+1, err)
			}
			c.deletes = append(c.deletes, value)
		default:
			return bad("line %d: unknown key %q (want commit, parent, message or delete)", i+1, key)
		}
	}
	switch {
	case c.name == "":
		return bad("no \"commit:\" line")
	case !validName.MatchString(c.name) || c.name == "main":
		return bad("commit name %q: want lowercase letters, digits, '.', '_' or '-', not \"main\"", c.name)
	case c.message == "":
		return bad("commit %s: no \"message:\" line", c.name)
	case c.parent == "" && c.name != rootCommit:
		return bad("commit %s: no \"parent:\" line (only %s is the root)", c.name, rootCommit)
	case c.parent != "" && c.name == rootCommit:
		return bad("commit %s is the root and has no parent, got %q", c.name, c.parent)
	case len(ar.Files) == 0 && len(c.deletes) == 0:
		return bad("commit %s changes nothing", c.name)
	}
	names := map[string]bool{}
	for _, f := range ar.Files {
		if err := checkPath(f.Name); err != nil {
			return bad("file %q: %v", f.Name, err)
		}
		if names[f.Name] {
			return bad("file %s appears twice", f.Name)
		}
		if slices.Contains(c.deletes, f.Name) {
			return bad("file %s is both deleted and written", f.Name)
		}
		names[f.Name] = true
	}
	c.files = ar.Files
	return c, nil
}

// checkPath accepts clean, relative, slash-separated paths outside .git.
func checkPath(p string) error {
	switch {
	case p == "" || path.Clean(p) != p || path.IsAbs(p) || p == ".":
		return errors.New("want a clean relative path")
	case p == ".." || strings.HasPrefix(p, "../"):
		return errors.New("path leaves the repository")
	case p == ".git" || strings.HasPrefix(p, ".git/"):
		return errors.New("path inside .git")
	case strings.Contains(p, "\\"):
		return errors.New("want forward slashes")
	}
	return nil
}

// orderCommits sorts commits so that every parent precedes its children,
// siblings in name order. It fails on a duplicate name, a missing parent,
// a second root or a cycle.
func orderCommits(commits []commit) ([]commit, error) {
	byName := map[string]commit{}
	children := map[string][]string{}
	for _, c := range commits {
		if prev, ok := byName[c.name]; ok {
			return nil, fmt.Errorf("history: commit %s defined twice, in %s and %s", c.name, prev.source, c.source)
		}
		byName[c.name] = c
	}
	if _, ok := byName[rootCommit]; !ok {
		return nil, fmt.Errorf("history: no root commit %q", rootCommit)
	}
	for _, c := range commits {
		if c.parent == "" {
			continue
		}
		if _, ok := byName[c.parent]; !ok {
			return nil, fmt.Errorf("history %s: commit %s: parent %q does not exist", c.source, c.name, c.parent)
		}
		children[c.parent] = append(children[c.parent], c.name)
	}
	// Kahn's algorithm from the single root; ready holds commits whose
	// parent is placed, kept sorted by name.
	ordered := make([]commit, 0, len(commits))
	depth := map[string]int{rootCommit: 0}
	ready := []string{rootCommit}
	for len(ready) > 0 {
		name := ready[0]
		ready = ready[1:]
		c := byName[name]
		c.depth = depth[name]
		ordered = append(ordered, c)
		for _, child := range children[name] {
			depth[child] = c.depth + 1
			ready = append(ready, child)
		}
		slices.Sort(ready)
	}
	if len(ordered) != len(commits) {
		var stuck []string
		for _, c := range commits {
			if _, ok := depth[c.name]; !ok {
				stuck = append(stuck, c.name)
			}
		}
		slices.Sort(stuck)
		return nil, fmt.Errorf("history: commits %s form a cycle and never reach %s", strings.Join(stuck, ", "), rootCommit)
	}
	if _, ok := byName[mainCommit]; !ok {
		return nil, fmt.Errorf("history: no commit %q for branch main", mainCommit)
	}
	return ordered, nil
}
