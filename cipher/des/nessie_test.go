package des

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The NESSIE test vectors (Project NESSIE, "Test vectors for Des",
// "Triple-Des (2-Key)", "Triple-Des (3-Key)") are read at test time from the
// shared/vectors directory beside the repository root; they are not copied
// into the repository. Each vector has a key, plain and cipher; sets 1-4
// add "decrypted" (D(cipher)) and "Iterated 100 times" / "Iterated 1000
// times" (the plaintext encrypted that many times in a row), sets 5-8 add
// "encrypted" (E(plain)).

// nessieVector is one vector: its header ("Set 1, vector#  0") and fields.
type nessieVector struct {
	name   string
	fields map[string]string
}

// vectorsDir returns shared/vectors beside the module root: it walks up from
// the working directory to the directory holding go.mod.
func vectorsDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("NESSIE vectors skipped: no go.mod above the working directory")
		}
		dir = parent
	}
	vec := filepath.Join(dir, "..", "shared", "vectors")
	if _, err := os.Stat(vec); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("NESSIE vectors skipped: %s not found (expected shared/vectors beside the repository root)", vec)
	}
	return vec
}

// parseNessie reads a NESSIE test-vector file (CRLF or LF line ends).
func parseNessie(data []byte) ([]nessieVector, error) {
	var vs []nessieVector
	var cur *nessieVector
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "Set ") && strings.HasSuffix(line, ":"):
			vs = append(vs, nessieVector{name: strings.TrimSuffix(line, ":"), fields: map[string]string{}})
			cur = &vs[len(vs)-1]
		case line == "":
			cur = nil
		case cur != nil:
			name, value, ok := strings.Cut(line, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: no '=' in %q", n, line)
			}
			cur.fields[strings.TrimSpace(name)] = strings.TrimSpace(value)
		}
	}
	return vs, sc.Err()
}

func TestNessie(t *testing.T) {
	dir := vectorsDir(t)
	for _, tc := range []struct {
		file  string
		count int // vectors in the file, so a parsing slip cannot pass silently
		new   func([]byte) (blockCipher, error)
	}{
		{"nessie-Des-64-64.test-vectors", 772, func(k []byte) (blockCipher, error) { return NewCipher(k) }},
		{"nessie-Triple-Des-2-Key-128-64.unverified.test-vectors", 900, func(k []byte) (blockCipher, error) { return NewTripleEDE2(k) }},
		{"nessie-Triple-Des-3-Key-192-64.unverified.test-vectors", 1028, func(k []byte) (blockCipher, error) { return NewTripleEDE3(k) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			vs, err := parseNessie(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != tc.count {
				t.Fatalf("parsed %d vectors, want %d", len(vs), tc.count)
			}
			var iterated int
			for _, v := range vs {
				iterated += checkNessie(t, v, tc.new)
			}
			if iterated != tc.count {
				t.Errorf("checked %d iterated values, want %d (half the vectors have two)", iterated, tc.count)
			}
			if n := checkNessieBatch(t, vs, tc.new); n != tc.count {
				t.Errorf("checked %d vectors through the batch calls, want %d", n, tc.count)
			}
		})
	}
}

// checkNessie checks every field of one vector and returns how many
// iterated values it checked.
func checkNessie(t *testing.T, v nessieVector, newCipher func([]byte) (blockCipher, error)) int {
	t.Helper()
	field := func(name string) []byte {
		s, ok := v.fields[name]
		if !ok {
			t.Fatalf("%s: no field %q", v.name, name)
		}
		return unhex(t, s)
	}
	c, err := newCipher(field("key"))
	if err != nil {
		t.Fatalf("%s: %v", v.name, err)
	}
	plain, want := field("plain"), field("cipher")
	got := [BlockSize]byte{}
	c.Encrypt(got[:], plain)
	if !bytes.Equal(got[:], want) {
		t.Errorf("%s: E(%x) = %x, want %x", v.name, plain, got, want)
	}
	c.Decrypt(got[:], want)
	if !bytes.Equal(got[:], plain) {
		t.Errorf("%s: D(%x) = %x, want %x", v.name, want, got, plain)
	}
	if _, ok := v.fields["decrypted"]; ok && !bytes.Equal(field("decrypted"), plain) {
		t.Errorf("%s: decrypted field differs from plain", v.name)
	}
	if _, ok := v.fields["encrypted"]; ok && !bytes.Equal(field("encrypted"), want) {
		t.Errorf("%s: encrypted field differs from cipher", v.name)
	}
	if _, ok := v.fields["Iterated 100 times"]; !ok {
		return 0 // sets 5-8
	}
	copy(got[:], plain)
	for i := 1; i <= 1000; i++ {
		c.Encrypt(got[:], got[:])
		if i == 100 || i == 1000 {
			name := fmt.Sprintf("Iterated %d times", i)
			if w := field(name); !bytes.Equal(got[:], w) {
				t.Errorf("%s: %s = %x, want %x", v.name, name, got, w)
			}
		}
	}
	return 2
}

// checkNessieBatch puts every vector through EncryptBlocks and
// DecryptBlocks: the vectors sharing a key (set 2 has one key for all its
// plaintexts) go in one batch, so their blocks sit in different lanes of the
// bitsliced engine. It returns the number of vectors checked.
func checkNessieBatch(t *testing.T, vs []nessieVector, newCipher func([]byte) (blockCipher, error)) int {
	t.Helper()
	type batch struct{ plain, cipher []byte }
	byKey := map[string]*batch{}
	var keys []string
	for _, v := range vs {
		k := v.fields["key"]
		b, ok := byKey[k]
		if !ok {
			b = new(batch)
			byKey[k] = b
			keys = append(keys, k)
		}
		b.plain = append(b.plain, unhex(t, v.fields["plain"])...)
		b.cipher = append(b.cipher, unhex(t, v.fields["cipher"])...)
	}
	slices.Sort(keys)
	n := 0
	for _, k := range keys {
		b := byKey[k]
		c, err := newCipher(unhex(t, k))
		if err != nil {
			t.Fatalf("key %s: %v", k, err)
		}
		got := make([]byte, len(b.plain))
		c.EncryptBlocks(got, b.plain)
		if !bytes.Equal(got, b.cipher) {
			t.Errorf("key %s: EncryptBlocks of %d blocks = %x, want %x", k, len(b.plain)/BlockSize, got, b.cipher)
		}
		c.DecryptBlocks(got, got)
		if !bytes.Equal(got, b.plain) {
			t.Errorf("key %s: DecryptBlocks in place of %d blocks = %x, want %x", k, len(b.plain)/BlockSize, got, b.plain)
		}
		n += len(b.plain) / BlockSize
	}
	return n
}
