package samecode

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// desEdits are heads made from this repository's cipher/des: file, old, new.
var desEdits = map[string][3]string{
	"base": {},
	// A doc comment that moves every line of the engine below it.
	"doc": {"block.go", "package des\n", "package des\n\n// A comment of two lines that moves every line below it,\n// as a doc-comment edit does.\n"},
	// A change in the single-block path (cryptBlock, amd64's: the test binaries are built for
	// amd64), no new string. cryptBlock inlines into the Encrypt methods, which so change.
	"crypt": {"block_amd64.go", "\tencryptAMD64(&ks[0]", "\tif len(dst) == 123 {\n\t\tdst = dst[1:]\n\t}\n\tencryptAMD64(&ks[0]"},
	// One entry of the key schedule's table.
	"pc2": {"const.go", "var pc2Box = [8][128]uint64{\n\t{\n\t\t0x0000000000000000,", "var pc2Box = [8][128]uint64{\n\t{\n\t\t0x0000000000000001,"},
}

// desTest builds the test binary of this repository's cipher/des with one of desEdits applied, in a
// copy of the module, with go test -c -trimpath.
func desTest(tb testing.TB, name string) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds test binaries; skipped under -short")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	key := "des-" + name
	if path, ok := builtTests[key]; ok {
		return path
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command on PATH")
	}
	src := tb.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(tb, filepath.Join("../..", f), filepath.Join(src, f))
	}
	err = filepath.WalkDir(filepath.Join("../..", "cipher", "des"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		copyFile(tb, path, filepath.Join(src, rel))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if e := desEdits[name]; e[0] != "" {
		path := filepath.Join(src, "cipher", "des", e[0])
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		if !strings.Contains(string(b), e[1]) {
			tb.Fatalf("edit %s: %q not in %s", name, e[1], e[0])
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), e[1], e[2], 1)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	out := filepath.Join(buildDir, key+".test")
	cmd := proc.Command(context.Background(), src,
		[]string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GOARCH=amd64", "GOOS=linux"},
		goTool, "test", "-c", "-trimpath", "-o", out, "./cipher/des")
	if _, _, err := proc.Run(cmd); err != nil {
		tb.Fatalf("building cipher/des (%s): %v", name, err)
	}
	builtTests[key] = out
	return out
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

var desBenchmarks = []string{"Encrypt", "Decrypt", "KeySetup", "Stdlib"}

// TestDES runs the analysis on the subject package: a doc comment is same for every benchmark; a
// change in the cipher or in a table is changed for every benchmark that reaches it (through the
// test file's table of constructors, which package initialisation fills, that is all of them).
func TestDES(t *testing.T) {
	testenv.Long(t)
	base := desTest(t, "base")
	checkTypeTable(t, "des", base)
	for _, c := range []struct {
		edit string
		same bool
		want string
	}{
		{"doc", true, ""},
		{"crypt", false, "cipher/des.(*Cipher).Encrypt"},
		{"pc2", false, "cipher/des.pc2Box"},
	} {
		rep, err := Analyze(base, desTest(t, c.edit), desBenchmarks)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Identical || rep.Fallback != "" || len(rep.Benchmarks) != len(desBenchmarks) {
			t.Fatalf("%s: %+v", c.edit, rep)
		}
		for n, v := range rep.Benchmarks {
			if v.Same != c.same || !strings.Contains(v.Reason, c.want) {
				t.Errorf("%s: %s: %+v, want same %v naming %q", c.edit, n, v, c.same, c.want)
			}
		}
	}
}

// BenchmarkAnalyzeDES times Analyze on the subject's test binaries, base against a doc-comment head
// (the worst case: every benchmark is walked to the end).
func BenchmarkAnalyzeDES(b *testing.B) {
	base, head := desTest(b, "base"), desTest(b, "doc")
	for b.Loop() {
		rep, err := Analyze(base, head, desBenchmarks)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Benchmarks["Encrypt"].Same {
			b.Fatal(rep.Benchmarks["Encrypt"].Reason)
		}
	}
}
