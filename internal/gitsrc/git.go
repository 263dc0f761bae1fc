package gitsrc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/childset"
)

// globalArgs come first in every git command line: replacement objects are ignored (the objects
// are read as they are stored), paths are taken literally (no pathspec magic or wildcards), and no
// file system monitor is started.
var globalArgs = []string{"--no-replace-objects", "--literal-pathspecs", "-c", "core.fsmonitor=false"}

// gitError is a git command that failed: its arguments, exit status and the end of its standard
// error.
type gitError struct {
	Args     []string // the arguments after "git" and the global options
	ExitCode int      // -1 when it did not start or was killed
	Stderr   string   // its last lines
	Err      error    // from os/exec, or the context's error when cancelled
}

func (e *gitError) Error() string {
	var b strings.Builder
	b.WriteString("git " + strings.Join(e.Args, " ") + ": ")
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, "exit status %d", e.ExitCode)
	} else {
		b.WriteString(e.Err.Error())
	}
	if e.Stderr != "" {
		b.WriteString(": " + e.Stderr)
	}
	return b.String()
}

func (e *gitError) Unwrap() error { return e.Err }

// stderrLines is how many of a failed command's last lines of standard error gitError keeps.
const stderrLines = 5

// newGitError describes the failure err of git args.
func newGitError(ctx context.Context, args []string, err error, stderr []byte) *gitError {
	e := &gitError{Args: args, ExitCode: -1, Err: err}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		e.ExitCode = ee.ExitCode()
	}
	if ctx.Err() != nil {
		e.ExitCode, e.Err = -1, ctx.Err()
	}
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	if len(lines) > stderrLines {
		lines = lines[len(lines)-stderrLines:]
	}
	e.Stderr = strings.Join(lines, "\n")
	return e
}

// command returns git with the global options and args, run in dir.
func command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append(slices.Clip(globalArgs), args...)...)
	cmd.Dir = dir
	cmd.Env = childset.GitEnv()
	return cmd
}

// runIn runs git args in dir and returns its standard output; a failure is a *gitError.
func runIn(ctx context.Context, dir string, args ...string) ([]byte, error) {
	// Through childset, so that proc's sweep of orphans leaves git alone.
	stdout, stderr, err := childset.Run(command(ctx, dir, args...))
	if err != nil {
		return nil, newGitError(ctx, args, err, stderr)
	}
	return stdout, nil
}

// git runs git args in the repository.
func (r *Repo) git(ctx context.Context, args ...string) ([]byte, error) {
	return runIn(ctx, r.dir, args...)
}

// exitCode returns the exit status of a *gitError, or -1.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// errMissing is an object the repository does not have.
var errMissing = errors.New("object not found")

// objects reads objects from one `git cat-file --batch` process: each request is answered, and
// flushed, before the next is sent.
type objects struct {
	ctx     context.Context
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  bytes.Buffer
	pending int64 // bytes of the last object's content, and its newline, not yet read
	cancel  context.CancelFunc
}

// objects starts a cat-file process; the caller closes it.
func (r *Repo) objects(ctx context.Context) (*objects, error) {
	ctx, cancel := context.WithCancel(ctx)
	o := &objects{ctx: ctx, cancel: cancel}
	o.cmd = command(ctx, r.dir, "cat-file", "--batch")
	o.cmd.Stderr = &o.stderr
	var err error
	if o.in, err = o.cmd.StdinPipe(); err != nil {
		cancel()
		return nil, err
	}
	stdout, err := o.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	o.out = bufio.NewReaderSize(stdout, 64<<10)
	if err := childset.Start(o.cmd); err != nil {
		cancel()
		return nil, newGitError(ctx, o.cmd.Args[len(globalArgs)+1:], err, nil)
	}
	return o, nil
}

