package gitsrc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// minShortSHA is the shortest abbreviated object name accepted, as in git.
const minShortSHA = 4

// Resolve resolves a revision to a commit. Accepted forms: a full or abbreviated (at least 4
// digits) SHA, HEAD, a branch, a remote-tracking branch ("origin/main"), a tag (annotated tags are
// peeled to their commit), any fully qualified ref ("refs/heads/x"), each followed by any number of
// "~N", "~", "^N", "^", "^0", "^{}" and "^{commit}" suffixes. As in git, a name that is both a ref
// and an abbreviated SHA means the ref.
func (r *Repo) Resolve(rev string) (*Commit, error) {
	name, suffix := splitRevision(strings.TrimSpace(rev))
	if name == "" {
		return nil, &UnknownRevisionError{Rev: rev, Name: name, Reason: "empty revision"}
	}
	c, err := r.resolveName(rev, name)
	if err != nil {
		return nil, err
	}
	for suffix != "" {
		var op byte
		var n int
		op, n, suffix, err = nextStep(suffix)
		if err != nil {
			return nil, &UnknownRevisionError{Rev: rev, Name: name, Reason: err.Error()}
		}
		switch op {
		case '~':
			for i := 0; i < n; i++ {
				if c, err = r.parent(rev, c, 1); err != nil {
					return nil, err
				}
			}
		case '^':
			if n > 0 {
				if c, err = r.parent(rev, c, n); err != nil {
					return nil, err
				}
			}
		}
	}
	return newCommit(c), nil
}

// splitRevision splits "main~2^2" into "main" and "~2^2". Ref names cannot contain '~' or '^'.
func splitRevision(rev string) (name, suffix string) {
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		return rev[:i], rev[i:]
	}
	return rev, ""
}

// nextStep parses one navigation step off the front of s: "~N" or "~" (N first parents), "^N" or
// "^" (the Nth parent; 0 is the commit itself), "^{}" and "^{commit}" (peel, a no-op on a commit:
// reported as '^' 0).
func nextStep(s string) (op byte, n int, rest string, err error) {
	op, s = s[0], s[1:]
	if op == '^' && strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, 0, "", fmt.Errorf("unterminated %q", "^{")
		}
		switch typ := s[1:end]; typ {
		case "", "commit":
			return '^', 0, s[end+1:], nil
		default:
			return 0, 0, "", fmt.Errorf("^{%s} is not supported: perfgate needs a commit", typ)
		}
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return op, 1, s, nil
	}
	n, err = strconv.Atoi(s[:i])
	if err != nil {
		return 0, 0, "", fmt.Errorf("bad count %q after %c", s[:i], op)
	}
	return op, n, s[i:], nil
}

// resolveName resolves the name part of rev: refs first (in git's order: refs/, refs/tags/,
// refs/heads/, refs/remotes/, refs/remotes/NAME/HEAD), then a full SHA, then an abbreviated SHA.
func (r *Repo) resolveName(rev, name string) (*object.Commit, error) {
	if !strings.Contains(name, "..") && !strings.HasPrefix(name, "/") {
		for _, rule := range plumbing.RefRevParseRules {
			ref, err := storer.ResolveReference(r.st, plumbing.ReferenceName(fmt.Sprintf(rule, name)))
			if err != nil {
				continue
			}
			if ref.Hash().IsZero() {
				break // an unborn branch: HEAD in a repository without commits
			}
			return r.peel(rev, ref.Hash())
		}
	}
	if !isHex(name) || len(name) < minShortSHA || len(name) > 2*len(plumbing.ZeroHash) {
		return nil, r.unknown(rev, name)
	}
	if len(name) == 2*len(plumbing.ZeroHash) {
		h := plumbing.NewHash(name)
		if _, err := r.st.EncodedObject(plumbing.AnyObject, h); err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) && r.Shallow() {
				return nil, r.missing(fmt.Sprintf("resolving %q", rev), h, err)
			}
			return nil, r.unknown(rev, name)
		}
		return r.peel(rev, h)
	}
	var found []*object.Commit
	seen := map[plumbing.Hash]bool{}
	for _, h := range r.hashesWithPrefix(strings.ToLower(name)) {
		c, err := r.peel(rev, h)
		if err != nil || seen[c.Hash] {
			// a tree or blob with the same prefix is not a commit-ish: git disambiguates it away
			// too
			continue
		}
		seen[c.Hash] = true
		found = append(found, c)
	}
	switch len(found) {
	case 0:
		return nil, r.unknown(rev, name)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, c := range found {
		names = append(names, c.Hash.String()[:12])
	}
	return nil, &UnknownRevisionError{Rev: rev, Name: name,
		Reason: fmt.Sprintf("abbreviated SHA %q is ambiguous: it matches commits %s; give more digits", name,
			strings.Join(names, ", "))}
}

