package results

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/record"
)

// TestResultsDir writes every file of a results directory through ResultsDir and reads back what
// perfgate reads.
func TestResultsDir(t *testing.T) {
	d := Dir(t.TempDir() + "/res")
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	r := &record.Result{Schema: record.Schema, Package: "./p", Verdict: record.Verdict{Status: record.StatusFail, ExitCode: record.ExitFail, Reasons: []string{"x"}},
		Differential: record.Differential{Status: record.DiffMismatch, Ciphers: []record.Cipher{{Name: "NewCipher",
			Examples: []record.Mismatch{{Direction: "setup", Block: -1, Key: record.Hex{1, 2}, Note: "base accepts the key, head rejects it"}}}}}}
	type info struct{ PR int }
	for _, err := range []error{
		d.WriteResult(r), d.WriteEnv(record.Env{Go: "go1.26"}), d.WriteDifferential(&r.Differential), d.WriteReport("# report\n"),
		d.WriteGitHub(info{PR: 7}), d.WriteLog("build-head.log", []byte("ok\n")), d.WriteReportHTML([]byte("<p>")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.ReadResult(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("result.json round trip (-want +got):\n%s", diff)
	}
	var gi info
	if err := d.ReadGitHub(&gi, 1<<10); err != nil || gi.PR != 7 {
		t.Errorf("ReadGitHub = %+v, %v; want PR 7", gi, err)
	}
	want := []string{FileResult, FileEnv, FileDifferential, FileReport, FileGitHub, FileReportHTML, "build-head.log"}
	if got := d.Existing(append(want, FileBench)...); !cmp.Equal(got, want) {
		t.Errorf("Existing = %q, want %q (no bench.txt)", got, want)
	}

	// An artifact is untrusted: too large, not a regular file, or another schema is an error that
	// says so.
	if _, err := d.ReadResult(10); err == nil || !strings.Contains(err.Error(), "more than the 10 allowed") {
		t.Errorf("oversized result.json: err = %v", err)
	}
	if err := os.Rename(d.Path(FileResult), d.Path("real.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(d.Path("real.json"), d.Path(FileResult)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadResult(0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("symlinked result.json: err = %v", err)
	}
	if err := os.Remove(d.Path(FileResult)); err != nil {
		t.Fatal(err)
	}
	r.Schema = record.Schema + 1
	if err := d.WriteResult(r); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResult(string(d)); err == nil || !strings.Contains(err.Error(), "this perfgate reads schema") {
		t.Errorf("newer schema: err = %v", err)
	}
}
