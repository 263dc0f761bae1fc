package differential

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// A job is one constructor at one key size: the keys, and for every key the plaintexts to encrypt and the
// ciphertexts to decrypt. Both harnesses receive the same jobs, byte for byte, on their standard input.
type job struct {
	ctor      string
	keySize   int
	blockSize int
	blocks    int
	methods   []string // batch methods run on both sides, sorted; Encrypt*/Decrypt* tell the direction
	keys      []keyInput
}

// keyInput is one key and its inputs; plain and cipher hold blocks × blockSize bytes each.
type keyInput struct {
	key, plain, cipher []byte
}

// input returns the bytes fed in direction dir (0 encrypt, 1 decrypt).
func (k *keyInput) input(dir int) []byte {
	if dir == 0 {
		return k.plain
	}
	return k.cipher
}

// newRand returns the generator of one constructor at one key size. Each (seed, constructor, key size) has its
// own stream, so adding a constructor or a key size on one side never shifts the inputs of the others.
func newRand(seed uint64, ctor string, keySize int) *rand.ChaCha8 {
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

// newJob generates the inputs of one constructor at one key size: exactly nKeys keys (keyList), and for each key
// blocks random plaintexts and blocks random ciphertexts.
func newJob(seed uint64, ctor string, keySize, blockSize, nKeys, blocks int, methods []string) *job {
	r := newRand(seed, ctor, keySize)
	j := &job{ctor: ctor, keySize: keySize, blockSize: blockSize, blocks: blocks, methods: methods}
	keys := keyList(r, keySize, nKeys)
	n := blocks * blockSize
	buf := make([]byte, 2*n*len(keys))
	r.Read(buf)
	for i, k := range keys {
		in := buf[2*n*i : 2*n*(i+1)]
		j.keys = append(j.keys, keyInput{key: k, plain: in[:n:n], cipher: in[n:]})
	}
	return j
}

// keyList returns exactly n keys of keySize bytes: the special keys of that size (specialKeys) first, cut to n,
// then random keys (random bytes, so random parity bits too) up to n.
func keyList(r *rand.ChaCha8, keySize, n int) [][]byte {
	keys := specialKeys(r, keySize)
	if len(keys) > n {
		keys = keys[:n]
	}
	for len(keys) < n {
		k := make([]byte, keySize)
		r.Read(k)
		keys = append(keys, k)
	}
	return keys
}

// degenerateTriple is how many Triple-DES keys of each degenerate shape (K1=K2, K2=K3, K1=K3) a key list holds.
const degenerateTriple = 16

// specialKeys returns the structured keys for a key size, in this order:
//
//   - 8 bytes (DES): the 64 weak, semi-weak and possibly weak keys, then the same with every parity bit flipped;
//   - 16 and 24 bytes (Triple-DES with two or three keys): each of those 64 keys repeated as K1=K2(=K3), the same
//     with parity bits flipped, each semi-weak pair as K1|K2(|K1), then degenerate keys with random parts:
//     K1=K2, and for 24 bytes also K2=K3 and K1=K3;
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
				panic("differential: bad key in table: " + s)
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

// encodeJobs writes the standard input of a harness run:
//
//	"PGD1" u32(jobs)
//	per job:  u16(len) ctor  u16(keySize) u32(blockSize) u32(keys) u32(blocks) u8(methods) {u8(len) name}
//	per key:  key  plaintexts  ciphertexts
//
// All integers are big-endian.
func encodeJobs(jobs []*job) []byte {
	var b []byte
	b = append(b, "PGD1"...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(jobs)))
	for _, j := range jobs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(j.ctor)))
		b = append(b, j.ctor...)
		b = binary.BigEndian.AppendUint16(b, uint16(j.keySize))
		b = binary.BigEndian.AppendUint32(b, uint32(j.blockSize))
		b = binary.BigEndian.AppendUint32(b, uint32(len(j.keys)))
		b = binary.BigEndian.AppendUint32(b, uint32(j.blocks))
		b = append(b, byte(len(j.methods)))
		for _, m := range j.methods {
			b = append(b, byte(len(m)))
			b = append(b, m...)
		}
		for _, k := range j.keys {
			b = append(b, k.key...)
			b = append(b, k.plain...)
			b = append(b, k.cipher...)
		}
	}
	return b
}