// open asks for the object name (a full object name) and returns its type ("commit", "tree",
// "blob", "tag"), its size and a reader of its content, valid until the next call. A missing
// object is errMissing.
func (o *objects) open(name string) (typ string, size int64, content io.Reader, err error) {
	if o.pending > 0 {
		if _, err := o.out.Discard(int(o.pending)); err != nil {
			return "", 0, nil, o.fail(err)
		}
		o.pending = 0
	}
	if strings.ContainsAny(name, " \t\n") {
		return "", 0, nil, fmt.Errorf("bad object name %q", name)
	}
	if _, err := io.WriteString(o.in, name+"\n"); err != nil {
		return "", 0, nil, o.fail(err)
	}
	line, err := o.out.ReadString('\n')
	if err != nil {
		return "", 0, nil, o.fail(err)
	}
	fields := strings.Fields(line)
	if len(fields) == 2 && fields[1] == "missing" {
		return "", 0, nil, fmt.Errorf("%s: %w", name, errMissing)
	}
	if len(fields) != 3 {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected answer %q", line)
	}
	size, err = strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return "", 0, nil, fmt.Errorf("git cat-file: unexpected answer %q", line)
	}
	o.pending = size + 1
	return fields[1], size, &countingReader{o: o, r: io.LimitReader(o.out, size)}, nil
}

// countingReader reads an object's content and keeps objects.pending up to date. Content cut
// short (git died) is io.ErrUnexpectedEOF, never a shorter file.
type countingReader struct {
	o *objects
	r io.Reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.o.pending -= int64(n)
	if err == io.EOF && c.o.pending > 1 { // 1: the newline after the content
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// read returns the type and whole content of the object name.
func (o *objects) read(name string) (typ string, data []byte, err error) {
	typ, size, rd, err := o.open(name)
	if err != nil {
		return "", nil, err
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return "", nil, o.fail(err)
	}
	return typ, data, nil
}

// fail turns an error talking to the process into a *gitError with its standard error.
func (o *objects) fail(err error) error {
	if ctxErr := o.ctx.Err(); ctxErr != nil {
		err = ctxErr
	}
	o.in.Close()
	werr := childset.Wait(o.cmd)
	if werr != nil && o.ctx.Err() == nil {
		err = werr
	}
	return newGitError(o.ctx, []string{"cat-file", "--batch"}, err, o.stderr.Bytes())
}

// Close ends the process and waits for it.
func (o *objects) Close() error {
	o.in.Close()
	o.cancel()
	childset.Wait(o.cmd)
	return nil
}

// rawCommit is a commit object's fields that perfgate reads.
type rawCommit struct {
	tree    string
	parents []string
	commit  *Commit
}

// commit reads the commit sha: errMissing when absent, an error when it is another kind of object.
func (o *objects) commit(sha string) (*rawCommit, error) {
	typ, data, err := o.read(sha)
	if err != nil {
		return nil, err
	}
	if typ != "commit" {
		return nil, fmt.Errorf("%s is a %s, not a commit", sha, typ)
	}
	return parseCommit(sha, data)
}

// parseCommit parses a commit object's headers and message.
func parseCommit(sha string, data []byte) (*rawCommit, error) {
	c := &rawCommit{commit: &Commit{SHA: sha}}
	headers, message, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range strings.Split(string(headers), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.tree = value
		case "parent":
			c.parents = append(c.parents, value)
		case "committer":
			c.commit.Time = signatureTime(value)
		}
	}
	if c.tree == "" {
		return nil, fmt.Errorf("commit %s: no tree", sha)
	}
	subject, _, _ := strings.Cut(strings.TrimLeft(string(message), "\n"), "\n")
	c.commit.Subject = strings.TrimSpace(subject)
	return c, nil
}

// signatureTime returns the time of an author or committer line's value, "Name <email> 1767603600
// +0100", in its own zone; the zero time when it has none.
func signatureTime(sig string) time.Time {
	_, rest, ok := strings.Cut(sig, "> ")
	if !ok {
		return time.Time{}
	}
	secs, zone, _ := strings.Cut(rest, " ")
	ts, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}
	}
	t := time.Unix(ts, 0)
	if len(zone) == 5 && (zone[0] == '+' || zone[0] == '-') {
		h, herr := strconv.Atoi(zone[1:3])
		m, merr := strconv.Atoi(zone[3:5])
		if herr == nil && merr == nil {
			off := (h*60 + m) * 60
			if zone[0] == '-' {
				off = -off
			}
			t = t.In(time.FixedZone("", off))
		}
	}
	return t
}
