package differential

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
	"github.com/perfgate/perfgate/record"
)

// desOracles are the standard library's references for the repository's DES package
// (cipher/des/cipher.go).
var desOracles = map[string]string{
	"NewCipher":     "crypto/des.NewCipher",
	"NewTripleEDE3": "crypto/des.NewTripleDESCipher",
}

// TestOracleAgrees checks the repository's cipher/des against crypto/des, DES and EDE3, through the
// same vectors.
func TestOracleAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the repository's cipher/des")
	}
	cfg := selfConfig(t)
	cfg.Oracles, cfg.Log = desOracles, testLog{t}
	cfg.Constructors = []string{"NewCipher", "NewTripleEDE3", "NewTripleEDE2"}
	rep, err := Check(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != record.DiffIdentical {
		t.Fatalf("status %q (%s), want identical", rep.Status, rep.Reason)
	}
	for _, c := range rep.Ciphers {
		want := desOracles[c.Name]
		if c.Oracle != want || c.OracleMismatches != 0 {
			t.Errorf("%s: oracle %q with %d mismatches, want %q with none", c.Name, c.Oracle, c.OracleMismatches,
				want)
		}
	}
}

// TestOracleCatchesSharedBug gives base and head the same bug, in a copy of cipher/des: base
// against head sees nothing, the oracle sees it in both directions.
func TestOracleCatchesSharedBug(t *testing.T) {
	testenv.Long(t) // builds two harnesses
	root := moduleRoot(t)
	files := map[string]string{"go.mod": "module example.com/des\n\ngo 1.21\n"}
	srcs, _ := filepath.Glob(filepath.Join(root, "cipher", "des", "*.go"))
	for _, p := range srcs {
		if strings.HasSuffix(p, "_test.go") || filepath.Base(p) == "gen.go" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files["des/"+filepath.Base(p)] = string(b)
	}
	if len(files) < 3 {
		t.Skip("cipher/des is not in this tree")
	}
	// The key schedule goes wrong for DES keys whose first byte is 0x5a (in EDE3, any of the
	// three).
	const anchor = "\tx := binary.LittleEndian.Uint64(key)\n"
	if !strings.Contains(files["des/key.go"], anchor) {
		t.Fatal("cipher/des/key.go changed: no place for the bug")
	}
	bug := anchor + "\tif key[0] == 0x5a {\n\t\tx ^= 1 << 9\n\t}\n"
	files["des/key.go"] = strings.Replace(files["des/key.go"], anchor, bug, 1)
	mod := writeModule(t, files)
	rep := runCheck(t, mod, mod, func(c *Config) {
		c.Pkg, c.Oracles, c.Constructors = "./des", desOracles, []string{"NewCipher", "NewTripleEDE3"}
		// The copy has the Go files only: the pure-Go engines, without the amd64 assembly and
		// x/sys/cpu.
		c.Tags = []string{"purego"}
	})
	if rep.Status != record.DiffMismatch || rep.HeadFailed ||
		!strings.Contains(rep.Reason, "head disagrees with its oracle") {
		t.Fatalf("status %q (%s), want a mismatch against the oracle", rep.Status, rep.Reason)
	}
	for _, c := range rep.Ciphers {
		if c.Mismatches != 0 || c.DigestBase != c.DigestHead || c.OracleMismatches == 0 {
			t.Errorf("%s: %d mismatches, %d against the oracle; want 0 and some", c.Name, c.Mismatches,
				c.OracleMismatches)
		}
		for _, m := range c.OracleExamples {
			bad := false
			for i := 0; i < len(m.Key); i += 8 {
				bad = bad || m.Key[i] == 0x5a
			}
			if !bad {
				t.Errorf("%s: oracle mismatch with key %s, in which no DES key starts with 5a", c.Name, m.Key)
			}
		}
	}
	// A bug of decryption alone, on both sides (wdes wraps crypto/des): the oracle compares that
	// direction too.
	dec := wdesModule(t, "decrypt")
	rep = runCheck(t, dec, dec, func(c *Config) { c.Oracles = desOracles })
	for _, c := range rep.Ciphers {
		if c.OracleMismatches == 0 || len(c.OracleExamples) == 0 || c.OracleExamples[0].Direction != "decrypt" {
			t.Errorf("%s: %d mismatches against the oracle, examples %+v; want decryptions", c.Name,
				c.OracleMismatches, c.OracleExamples)
		}
	}
}
