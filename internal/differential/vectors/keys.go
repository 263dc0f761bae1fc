package vectors

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// Rand returns the generator of one constructor at one key size. Each (seed, constructor, key
// size) has its own stream, so adding a constructor or a key size on one side never shifts the
// inputs of the others.
func Rand(seed uint64, ctor string, keySize int) *rand.ChaCha8 {
	h := sha256.New()
	h.Write([]byte("perfgate differential v1\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(ctor))
	binary.BigEndian.PutUint64(b[:], uint64(keySize))
	h.Write(b[:])
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return rand.NewChaCha8(s)
}

// Keys returns exactly n keys of keySize bytes: the special keys of that size (specialKeys), the
// keys with a run of 0x00 or 0xff bytes (RunKeys) and the keys that give each byte every value
// (ValueKeys), cut to n, then random keys (random bytes, so random parity bits too) up to n.
func Keys(r *rand.ChaCha8, keySize, n int) [][]byte {
	random := func() []byte {
		k := make([]byte, keySize)
		r.Read(k)
		return k
	}
	keys := specialKeys(r, keySize)
	keys = append(keys, RunKeys(random, keySize)...)
	keys = append(keys, ValueKeys(keySize)...)
	if len(keys) > n {
		keys = keys[:n]
	}
	for len(keys) < n {
		keys = append(keys, random())
	}
	return keys
}

// ValueKeys returns 256 keys of size bytes in which each byte position takes each value once: key v
// has byte p equal to v + 0x9d·p (mod 256). So a bug tied to one value of one key byte meets a key
// for sure.
func ValueKeys(size int) [][]byte {
	if size == 0 {
		return nil
	}
	keys := make([][]byte, 256)
	for v := range keys {
		keys[v] = make([]byte, size)
		for p := range size {
			keys[v][p] = byte(v + 0x9d*p)
		}
	}
	return keys
}

// RunKeys returns, for each aligned run of 4, 8 and 16 bytes shorter than the key, a random key
// with that run all 0x00 and one with it all 0xff: a zero word or a zero half, the weak-key paths
// of word-oriented code.
func RunKeys(random func() []byte, size int) [][]byte {
	var keys [][]byte
	for run := 4; run <= 16 && run < size; run *= 2 {
		for at := 0; at+run <= size; at += run {
			for _, v := range []byte{0x00, 0xff} {
				k := random()
				for i := at; i < at+run; i++ {
					k[i] = v
				}
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// degenerateTriple is how many Triple-DES keys of each degenerate shape (K1=K2, K2=K3, K1=K3) a key
// list holds.
const degenerateTriple = 16

// specialKeys returns the structured keys for a key size, in this order:
//
//   - 8 bytes (DES): the 64 weak, semi-weak and possibly weak keys, then the same with every parity
//     bit flipped;
//   - 16 and 24 bytes (Triple-DES with two or three keys): each of those 64 keys repeated as
//     K1=K2(=K3), the same with parity bits flipped, each semi-weak pair as K1|K2(|K1), then
//     degenerate keys with random parts: K1=K2, and for 24 bytes also K2=K3 and K1=K3;
//   - every size: the keySize×8 keys with exactly one bit set.
//
// r fills the random parts of the degenerate keys.
func specialKeys(r *rand.ChaCha8, keySize int) [][]byte {
	var keys [][]byte
	des := desSpecialKeys()
	switch keySize {
	case 8:
		keys = append(keys, des...)
		for _, k := range des {
			keys = append(keys, flipParity(k))
		}
	case 16, 24:
		parts := keySize / 8
		for _, flip := range []bool{false, true} {
			for _, k := range des {
				if flip {
					k = flipParity(k)
				}
				keys = append(keys, repeatKey(parts, k, k, k))
			}
		}
		for i := 0; i < len(semiWeakKeys); i += 2 {
			k1, k2 := des[len(weakKeys)+i], des[len(weakKeys)+i+1]
			keys = append(keys, repeatKey(parts, k1, k2, k1))
		}
		shapes := [][3]int{{0, 0, 1}} // part indices: K1=K2
		if parts == 3 {
			shapes = append(shapes, [3]int{0, 1, 1}, [3]int{0, 1, 0}) // K2=K3, K1=K3
		}
		for _, s := range shapes {
			for range degenerateTriple {
				var p [2][]byte
				for i := range p {
					p[i] = make([]byte, 8)
					r.Read(p[i])
				}
				keys = append(keys, repeatKey(parts, p[s[0]], p[s[1]], p[s[2]]))
			}
		}
	}
	for bit := range keySize * 8 {
		k := make([]byte, keySize)
		k[bit/8] = 0x80 >> (bit % 8)
		keys = append(keys, k)
	}
	return keys
}

// desSpecialKeys returns the weak, semi-weak and possibly weak DES keys, in table order.
func desSpecialKeys() [][]byte {
	var keys [][]byte
	for _, table := range [][]string{weakKeys[:], semiWeakKeys[:], possiblyWeakKeys[:]} {
		for _, s := range table {
			k, err := hex.DecodeString(s)
			if err != nil || len(k) != 8 {
				panic("vectors: bad key in table: " + s)
			}
			keys = append(keys, k)
		}
	}
	return keys
}

// flipParity returns k with the parity bit (the least significant bit) of every byte flipped.
func flipParity(k []byte) []byte {
	out := make([]byte, len(k))
	for i, b := range k {
		out[i] = b ^ 1
	}
	return out
}

// repeatKey returns the Triple-DES key k1|k2 (parts = 2) or k1|k2|k3 (parts = 3).
func repeatKey(parts int, k1, k2, k3 []byte) []byte {
	out := append(append([]byte(nil), k1...), k2...)
	if parts == 3 {
		out = append(out, k3...)
	}
	return out
}
