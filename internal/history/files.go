package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
	"golang.org/x/perf/benchfmt"
)

// maxFile bounds a file read from a results directory, which may come from an untrusted artifact.
const maxFile = 64 << 20

// RecordFiles returns the commit a results directory measured (its head side) and the files that
// record it: result.json and env.json as they are, bench.txt and sizes.txt cut to the head side's
// samples, so that the records of several commits concatenate into one file stock benchstat
// compares by commit:
//
//	benchstat -col perfgate-commit -ignore perfgate-side,perfgate-round,perfgate-slot bench.txt
//
// A directory whose head is a working tree with uncommitted changes has no commit to record it
// under.
func RecordFiles(dir string) (commit string, files map[string][]byte, err error) {
	d := results.Dir(dir)
	res, err := d.ReadResult(maxFile)
	if err != nil {
		return "", nil, err
	}
	if res.Head.Dirty {
		return "", nil, fmt.Errorf("%s: head is a working tree with uncommitted changes, not a commit", dir)
	}
	if res.Head.Commit == "" {
		return "", nil, fmt.Errorf("%s: head has no commit", dir)
	}
	files = map[string][]byte{}
	if files[results.FileResult], err = readLimited(d.Path(results.FileResult)); err != nil {
		return "", nil, err
	}
	if data, err := readLimited(d.Path(results.FileEnv)); err == nil {
		files[results.FileEnv] = data
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	for _, name := range []string{results.FileBench, results.FileSizes} {
		data, err := readLimited(d.Path(name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		var b bytes.Buffer
		if err := HeadSide(bytes.NewReader(data), &b); err != nil {
			return "", nil, fmt.Errorf("%s: %w", d.Path(name), err)
		}
		if b.Len() > 0 {
			files[name] = b.Bytes()
		}
	}
	return res.Head.Commit, files, nil
}

func readLimited(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxFile {
		return nil, fmt.Errorf("%s is not a regular file of at most %d bytes", path, maxFile)
	}
	return os.ReadFile(path)
}

// HeadSide copies the results of a benchmark-format file whose perfgate-side is head (with their
// configuration lines and unit metadata) from r to w.
func HeadSide(r io.Reader, w io.Writer) error {
	rd := benchfmt.NewReader(r, "bench.txt")
	bw := benchfmt.NewWriter(w)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return rec
		case *benchfmt.UnitMetadata:
			if err := bw.Write(rec); err != nil {
				return err
			}
		case *benchfmt.Result:
			if rec.GetConfig(benchtxt.KeySide) != string(record.Head) {
				continue
			}
			if err := bw.Write(rec); err != nil {
				return err
			}
		}
	}
	return rd.Err()
}

// ParseEntry reads a record's result.json.
func ParseEntry(commit string, resultJSON []byte) (Entry, error) {
	var r record.Result
	if err := json.Unmarshal(resultJSON, &r); err != nil {
		return Entry{}, fmt.Errorf("record of %s: %w", Short(commit), err)
	}
	if r.Schema != record.Schema {
		return Entry{}, fmt.Errorf("record of %s: schema %d, this perfgate reads schema %d", Short(commit), r.Schema,
			record.Schema)
	}
	return Entry{Commit: commit, Subject: r.Head.Subject, Result: &r}, nil
}

// LoadDirs reads the results directories directly inside root (those with a result.json) as
// entries, one per head commit; when two measured the same commit the one that started later wins.
// Directories whose head is a dirty working tree are skipped.
func LoadDirs(root string) ([]Entry, error) {
	des, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	byCommit := map[string]Entry{}
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		d := results.Dir(filepath.Join(root, de.Name()))
		if len(d.Existing(results.FileResult)) == 0 {
			continue
		}
		r, err := d.ReadResult(maxFile)
		if err != nil {
			return nil, err
		}
		if r.Head.Dirty || r.Head.Commit == "" {
			continue
		}
		if old, ok := byCommit[r.Head.Commit]; ok && old.Result.Started.After(r.Started) {
			continue
		}
		byCommit[r.Head.Commit] = Entry{Commit: r.Head.Commit, Subject: r.Head.Subject, Result: r}
	}
	out := make([]Entry, 0, len(byCommit))
	for _, c := range slices.Sorted(keys(byCommit)) {
		out = append(out, byCommit[c])
	}
	return out, nil
}

// ByTime is a path for entries that have no repository to order them: by the time their runs
// started.
func ByTime(entries []Entry) []Commit {
	s := slices.Clone(entries)
	slices.SortStableFunc(s, func(a, b Entry) int { return a.Result.Started.Compare(b.Result.Started) })
	out := make([]Commit, len(s))
	for i, e := range s {
		out[i] = Commit{SHA: e.Commit, Subject: e.Subject}
	}
	return out
}

func keys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
