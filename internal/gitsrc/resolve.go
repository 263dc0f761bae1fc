package gitsrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	o, err := r.objects(context.Background())
	if err != nil {
		return nil, fmt.Errorf("resolving %q: %w", rev, err)
	}
	defer o.Close()
	c, err := r.resolveName(o, rev, name)
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
				if c, err = r.parent(o, rev, c, 1); err != nil {
					return nil, err
				}
			}
		case '^':
			if n > 0 {
				if c, err = r.parent(o, rev, c, n); err != nil {
					return nil, err
				}
			}
		}
	}
	return c.commit, nil
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

// revParseRules are the places a name is looked for, in git's order (refs.c's
// ref_rev_parse_rules).
var revParseRules = []string{"%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s",
	"refs/remotes/%s/HEAD"}

// resolveName resolves the name part of rev: refs first (in git's order: refs/, refs/tags/,
// refs/heads/, refs/remotes/, refs/remotes/NAME/HEAD), then a full SHA, then an abbreviated SHA.
func (r *Repo) resolveName(o *objects, rev, name string) (*rawCommit, error) {
	if !strings.Contains(name, "..") && !strings.HasPrefix(name, "/") {
		refs, err := r.refs(o.ctx)
		if err != nil {
			return nil, fmt.Errorf("resolving %q: %w", rev, err)
		}
		for _, rule := range revParseRules {
			full := fmt.Sprintf(rule, name)
			if ref, ok := refs[full]; ok {
				return r.peel(o, rev, ref.sha)
			}
			if full == name && isPseudoRef(name) {
				// HEAD, FETCH_HEAD, …: files of the git directory that for-each-ref does not list.
				out, err := r.git(o.ctx, "rev-parse", "--verify", "-q", name)
				if sha := strings.TrimSpace(string(out)); err == nil && IsFullSHA(sha) {
					return r.peel(o, rev, sha)
				}
			}
		}
	}
	if !isHex(name) || len(name) < minShortSHA || len(name) > shaLen {
		return nil, r.unknown(rev, name)
	}
	if len(name) == shaLen {
		c, err := r.peel(o, rev, strings.ToLower(name))
		if errors.Is(err, errMissing) {
			return nil, r.unknown(rev, name)
		}
		return c, err
	}
	var found []*rawCommit
	seen := map[string]bool{}
	for _, h := range r.hashesWithPrefix(o.ctx, strings.ToLower(name)) {
		c, err := r.peel(o, rev, h)
		if err != nil || seen[c.commit.SHA] {
			// a tree or blob with the same prefix is not a commit-ish: git disambiguates it away
			// too
			continue
		}
		seen[c.commit.SHA] = true
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
		names = append(names, c.commit.SHA[:12])
	}
	return nil, &UnknownRevisionError{Rev: rev, Name: name,
		Reason: fmt.Sprintf("abbreviated SHA %q is ambiguous: it matches commits %s; give more digits", name,
			strings.Join(names, ", "))}
}

// shaLen is the length of a SHA-1 object name in hexadecimal digits.
const shaLen = 40

// isPseudoRef reports whether name is one of the git directory's own refs: HEAD, FETCH_HEAD,
// ORIG_HEAD and the like.
func isPseudoRef(name string) bool {
	if name != "HEAD" && !strings.HasSuffix(name, "_HEAD") {
		return false
	}
	return strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == ""
}

// ref is one ref of the repository: the object it names and, for a symbolic ref, the ref it
// points to.
type ref struct{ sha, target string }

// refs lists the repository's refs by full name (refs/heads/main, refs/remotes/origin/HEAD, …).
func (r *Repo) refs(ctx context.Context) (map[string]ref, error) {
	out, err := r.git(ctx, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(symref)")
	if err != nil {
		return nil, fmt.Errorf("listing refs: %w", err)
	}
	refs := map[string]ref{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 3 || !IsFullSHA(f[1]) {
			continue
		}
		refs[f[0]] = ref{sha: f[1], target: f[2]}
	}
	return refs, nil
}

// shortRef returns the name a user writes for a full ref name: main for refs/heads/main,
// origin/main for refs/remotes/origin/main, v1.0 for refs/tags/v1.0.
func shortRef(full string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/", "refs/remotes/", "refs/"} {
		if s, ok := strings.CutPrefix(full, p); ok {
			return s
		}
	}
	return full
}

// hashesWithPrefix returns the objects whose name starts with prefix (hexadecimal, lower case, at
// least minShortSHA digits).
func (r *Repo) hashesWithPrefix(ctx context.Context, prefix string) []string {
	out, err := r.git(ctx, "rev-parse", "--disambiguate="+prefix)
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// peel follows annotated tags (tags of tags too) from sha to a commit.
func (r *Repo) peel(o *objects, rev, sha string) (*rawCommit, error) {
	h := sha
	for range 16 {
		typ, data, err := o.read(h)
		if err != nil {
			return nil, r.missing(fmt.Sprintf("resolving %q", rev), h, err)
		}
		switch typ {
		case "commit":
			return parseCommit(h, data)
		case "tag":
			target := tagTarget(data)
			if target == "" {
				return nil, fmt.Errorf("resolving %q: tag %s names no object", rev, h)
			}
			h = target
		default:
			return nil, &UnknownRevisionError{Rev: rev, Name: rev, Reason: fmt.Sprintf("%s is a %s, not a commit",
				h[:12], typ)}
		}
	}
	return nil, fmt.Errorf("resolving %q: tag chain too long", rev)
}

// tagTarget returns the object an annotated tag names: its "object" header.
func tagTarget(data []byte) string {
	headers, _, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range strings.Split(string(headers), "\n") {
		if sha, ok := strings.CutPrefix(line, "object "); ok && IsFullSHA(sha) {
			return sha
		}
	}
	return ""
}

// parent returns the nth (1-based) parent of c, or a *ShallowError when it lies beyond a shallow
// boundary.
func (r *Repo) parent(o *objects, rev string, c *rawCommit, n int) (*rawCommit, error) {
	if n > len(c.parents) {
		reason := fmt.Sprintf("commit %s (%q) has no parent", c.commit.Short(), c.commit.Subject)
		if n > 1 && len(c.parents) > 0 {
			reason = fmt.Sprintf("commit %s has %d parent(s), not %d", c.commit.Short(), len(c.parents), n)
		}
		return nil, &UnknownRevisionError{Rev: rev, Name: rev, Reason: reason}
	}
	h := c.parents[n-1]
	p, err := o.commit(h)
	if err != nil {
		return nil, r.missing(fmt.Sprintf("resolving %q", rev), h, err)
	}
	return p, nil
}

// IsFullSHA reports whether s is a commit ID written in full, as git and GitHub write it: 40
// lowercase hexadecimal digits. It is perfgate's one test of a SHA from outside (an event payload,
// an artifact).
func IsFullSHA(s string) bool {
	return len(s) == shaLen && isHex(s) && strings.ToLower(s) == s
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
	refs, err := r.refs(context.Background())
	if err != nil {
		return nil
	}
	var names []string
	for full := range refs {
		if (strings.HasPrefix(full, "refs/heads/") || strings.HasPrefix(full, "refs/tags/") ||
			strings.HasPrefix(full, "refs/remotes/")) && !strings.HasSuffix(full, "/HEAD") {
			names = append(names, shortRef(full))
		}
	}
	return names
}
