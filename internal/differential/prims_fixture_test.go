package differential

import (
	"strings"
	"testing"
)

// primsFixture is a module package with one constructor of every shape discovery accepts besides
// block ciphers, built on the standard library. The /*NAME*/ markers are where variants
// (primsVariants) insert their changes.
const primsFixture = `// Package prims wraps standard-library primitives for the differential tests.
package prims

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rc4"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"hash"
)

// NewAES is a block constructor: the check also runs it through cipher.NewGCM ("NewAES/GCM").
func NewAES(key []byte) (cipher.Block, error) { return aes.NewCipher(key) }

// NewGCM returns AES-GCM, wrapped so that variants can change Seal and Open.
func NewGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		return nil, err
	}
	return &AEAD{g}, nil
}

type AEAD struct{ g cipher.AEAD }

func (a *AEAD) NonceSize() int { return a.g.NonceSize() }
func (a *AEAD) Overhead() int  { return a.g.Overhead() }

func (a *AEAD) Seal(dst, nonce, plaintext, ad []byte) []byte {
	out := a.g.Seal(dst, nonce, plaintext, ad)
	/*SEAL*/
	return out
}

func (a *AEAD) Open(dst, nonce, ciphertext, ad []byte) ([]byte, error) {
	/*OPEN*/
	return a.g.Open(dst, nonce, ciphertext, ad)
}

// NewCTR is a stream constructor func(key, nonce []byte): AES-CTR with a 16-byte nonce, the keystream kept
// between calls by a wrapper of its own.
func NewCTR(key, nonce []byte) (*CTR, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if len(nonce) != 16 {
		return nil, errors.New("prims: nonce must be 16 bytes")
	}
	return &CTR{b: b, ctr: append([]byte(nil), nonce...), used: 16}, nil
}

type CTR struct {
	b    cipher.Block
	ctr  []byte
	ks   [16]byte
	used int // bytes of ks already used; 16 = none left
	pos  int // bytes of keystream used in all
}

func (c *CTR) XORKeyStream(dst, src []byte) {
	for i := range src {
		if c.used == 16 {
			c.b.Encrypt(c.ks[:], c.ctr)
			for j := 15; j >= 0; j-- {
				c.ctr[j]++
				if c.ctr[j] != 0 {
					break
				}
			}
			c.used = 0
		}
		dst[i] = src[i] ^ c.ks[c.used]
		/*KEYSTREAM*/
		c.used++
		c.pos++
	}
	/*CHUNKEND*/
}

// NewStdCTR is crypto/cipher's AES-CTR.
func NewStdCTR(key, nonce []byte) (cipher.Stream, error) {
	b, err := aes.NewCipher(key)
	if err != nil || len(nonce) != b.BlockSize() {
		return nil, errors.New("prims: bad key or nonce")
	}
	return cipher.NewCTR(b, nonce), nil
}

// NewSHA512 is a hash with 128-byte blocks.
func NewSHA512() hash.Hash { return sha512.New() }

// NewRC4 is a stream constructor func(key []byte) that accepts every key size from 1 to 256.
func NewRC4(key []byte) (*rc4.Cipher, error) { return rc4.NewCipher(key) }

// NewSHA256 is a hash constructor func() hash.Hash.
func NewSHA256() hash.Hash {
	/*SHA256*/
	return sha256.New()
}

// NewMAC is a MAC constructor func(key []byte) (hash.Hash, error): HMAC-SHA-256 with a key of 1 to 64 bytes.
func NewMAC(key []byte) (hash.Hash, error) {
	if len(key) == 0 || len(key) > 64 {
		return nil, errors.New("prims: bad key length")
	}
	return hmac.New(sha256.New, key), nil
}

// NewDigest is a hash constructor func() *T: SHA-1 behind a wrapper that counts what was written.
func NewDigest() *Digest { return &Digest{h: sha1.New()} }

type Digest struct {
	h hash.Hash
	n int
}

func (d *Digest) Write(p []byte) (int, error) {
	/*WRITE*/
	d.n += len(p)
	return d.h.Write(p)
}

func (d *Digest) Sum(b []byte) []byte { /*SUM*/ return d.h.Sum(b) }
func (d *Digest) Reset()              { /*RESET*/ d.h.Reset(); d.n = 0 }
func (d *Digest) Size() int           { return d.h.Size() }
func (d *Digest) BlockSize() int      { return d.h.BlockSize() }

// Helper is no constructor.
func Helper(key []byte) ([]byte, error) { return key, nil }
`

// primsVariants are the changes a fixture can make to primsFixture, by marker.
var primsVariants = map[string]map[string]string{
	"base": {},
	// Output-identical changes.
	"refactor": {"SEAL": "_ = len(out)", "WRITE": "if len(p) == 0 { return 0, nil }"},
	// Seal corrupts the last byte of the tag of 5-byte plaintexts.
	"tag": {"SEAL": "if len(plaintext) == 5 { out[len(out)-1] ^= 1 }"},
	// Seal appends a stray byte to 7-byte plaintexts.
	"length": {"SEAL": "if len(plaintext) == 7 { out = append(out, 0) }"},
	// Open no longer authenticates: it decrypts with the tag of a fresh Seal.
	"forgery": {"OPEN": `if pt, err := a.g.Open(dst, nonce, ciphertext, ad); err != nil {
		return dst, nil
	} else {
		return pt, nil
	}`},
	// The keystream byte 100 is flipped, in one call or in chunks.
	"keystream": {"KEYSTREAM": "if c.pos == 100 { dst[i] ^= 1 }"},
	// Each call throws away the rest of the current keystream block: right in one call, wrong in
	// chunks.
	"chunks": {"CHUNKEND": "c.used = 16"},
	// A Write that does not start at a block boundary and crosses one adds a zero byte.
	"hashchunks": {"WRITE": "if d.n%64 != 0 && d.n%64+len(p) > 64 { d.h.Write([]byte{0}) }"},
	// Sum hashes its argument instead of only appending to it (as tjfoc/gmsm's sm3 did in 2021).
	"sumwrites": {"SUM": "d.h.Write(b);"},
	// Reset forgets to reset.
	"reset": {"RESET": "return;"},
	// Each keystream byte clears the next byte of dst before its src is read: wrong in place only.
	"aliasstream": {"KEYSTREAM": "if i+1 < len(dst) { dst[i+1] = 0 }"},
	// Open clears dst's spare capacity before it decrypts: an Open(ciphertext[:0], …) clears its
	// ciphertext.
	"aliasopen": {"OPEN": "spare := dst[len(dst):cap(dst)]; for i := range spare { spare[i] = 0 }"},
	// Seal panics on messages of 33 bytes.
	"panic": {"SEAL": `if len(plaintext) == 33 { panic("prims: boom") }`},
	// NewSHA256 returns SHA-224: another Size.
	"size": {"SHA256": "return sha256.New224()"},
}

// primsModule writes the module with primsFixture changed as variant says, declaring go 1.16, at
// internal/prims.
func primsModule(t testing.TB, variant string) string {
	t.Helper()
	changes, ok := primsVariants[variant]
	if !ok {
		t.Fatalf("no variant %q", variant)
	}
	src := primsFixture
	for marker, code := range changes {
		src = strings.Replace(src, "/*"+marker+"*/", code, 1)
	}
	return writeModule(t, map[string]string{
		"go.mod":                  "module example.com/prims\n\ngo 1.16\n",
		"internal/prims/prims.go": src,
	})
}
