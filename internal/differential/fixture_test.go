package differential

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/subject"
	"github.com/perfgate/perfgate/internal/testing/testmod"
)

// wdesSource is a small module package that wraps crypto/des in the shape of the gated packages:
// two constructors returning *Cipher, single-block methods and the batch methods EncryptBlocks and
// DecryptBlocks. The /*NAME*/ markers are where variants insert their changes (wdesVariants).
const wdesSource = `// Package wdes wraps crypto/des for the differential tests.
package wdes

import (
	"crypto/cipher"
	"crypto/des"
)

type Cipher struct {
	b   cipher.Block
	key []byte
}

func NewCipher(key []byte) (*Cipher, error) {
	/*NEWCIPHER*/
	b, err := des.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return &Cipher{b, key}, nil
}

func NewTripleEDE3(key []byte) (*Cipher, error) {
	b, err := des.NewTripleDESCipher(key)
	if err != nil {
		return nil, err
	}
	return &Cipher{b, key}, nil
}

// Helper has the wrong shape for a constructor and must be ignored.
func Helper(key []byte) ([]byte, error) { return key, nil }

func (c *Cipher) BlockSize() int { return 8 }

func (c *Cipher) Encrypt(dst, src []byte) {
	/*BEFORE*/
	c.b.Encrypt(dst, src)
	/*ENCRYPT*/
}

func (c *Cipher) Decrypt(dst, src []byte) {
	/*DBEFORE*/
	c.b.Decrypt(dst, src)
	/*DECRYPT*/
}

func (c *Cipher) EncryptBlocks(dst, src []byte) {
	for i := 0; i+8 <= len(src); i += 8 {
		c.Encrypt(dst[i:i+8], src[i:i+8])
	}
	/*ENCRYPTBLOCKS*/
}

func (c *Cipher) DecryptBlocks(dst, src []byte) {
	for i := 0; i+8 <= len(src); i += 8 {
		c.Decrypt(dst[i:i+8], src[i:i+8])
	}
}

/*EXTRA*/
`

// wdesVariants are the changes a fixture can make to wdesSource, by marker.
var wdesVariants = map[string]map[string]string{
	"base": {},
	// An output-identical refactor: copies the key, touches bounds, nothing observable.
	"refactor": {
		"NEWCIPHER": "key = append([]byte(nil), key...)",
		"ENCRYPT":   "_ = dst[7]",
	},
	// Encrypt flips one output bit when the plaintext starts with 0x42 (in place too).
	"broken": {"BEFORE": "flip := src[0] == 0x42", "ENCRYPT": "if flip { dst[3] ^= 0x10 }"},
	// Only decryption changes (in place too).
	"decrypt": {"DBEFORE": "flip := src[0]&0x0f == 0", "DECRYPT": "if flip { dst[0] ^= 0x80 }"},
	// Encrypt clears dst[0] before reading src: wrong in place only.
	"alias": {"BEFORE": "dst[0] = 0"},
	// EncryptBlocks corrupts the last block of a call of 7, 23, 39… blocks (≡ 7 mod 16).
	"count7": {"ENCRYPTBLOCKS": "if len(src)/8%16 == 7 { dst[len(src)-8] ^= 1 }"},
	// EncryptBlocks corrupts the 17th block, the tail after 16.
	"tail": {"ENCRYPTBLOCKS": "if len(src) > 16*8 { dst[16*8] ^= 1 }"},
	// The parity bit of the first key byte starts to matter.
	"parity": {"NEWCIPHER": "if key[0]&1 == 1 { key = append([]byte(nil), key...); key[1] ^= 0x02 }"},
	// Triple-DES encryption panics.
	"panic": {"ENCRYPT": `if len(c.key) == 24 { panic("wdes: boom") }`},
	// Triple-DES encryption never returns.
	"hang": {"ENCRYPT": "for len(c.key) == 24 { c.b.Encrypt(dst, dst) }"},
	// A new constructor and a new batch method.
	"added": {"EXTRA": `func NewCipherCopy(key []byte) (*Cipher, error) { return NewCipher(append([]byte(nil), key...)) }

func (c *Cipher) EncryptECB(dst, src []byte) { c.EncryptBlocks(dst, src) }`},
}

// writeModule writes a module example.com/wdes with the files (path → content) into a new
// directory. Without a go.mod among the files, the module declares go 1.26.
func writeModule(t testing.TB, files map[string]string) string {
	t.Helper()
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = testmod.GoMod("example.com/wdes", "1.26")
	}
	return testmod.Temp(t, files)
}

// wdesModule writes the module with wdesSource changed as variant says, at the package path
// internal/wdes (so the harness must be placed where it may import an internal package).
func wdesModule(t *testing.T, variant string) string {
	t.Helper()
	changes, ok := wdesVariants[variant]
	if !ok {
		t.Fatalf("no variant %q", variant)
	}
	src := wdesSource
	for marker, code := range changes {
		src = strings.Replace(src, "/*"+marker+"*/", code, 1)
	}
	return writeModule(t, map[string]string{"internal/wdes/wdes.go": src})
}

// runCheck runs Check with the fixture defaults and fails the test on an error.
func runCheck(t *testing.T, base, head string, edit func(*Config)) *Report {
	t.Helper()
	cfg := Config{Sides: subject.Sides{BaseDir: base, HeadDir: head, Pkg: "./internal/wdes", Log: testLog{t}}}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Check(ctx, cfg)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return rep
}

// testLog sends the check's log to t.Log, shown with -v or on failure.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// treeState lists every file under dir with its size, mode and modification time.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		state[p] = fmt.Sprint(fi.Mode(), " ", fi.ModTime(), " ", fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}
