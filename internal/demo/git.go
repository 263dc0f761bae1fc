package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/childset"
)

// The fixed identity and clock that make the SHAs reproducible. A commit's
// time is epoch plus one hour per step from the root, so adding a variant
// never changes the SHAs of existing commits.
const author = "Minides Demo <demo@example.com>"

var epoch = time.Date(2026, time.January, 5, 9, 0, 0, 0, time.UTC)

// Tag names the annotated tag on the root commit.
const (
	tagName    = "v0.1.0"
	tagMessage = "minides v0.1.0: textbook DES\n"
)

// writeRepo creates the repository in dir and returns its commits: git init, then the whole
// history in one git fast-import stream, then git reset --hard to check main out.
func writeRepo(dir string, commits []commit) (*Repo, error) {
	if err := checkEmptyDir(dir); err != nil {
		return nil, err
	}
	if _, err := gitIn(dir, nil, "-c", "init.defaultBranch=main", "init", "-q"); err != nil {
		return nil, err
	}
	if _, err := gitIn(dir, nil, "config", "init.defaultBranch", "main"); err != nil {
		return nil, err
	}
	stream, err := importStream(commits)
	if err != nil {
		return nil, err
	}
	if _, err := gitIn(dir, stream, "fast-import", "--quiet", "--done"); err != nil {
		return nil, err
	}
	// The checkout writes the blobs as stored, whatever the user's configuration says about line
	// endings, and starts no file system monitor that would outlive it.
	if _, err := gitIn(dir, nil, "-c", "core.autocrlf=false", "-c", "core.fsmonitor=false", "reset", "-q", "--hard",
		"main"); err != nil {
		return nil, err
	}
	out, err := gitIn(dir, nil, "for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	repo := &Repo{Dir: dir, Commits: map[string]string{}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, sha, _ := strings.Cut(line, " ")
		repo.Commits[name] = sha
	}
	delete(repo.Commits, "main") // a branch of its own, not a commit of the history
	for _, c := range commits {
		if repo.Commits[c.name] == "" {
			return nil, fmt.Errorf("commit %s: no branch after git fast-import", c.name)
		}
	}
	return repo, nil
}

// importStream writes the history as a git fast-import stream: each commit on a branch of its
// name with its whole tree, then branch main at mainCommit and the annotated tag on rootCommit.
func importStream(commits []commit) ([]byte, error) {
	var b bytes.Buffer
	data := func(p []byte) {
		fmt.Fprintf(&b, "data %d\n", len(p))
		b.Write(p)
		b.WriteByte('\n')
	}
	trees := map[string]map[string][]byte{} // commit name → full file tree
	marks := map[string]int{}
	for i, c := range commits {
		files := maps.Clone(trees[c.parent])
		if files == nil {
			files = map[string][]byte{}
		}
		for _, p := range c.deletes {
			if _, ok := files[p]; !ok {
				return nil, fmt.Errorf("commit %s (%s): delete %s: no such file in %s", c.name, c.source, p, c.parent)
			}
			delete(files, p)
		}
		for _, f := range c.files {
			files[f.Name] = f.Data
		}
		trees[c.name] = files
		if err := checkTree(files); err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.name, err)
		}
		marks[c.name] = i + 1
		when := fmt.Sprintf("%d +0000", epoch.Add(time.Duration(c.depth)*time.Hour).Unix())
		fmt.Fprintf(&b, "commit refs/heads/%s\nmark :%d\nauthor %s %s\ncommitter %s %s\n", c.name, i+1, author,
			when, author, when)
		data([]byte(c.message + "\n"))
		if c.parent != "" {
			fmt.Fprintf(&b, "from :%d\n", marks[c.parent])
		}
		b.WriteString("deleteall\n")
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(&b, "M 100644 inline %s\n", name)
			data(files[name])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "reset refs/heads/main\nfrom :%d\n\n", marks[mainCommit])
	fmt.Fprintf(&b, "tag %s\nfrom :%d\ntagger %s %d +0000\n", tagName, marks[rootCommit], author, epoch.Unix())
	data([]byte(tagMessage))
	b.WriteString("done\n")
	return b.Bytes(), nil
}

// checkTree refuses a path that fast-import would misread (quoted, or holding a newline) and a
// path that is both a file and a directory.
func checkTree(files map[string][]byte) error {
	for p := range files {
		if p == "" || strings.HasPrefix(p, "\"") || strings.ContainsAny(p, "\n\x00") {
			return fmt.Errorf("bad path %q", p)
		}
		for d := p; strings.Contains(d, "/"); {
			d = d[:strings.LastIndexByte(d, '/')]
			if _, clash := files[d]; clash {
				return fmt.Errorf("%s is both a file and a directory", d)
			}
		}
	}
	return nil
}

// gitIn runs git in dir with stdin and returns its standard output. git sees only the variables
// that say where it is and where the user's configuration is (as gitsrc runs it): no token, and no
// GIT_DIR of a hook that would send the writes to another repository.
func gitIn(dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(context.Background(), "git", args...)
	cmd.Dir = dir
	cmd.Env = childset.GitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	// Through childset, so that proc's sweep of orphans leaves git alone.
	stdout, stderr, err := childset.Run(cmd)
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(stderr)))
	}
	return stdout, nil
}

// checkEmptyDir accepts a directory that does not exist (and creates it)
// or one that is empty.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("directory is not empty (%s, …)", entries[0].Name())
	}
	return nil
}
