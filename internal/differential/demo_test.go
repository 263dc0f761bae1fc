package differential

import (
	"archive/tar"
	"bytes"
	"crypto/cipher"
	"crypto/des"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/internal/testing/gittest"
	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// exportCommit writes the tree of commit sha of the git repository repo into a new directory (git
// archive).
func exportCommit(t *testing.T, repo, sha string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", repo, "archive", "--format=tar", sha)
	cmd.Env = gittest.Environ(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git archive %s: %v", sha, err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(p, b, 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// reference returns the standard library's cipher for a demo constructor: minides implements DES
// and EDE3.
func reference(t *testing.T, ctor string, key []byte) cipher.Block {
	t.Helper()
	var b cipher.Block
	var err error
	switch ctor {
	case "NewCipher":
		b, err = des.NewCipher(key)
	case "NewTripleEDE3":
		b, err = des.NewTripleDESCipher(key)
	default:
		t.Fatalf("no reference for %s", ctor)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDemoHistory runs the check on the fixture history of internal/demo, base against each
// variant.
func TestDemoHistory(t *testing.T) {
	testenv.Long(t) // builds six revisions of the demo module
	repo, err := demo.Materialize(filepath.Join(t.TempDir(), "repo"))
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]string{}
	tree := func(name string) string {
		if trees[name] == "" {
			sha, ok := repo.Commits[name]
			if !ok {
				t.Fatalf("demo has no commit %q", name)
			}
			trees[name] = exportCommit(t, repo.Dir, sha)
		}
		return trees[name]
	}
	compare := func(t *testing.T, base, head string) *Report {
		rep := runCheck(t, tree(base), tree(head), func(c *Config) { c.Pkg = demo.Package })
		if rep.ImportPath != demo.ImportPath {
			t.Errorf("import path %q, want %q", rep.ImportPath, demo.ImportPath)
		}
		if len(rep.Ciphers) != 2 || rep.Ciphers[0].Name != "NewCipher" || rep.Ciphers[1].Name != "NewTripleEDE3" {
			t.Fatalf("ciphers %+v, want NewCipher and NewTripleEDE3", rep.Ciphers)
		}
		return rep
	}
	mismatch := func(t *testing.T, rep *Report) {
		t.Helper()
		if rep.Status != record.DiffMismatch || rep.HeadFailed {
			t.Fatalf("status %q (%s), head failed %v; want mismatch", rep.Status, rep.Reason, rep.HeadFailed)
		}
	}

	t.Run("folded", func(t *testing.T) {
		rep := compare(t, "base", "folded")
		if rep.Status != record.DiffIdentical {
			t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
		}
		for _, c := range rep.Ciphers {
			if c.DigestBase != c.DigestHead || len(c.Methods) != 4 {
				t.Errorf("%s: digests %s %s, methods %v", c.Name, c.DigestBase, c.DigestHead, c.Methods)
			}
		}
		t.Logf("build %v, check %v", rep.BuildTime, rep.CheckTime)
	})
	t.Run("broken", func(t *testing.T) {
		rep := compare(t, "folded", "broken")
		mismatch(t, rep)
		for _, c := range rep.Ciphers {
			if c.Mismatches == 0 || len(c.Examples) == 0 {
				t.Errorf("%s: no mismatches", c.Name)
				continue
			}
			// The first differing block: base must hold the standard's answer, head something else.
			m := c.Examples[0]
			ref := reference(t, c.Name, m.Key)
			want := make([]byte, len(m.Input))
			if m.Direction == "encrypt" {
				ref.Encrypt(want, m.Input)
			} else {
				ref.Decrypt(want, m.Input)
			}
			if !bytes.Equal(m.Base, want) || bytes.Equal(m.Head, want) {
				t.Errorf("%s: first mismatch %+v; standard output %x", c.Name, m, want)
			}
			t.Logf("%s: %d mismatches, first: key %s block %d %s %s", c.Name, c.Mismatches, m.Key, m.Block,
				m.Direction, m.Method)
		}
	})
	t.Run("tail", func(t *testing.T) {
		rep := compare(t, "base", "tail")
		mismatch(t, rep)
		c := rep.Ciphers[0]
		if want := tailMismatches(); c.Mismatches != want || c.InconsistentHead != want {
			t.Errorf("NewCipher: %d mismatches and %d head inconsistencies, want %d", c.Mismatches,
				c.InconsistentHead, want)
		}
		for _, m := range c.Examples {
			if m.Block < 16 || m.Method != "EncryptBlocks" {
				t.Errorf("mismatch at block %d in %s, want a block past 16 in EncryptBlocks", m.Block, m.Method)
			}
		}
	})
	t.Run("parity", func(t *testing.T) {
		rep := compare(t, "base", "parity")
		mismatch(t, rep)
		if rep.Ciphers[0].Mismatches == 0 {
			t.Error("NewCipher: no mismatches")
		}
	})
	t.Run("decrypt", func(t *testing.T) {
		rep := compare(t, "base", "decrypt")
		mismatch(t, rep)
		// DES encryption is untouched. (EDE3 encryption decrypts with K2, so it changes too.)
		c := rep.Ciphers[0]
		if c.Digests[0].Base != c.Digests[0].Head || c.Digests[1].Base == c.Digests[1].Head {
			t.Errorf("%s: digests %+v, want encrypt equal, decrypt different", c.Name, c.Digests)
		}
		for _, m := range c.Examples {
			if m.Direction != "decrypt" {
				t.Errorf("%s: mismatch in direction %s", c.Name, m.Direction)
			}
		}
		if rep.Ciphers[1].Mismatches == 0 {
			t.Error("NewTripleEDE3: no mismatches")
		}
	})
}

// tailMismatches is how many blocks the demo's tail commit gets wrong: every key's block 16 of 17,
// and in place the first inPlaceKeys keys', and the first keys' blocks past the last whole stride
// of 16 in each batch call of more blocks.
func tailMismatches() int {
	want := DefaultKeys + inPlaceKeys
	for _, n := range batchLengths {
		if n > 16 {
			want += lengthKeys * (n % 16)
		}
	}
	return want
}
