package des

import (
	"bytes"
	"crypto/cipher"
	stddes "crypto/des"
	"math/rand/v2"
	"testing"
)

// This file cross-checks every variant against crypto/des: DES, EDE3 and
// EDE2 (as EDE3 with K1|K2|K1) directly, EEE2 and EEE3 as three chained
// crypto/des DES ciphers.

// chained is a reference Triple DES made of three crypto/des DES ciphers
// applied one after another (encrypting, or decrypting if dec is set).
type chained struct {
	stage [3]cipher.Block
	dec   [3]bool
}

func (c *chained) BlockSize() int { return BlockSize }

func (c *chained) Encrypt(dst, src []byte) {
	copy(dst[:BlockSize], src[:BlockSize])
	for i, s := range c.stage {
		if c.dec[i] {
			s.Decrypt(dst, dst)
		} else {
			s.Encrypt(dst, dst)
		}
	}
}

func (c *chained) Decrypt(dst, src []byte) {
	copy(dst[:BlockSize], src[:BlockSize])
	for i := 2; i >= 0; i-- {
		if c.dec[i] {
			c.stage[i].Encrypt(dst, dst)
		} else {
			c.stage[i].Decrypt(dst, dst)
		}
	}
}

func newChained(t testing.TB, k1, k2, k3 []byte) cipher.Block {
	c := new(chained)
	for i, k := range [][]byte{k1, k2, k3} {
		s, err := stddes.NewCipher(k)
		if err != nil {
			t.Fatal(err)
		}
		c.stage[i] = s
	}
	return c
}

// reference is one variant and its crypto/des counterpart.
type reference struct {
	variant
	std func(testing.TB, []byte) cipher.Block
}

// references pairs every variant (see bench_test.go) with crypto/des.
var references = []reference{
	{variantNamed("des"), func(t testing.TB, k []byte) cipher.Block { return must(t)(stddes.NewCipher(k)) }},
	{variantNamed("tdes_ede2"), func(t testing.TB, k []byte) cipher.Block {
		return must(t)(stddes.NewTripleDESCipher(append(k[:16:16], k[:8]...)))
	}},
	{variantNamed("tdes_ede3"), func(t testing.TB, k []byte) cipher.Block { return must(t)(stddes.NewTripleDESCipher(k)) }},
	{variantNamed("tdes_eee2"), func(t testing.TB, k []byte) cipher.Block { return newChained(t, k[:8], k[8:16], k[:8]) }},
	{variantNamed("tdes_eee3"), func(t testing.TB, k []byte) cipher.Block { return newChained(t, k[:8], k[8:16], k[16:24]) }},
}

func variantNamed(name string) variant {
	for _, v := range variants {
		if v.name == name {
			return v
		}
	}
	panic("no variant " + name)
}

func must(t testing.TB) func(cipher.Block, error) cipher.Block {
	return func(b cipher.Block, err error) cipher.Block {
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// compareWithStdlib checks every entry point of a variant against the
// reference on data (a whole number of blocks): Encrypt and Decrypt block by
// block, EncryptBlocks and DecryptBlocks out of place (into a longer dst
// whose tail must stay untouched) and in place.
func compareWithStdlib(t testing.TB, r reference, key, data []byte) {
	mine, err := r.make(key)
	if err != nil {
		t.Fatal(err)
	}
	std := r.std(t, key)
	want := make([]byte, len(data))
	for i := 0; i < len(data); i += BlockSize {
		std.Encrypt(want[i:], data[i:])
	}
	check := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s key %x, %d blocks: %s = %x, want %x", r.name, key, len(data)/BlockSize, what, got, want)
		}
	}
	got := make([]byte, len(data))
	for i := 0; i < len(data); i += BlockSize {
		mine.Encrypt(got[i:], data[i:])
	}
	check("Encrypt", got, want)
	for i := 0; i < len(data); i += BlockSize {
		mine.Decrypt(got[i:], want[i:])
	}
	check("Decrypt", got, data)

	const tail = 3 * BlockSize
	out := bytes.Repeat([]byte{0xa5}, len(data)+tail)
	mine.EncryptBlocks(out, data)
	check("EncryptBlocks", out[:len(data)], want)
	check("EncryptBlocks tail", out[len(data):], bytes.Repeat([]byte{0xa5}, tail))
	mine.DecryptBlocks(out, want)
	check("DecryptBlocks", out[:len(data)], data)
	check("DecryptBlocks tail", out[len(data):], bytes.Repeat([]byte{0xa5}, tail))

	inPlace := append([]byte(nil), data...)
	mine.EncryptBlocks(inPlace, inPlace)
	check("EncryptBlocks in place", inPlace, want)
	mine.DecryptBlocks(inPlace, inPlace)
	check("DecryptBlocks in place", inPlace, data)
	inPlace = append([]byte(nil), data...)
	for i := 0; i < len(data); i += BlockSize {
		mine.Encrypt(inPlace[i:], inPlace[i:])
	}
	check("Encrypt in place", inPlace, want)
}

func TestVsStdlib(t *testing.T) {
	const seed = 20261130
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, r := range references {
		t.Run(r.name, func(t *testing.T) {
			// Every batch length up to 200 blocks: none, part of one group of
			// 64 lanes, whole groups, and groups plus a padded tail.
			for n := 0; n <= 200; n++ {
				reps := 1
				if n <= 33 {
					reps = 3
				}
				for range reps {
					compareWithStdlib(t, r, random(r.keyLen), random(n*BlockSize))
				}
			}
		})
	}
}

// FuzzVsStdlib compares all variants with crypto/des on arbitrary keys and
// data, through the single-block calls and the bitsliced batch calls (see
// compareWithStdlib). The first 24 bytes of key serve every variant (8 or 16
// of them for the shorter keys); data is cut to whole blocks.
func FuzzVsStdlib(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmn"), []byte("exactly sixteen!"))
	f.Add(make([]byte, 24), make([]byte, 8*7))
	f.Add(bytes.Repeat([]byte{0xff}, 24), bytes.Repeat([]byte{0xff}, 24))
	f.Add(bytes.Repeat([]byte{0x01, 0xfe}, 12), []byte{})
	f.Add([]byte("a key for sixty-five blks"), bytes.Repeat([]byte("65 blocks"), 65))
	f.Fuzz(func(t *testing.T, key, data []byte) {
		if len(key) < 24 {
			key = append(key, make([]byte, 24-len(key))...)
		}
		data = data[:len(data)/BlockSize*BlockSize]
		for _, r := range references {
			compareWithStdlib(t, r, key[:r.keyLen], data)
		}
	})
}
