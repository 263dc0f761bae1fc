package corpus

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// Pair is one base→head change of the corpus.
type Pair struct {
	Name string // the archive's name without .txtar, e.g. "work-slower10"
	// what kind of change: slower, faster, neutral, layout, inlining, alloc, threshold, real
	Kind  string
	About string // one line on what head changes and why its effect is what it is
	Pkg   string // the package to gate, relative to the repository root, e.g. "./work"
	// where the code came from, for code that is not the project's own; "" otherwise
	Source string
	// what the change should do by construction, for pairs made to order; "" otherwise
	Expect string
	// perfgate compare flags this pair needs (e.g. -tags purego), before the caller's
	Flags  []string
	Demo   []string // two internal/demo commit names (base, head) instead of files; nil otherwise
	Base   []txtar.File
	Head   []txtar.File
	Delete []string // paths head removes from base's tree
	// Changed says where head's change really lives, read from the pair's diff: the functions (and
	// their lines in head) whose code the change rewrote, for scoring what perfgate's explanation
	// names (ScoreAttribution).
	Changed []Changed
	Truth   *Truth // the measured truth; nil when pairs/NAME.truth is missing
}

//go:embed pairs
var pairsFS embed.FS

// Load reads every pair of the corpus, in name order, each with its truth when there is one.
func Load() ([]*Pair, error) {
	return load(pairsFS, "pairs")
}

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

func load(fsys fs.FS, dir string) ([]*Pair, error) {
	paths, err := fs.Glob(fsys, path.Join(dir, "*.txtar"))
	if err != nil {
		return nil, fmt.Errorf("corpus: listing pairs: %w", err)
	}
	if len(paths) == 0 {
		return nil, errors.New("corpus: no pairs (*.txtar)")
	}
	slices.Sort(paths)
	var pairs []*Pair
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		pair, err := ParsePair(strings.TrimSuffix(path.Base(p), ".txtar"), data)
		if err != nil {
			return nil, err
		}
		truth, err := fs.ReadFile(fsys, strings.TrimSuffix(p, ".txtar")+".truth")
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("corpus: %w", err)
		default:
			if pair.Truth, err = ParseTruth(truth); err != nil {
				return nil, fmt.Errorf("corpus: %s.truth: %w", pair.Name, err)
			}
		}
		pairs = append(pairs, pair)
	}
	return pairs, nil
}

// ParsePair parses one pair archive named name.
func ParsePair(name string, data []byte) (*Pair, error) {
	bad := func(format string, args ...any) (*Pair, error) {
		return nil, fmt.Errorf("corpus: pair %s: %s", name, fmt.Sprintf(format, args...))
	}
	if !validName.MatchString(name) {
		return bad("want a name of lowercase letters, digits and '-'")
	}
	p := &Pair{Name: name}
	ar := txtar.Parse(data)
	if err := p.parseHeader(string(ar.Comment)); err != nil {
		return bad("%v", err)
	}
	for _, f := range ar.Files {
		side, rel, _ := strings.Cut(f.Name, "/")
		if side != "base" && side != "head" {
			return bad("file %q: want a path under base/ or head/", f.Name)
		}
		if err := checkPath(rel); err != nil {
			return bad("file %q: %v", f.Name, err)
		}
		if f.Name = rel; side == "base" {
			p.Base = append(p.Base, f)
		} else {
			p.Head = append(p.Head, f)
		}
	}
	switch {
	case p.Kind == "" || p.About == "":
		return bad(`want "kind:" and "about:" lines`)
	case p.Demo != nil && (len(p.Base) > 0 || len(p.Head) > 0):
		return bad("a demo pair has no files")
	case p.Demo == nil && (len(p.Base) == 0 || len(p.Head) == 0 && len(p.Delete) == 0):
		return bad("want files under base/ and a change under head/")
	case p.Pkg == "":
		return bad(`want a "pkg:" line`)
	}
	return p, nil
}

// parseHeader reads the archive's "key: value" lines.
func (p *Pair) parseHeader(header string) error {
	seen := map[string]bool{}
	for i, line := range strings.Split(header, "\n") {
		if line = strings.TrimSpace(line); line == "" || line[0] == '#' {
			continue
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 || strings.TrimSpace(line[colon+1:]) == "" {
			return fmt.Errorf("line %d: want \"key: value\", got %q", i+1, line)
		}
		key, value := strings.TrimSpace(line[:colon]), strings.TrimSpace(line[colon+1:])
		if seen[key] && key != "delete" && key != "changed" {
			return fmt.Errorf("line %d: %q again", i+1, key)
		}
		seen[key] = true
		switch key {
		case "kind":
			p.Kind = value
		case "about":
			p.About = value
		case "pkg":
			p.Pkg = value
		case "source":
			p.Source = value
		case "expect":
			p.Expect = value
		case "flags":
			p.Flags = strings.Fields(value)
		case "demo":
			p.Demo = strings.Fields(value)
			if len(p.Demo) != 2 {
				return fmt.Errorf("line %d: want \"demo: BASE HEAD\", got %q", i+1, line)
			}
		case "changed":
			c, err := parseChanged(value)
			if err != nil {
				return fmt.Errorf("line %d: changed: %v", i+1, err)
			}
			p.Changed = append(p.Changed, c)
		case "delete":
			if err := checkPath(value); err != nil {
				return fmt.Errorf("line %d: delete: %v", i+1, err)
			}
			p.Delete = append(p.Delete, value)
		default:
			return fmt.Errorf("line %d: unknown key %q (want kind, about, pkg, source, expect, flags, demo, "+
				"delete or changed)", i+1, key)
		}
	}
	return nil
}

// checkPath accepts a valid io/fs path (clean, relative, slash-separated) outside .git.
func checkPath(p string) error {
	if !fs.ValidPath(p) || p == "." {
		return errors.New("want a clean relative slash-separated path")
	}
	if first, _, _ := strings.Cut(p, "/"); first == ".git" {
		return errors.New("path inside .git")
	}
	return nil
}