// hashesWithPrefix returns the objects whose name starts with prefix (hexadecimal, lower case).
func (r *Repo) hashesWithPrefix(prefix string) []plumbing.Hash {
	even := prefix[:len(prefix)&^1]
	b := plumbing.NewHash(even + strings.Repeat("0", 40-len(even)))
	candidates, _ := r.st.HashesWithPrefix(b[:len(even)/2])
	var out []plumbing.Hash
	for _, h := range candidates {
		if strings.HasPrefix(h.String(), prefix) {
			out = append(out, h)
		}
	}
	return out
}

// peel follows annotated tags (tags of tags too) from h to a commit.
func (r *Repo) peel(rev string, h plumbing.Hash) (*object.Commit, error) {
	for range 16 {
		o, err := r.st.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return nil, r.missing(fmt.Sprintf("resolving %q", rev), h, err)
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return object.DecodeCommit(r.st, o)
		case plumbing.TagObject:
			t, err := object.DecodeTag(r.st, o)
			if err != nil {
				return nil, fmt.Errorf("resolving %q: %w", rev, err)
			}
			h = t.Target
		default:
			return nil, &UnknownRevisionError{Rev: rev, Name: rev, Reason: fmt.Sprintf("%s is a %s, not a commit",
				h.String()[:12], o.Type())}
		}
	}
	return nil, fmt.Errorf("resolving %q: tag chain too long", rev)
}

// parent returns the nth (1-based) parent of c, or a *ShallowError when it lies beyond a shallow
// boundary.
func (r *Repo) parent(rev string, c *object.Commit, n int) (*object.Commit, error) {
	if n > len(c.ParentHashes) {
		reason := fmt.Sprintf("commit %s (%q) has no parent", c.Hash.String()[:12], newCommit(c).Subject)
		if n > 1 && len(c.ParentHashes) > 0 {
			reason = fmt.Sprintf("commit %s has %d parent(s), not %d", c.Hash.String()[:12], len(c.ParentHashes), n)
		}
		return nil, &UnknownRevisionError{Rev: rev, Name: rev, Reason: reason}
	}
	h := c.ParentHashes[n-1]
	p, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, r.missing(fmt.Sprintf("resolving %q", rev), h, err)
	}
	return p, nil
}

// IsFullSHA reports whether s is a commit ID written in full, as git and GitHub write it: 40
// lowercase hexadecimal digits. It is perfgate's one test of a SHA from outside (an event payload,
// an artifact).
func IsFullSHA(s string) bool {
	return len(s) == 2*len(plumbing.ZeroHash) && isHex(s) && strings.ToLower(s) == s
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// unknown describes a name that is no ref and no object, with close ref names as suggestions.
func (r *Repo) unknown(rev, name string) error {
	e := &UnknownRevisionError{Rev: rev, Name: name, Suggestions: nearRefs(name, r.refNames())}
	if r.Shallow() {
		e.Shallow = true
	}
	return e
}

// refNames lists the short names of branches, remote-tracking branches and tags.
func (r *Repo) refNames() []string {
	iter, err := r.st.IterReferences()
	if err != nil {
		return nil
	}
	var names []string
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		n := ref.Name()
		if (n.IsBranch() || n.IsTag() || n.IsRemote()) && !strings.HasSuffix(n.String(), "/HEAD") {
			names = append(names, n.Short())
		}
		return nil
	})
	return names
}
