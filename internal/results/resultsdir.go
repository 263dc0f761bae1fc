package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/benchtxt"
	"github.com/perfgate/perfgate/record"
)

// The files of a results directory.
const (
	FileResult       = "result.json"       // the whole Result
	FileEnv          = "env.json"          // the machine: Result.Env
	FileBench        = "bench.txt"         // every benchmark sample in Go benchmark format
	FileSizes        = "sizes.txt"         // section sizes in Go benchmark format
	FileDifferential = "differential.json" // the differential check's report: Result.Differential
	FileReport       = "report.md"         // the Markdown report (the PR comment body)
	FileReportHTML   = "report.html"       // the self-contained HTML report
	// the pull request the Action ran for, read by perfgate comment
	FileGitHub = "github.json"
)

// CPUProfile is the name of a side's CPU profile of the n-th benchmark profiled (from 1), taken
// after the timed rounds to explain a change the instruction count could not: cpu-base-1.pprof,
// cpu-head-1.pprof, …, readable by go tool pprof.
func CPUProfile(side record.Side, n int) string { return fmt.Sprintf("cpu-%s-%d.pprof", side, n) }

// WriteProfile writes a CPU profile under the name CPUProfile gives it.
func (d Dir) WriteProfile(side record.Side, n int, data []byte) error {
	return d.write(CPUProfile(side, n), data)
}

// Dir is a results directory: the evidence of one comparison, written by Run and by the commands,
// read by perfgate report and perfgate comment. It owns the files' names and formats: nothing else
// opens them.
type Dir string

// Path returns the path of the file name in d.
func (d Dir) Path(name string) string { return filepath.Join(string(d), name) }

// Create makes the directory.
func (d Dir) Create() error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return fmt.Errorf("creating results directory: %w", err)
	}
	return nil
}

// WriteResult writes result.json.
func (d Dir) WriteResult(r *record.Result) error { return d.writeJSON(FileResult, r) }

// WriteEnv writes env.json.
func (d Dir) WriteEnv(e record.Env) error { return d.writeJSON(FileEnv, e) }

// WriteDifferential writes differential.json.
func (d Dir) WriteDifferential(diff *record.Differential) error {
	return d.writeJSON(FileDifferential, diff)
}

// WriteGitHub writes github.json from v.
func (d Dir) WriteGitHub(v any) error { return d.writeJSON(FileGitHub, v) }

// WriteReport writes report.md; evidence.Write, which renders it, is its one caller.
func (d Dir) WriteReport(md string) error { return d.write(FileReport, []byte(md)) }

// WriteReportHTML writes report.html.
func (d Dir) WriteReportHTML(html []byte) error { return d.write(FileReportHTML, html) }

// WriteLog writes the log of a tool run, such as build-head.log or test-base.log.
// A log holds the pull request's output: past MaxLog bytes only its first and last bytes are kept.
func (d Dir) WriteLog(name string, data []byte) error {
	return d.write(name, HeadTail(data, MaxLog))
}

// CreateBench creates bench.txt for the samples as they arrive.
func (d Dir) CreateBench() (io.WriteCloser, error) { return os.Create(d.Path(FileBench)) }

// WriteSizes writes sizes.txt with write.
func (d Dir) WriteSizes(write func(io.Writer) error) error {
	f, err := os.Create(d.Path(FileSizes))
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", FileSizes, err)
	}
	return f.Close()
}

// Existing returns the names among names of the files d has.
func (d Dir) Existing(names ...string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Stat(d.Path(n)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// ReadResult reads result.json. A results directory may come from an untrusted artifact: the file
// must be a regular file of at most limit bytes (no limit when limit <= 0), and of this perfgate's
// Schema.
func (d Dir) ReadResult(limit int64) (*record.Result, error) {
	data, err := d.read(FileResult, limit)
	if err != nil {
		return nil, err
	}
	var r record.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(FileResult), err)
	}
	if r.Schema != record.Schema {
		return nil, fmt.Errorf("%s: schema %d, this perfgate reads schema %d", d.Path(FileResult), r.Schema, record.Schema)
	}
	return &r, nil
}

// ReadGitHub reads github.json into v, with ReadResult's checks on the file.
func (d Dir) ReadGitHub(v any, limit int64) error {
	data, err := d.read(FileGitHub, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", FileGitHub, err)
	}
	return nil
}

// ReadBench reads the samples of bench.txt; a directory without bench.txt (a comparison that
// stopped before timing) has none, which is not an error.
func (d Dir) ReadBench() ([]benchtxt.Sample, error) {
	f, err := os.Open(d.Path(FileBench))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, err := benchtxt.ReadBenchTxt(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path(FileBench), err)
	}
	return samples, nil
}

// ReadResult reads dir's result.json (see ResultsDir.ReadResult), without a size limit.
func ReadResult(dir string) (*record.Result, error) { return Dir(dir).ReadResult(0) }

func (d Dir) read(name string, limit int64) ([]byte, error) {
	st, err := os.Lstat(d.Path(name))
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if limit > 0 && st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d allowed", name, st.Size(), limit)
	}
	return os.ReadFile(d.Path(name))
}

func (d Dir) writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return d.write(name, append(data, '\n'))
}

func (d Dir) write(name string, data []byte) error {
	if err := os.WriteFile(d.Path(name), data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// Package returns the directory of one gated package's own files (logs, bench.txt, sizes.txt,
// differential.json) when a comparison gates several: packages/ followed by its path relative to
// the module root.
func (d Dir) Package(rel string) Dir {
	rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
	if rel == "." || rel == "" {
		rel = "_root"
	}
	return Dir(filepath.Join(string(d), "packages", filepath.FromSlash(rel)))
}

// Concat writes the file name of d as the concatenation of the same file of parts, those that have
// it. bench.txt and sizes.txt concatenate: every block carries its own configuration lines (pkg,
// perfgate-commit).
func (d Dir) Concat(name string, parts []Dir) error {
	var b bytes.Buffer
	for _, p := range parts {
		data, err := p.read(name, maxEvidenceFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		b.Write(data)
	}
	return d.write(name, b.Bytes())
}

// maxEvidenceFile bounds a file read from a results directory that may come from an untrusted
// artifact.
const maxEvidenceFile = 256 << 20

// CopyFrom copies the regular files of the results directory src (subdirectories included; symbolic
// links and other special files are left out) into the subdirectory sub of d.
func (d Dir) CopyFrom(src Dir, sub string) error {
	return filepath.WalkDir(string(src), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(string(src), p)
		if err != nil {
			return err
		}
		dst := filepath.Join(string(d), sub, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !e.Type().IsRegular():
			return nil
		}
		data, err := src.read(rel, maxEvidenceFile)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
