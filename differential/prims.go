package differential

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Defaults of Config for AEAD, stream and hash constructors.
const (
	DefaultMessageKeys   = 8 // keys per key size
	DefaultMessageBlocks = 8 // messages go up to this many blocks
)

// maxPrimSizes is how many (key size, nonce size) pairs of one constructor are compared at most; a constructor
// that accepts more (an RC4 takes every key size, a MAC every key length) is compared at an even spread of them,
// always including the smallest and the largest.
const maxPrimSizes = 8

// adLengths are the additional-data lengths AEAD cases cycle through.
var adLengths = []int{0, 1, 13, 16, 17, 32, 65}

// primProbe is one constructor's accepted sizes, as the harness prints them with -probe-primitives.
type primProbe struct {
	Name   string     `json:"name"`
	Family Family     `json:"family"`
	Sizes  []primSize `json:"sizes"`
}

// primSize is one accepted key size (and constructor nonce size), with what the result reports about itself, or
// one whose constructor panicked.
type primSize struct {
	Key       int    `json:"key"`
	Nonce     int    `json:"nonce"`
	NonceSize int    `json:"nonce_size,omitempty"` // AEAD
	Overhead  int    `json:"overhead,omitempty"`   // AEAD
	Size      int    `json:"size,omitempty"`       // hash
	BlockSize int    `json:"block_size,omitempty"` // hash
	Panic     string `json:"panic,omitempty"`
}

func (p primSize) text() string {
	if p.Panic != "" {
		return "panic: " + p.Panic
	}
	return "accepted"
}

// probePrims runs the harness with -probe-primitives and keeps what it found.
func (s *side) probePrims(ctx context.Context, cfg *Config) error {
	out, err := s.run(ctx, cfg, []string{"-probe-primitives"}, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, &s.primProbed); err != nil {
		return s.failure(fmt.Sprintf("harness probe printed invalid output: %v", err))
	}
	return nil
}

// A primJob is one AEAD, stream or hash constructor at one key size (and constructor nonce size).
type primJob struct {
	ctor               string
	family             Family
	keySize, nonceSize int // nonceSize: the constructor's nonce argument (streams func(key, nonce))
	keys               []primKey
}

// primKey is one key, the constructor's nonce, and one case per message length.
type primKey struct {
	key, nonce []byte
	cases      []primCase
}

// primCase is one message and what goes with it: the AEAD's nonce and additional data, the chunks the message
// is written in, and the bit flipped for the tampered Open.
type primCase struct {
	msg, nonce, ad []byte
	chunks         []int
	tamperAt       uint32
	tamperMask     byte
}

// messageLengths returns every length from 0 to 2 blocks + 1, then each block boundary ±1 up to maxBlocks blocks.
func messageLengths(block, maxBlocks int) []int {
	var ls []int
	for n := 0; n <= 2*block+1; n++ {
		ls = append(ls, n)
	}
	for k := 3; k <= maxBlocks; k++ {
		ls = append(ls, k*block-1, k*block, k*block+1)
	}
	return ls
}

// familyBlock is the block size that message lengths are laid around: 16 for an AEAD (GCM, Poly1305), 64 for a
// stream cipher (ChaCha20, Salsa20, and four AES-CTR blocks), a hash's own BlockSize.
func familyBlock(family Family, p primSize) int {
	switch {
	case family == FamilyAEAD:
		return 16
	case family == FamilyHash && p.BlockSize > 0 && p.BlockSize <= 256:
		return p.BlockSize
	}
	return 64
}

// newPrimJob generates the inputs of one constructor at one size pair, from its own stream (newRand).
func newPrimJob(seed uint64, ctor string, family Family, p primSize, nKeys int, lengths []int) *primJob {
	src := newRand(seed, ctor+"\x00nonce "+strconv.Itoa(p.Nonce), p.Key)
	r := rand.New(src)
	j := &primJob{ctor: ctor, family: family, keySize: p.Key, nonceSize: p.Nonce}
	bytes := func(n int) []byte {
		b := make([]byte, n)
		src.Read(b)
		return b
	}
	block := familyBlock(family, p)
	for k := range nKeys {
		pk := primKey{key: bytes(p.Key), nonce: bytes(p.Nonce)}
		if k == 0 {
			clear(pk.key) // the all-zero key
		}
		for i, n := range lengths {
			c := primCase{msg: bytes(n), chunks: randomChunks(r, n, block), tamperAt: r.Uint32(),
				tamperMask: 1 << r.IntN(8)}
			if family == FamilyAEAD {
				c.nonce = bytes(p.NonceSize)
				c.ad = bytes(adLengths[(i+k)%len(adLengths)])
			}
			pk.cases = append(pk.cases, c)
		}
		j.keys = append(j.keys, pk)
	}
	return j
}

// randomChunks splits n bytes into chunks of 0 to 1.5 blocks: an empty write one time in eight.
func randomChunks(r *rand.Rand, n, block int) []int {
	if n == 0 {
		return []int{0}
	}
	var cs []int
	for n > 0 {
		c := 0
		if r.IntN(8) != 0 {
			c = 1 + r.IntN(min(n, block+block/2))
		}
		cs = append(cs, c)
		n -= c
	}
	return cs
}

// encodePrimJobs writes the standard input of a harness run with -primitives:
//
//	"PGP1" u32(jobs)
//	per job:  u16(len) ctor  u16(keySize) u16(nonceSize) u32(keys) u32(cases per key)
//	per key:  key  nonce
//	per case: u32(len) message  u16(len) nonce  u32(len) additional data  u16(chunks) {u32(chunk)}
//	          u32(tamper offset) u8(tamper mask)
func encodePrimJobs(jobs []*primJob) []byte {
	b := []byte("PGP1")
	b = binary.BigEndian.AppendUint32(b, uint32(len(jobs)))
	for _, j := range jobs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(j.ctor)))
		b = append(b, j.ctor...)
		b = binary.BigEndian.AppendUint16(b, uint16(j.keySize))
		b = binary.BigEndian.AppendUint16(b, uint16(j.nonceSize))
		b = binary.BigEndian.AppendUint32(b, uint32(len(j.keys)))
		cases := 0
		if len(j.keys) > 0 {
			cases = len(j.keys[0].cases)
		}
		b = binary.BigEndian.AppendUint32(b, uint32(cases))
		for _, k := range j.keys {
			b = append(b, k.key...)
			b = append(b, k.nonce...)
			for _, c := range k.cases {
				b = binary.BigEndian.AppendUint32(b, uint32(len(c.msg)))
				b = append(b, c.msg...)
				b = binary.BigEndian.AppendUint16(b, uint16(len(c.nonce)))
				b = append(b, c.nonce...)
				b = binary.BigEndian.AppendUint32(b, uint32(len(c.ad)))
				b = append(b, c.ad...)
				b = binary.BigEndian.AppendUint16(b, uint16(len(c.chunks)))
				for _, n := range c.chunks {
					b = binary.BigEndian.AppendUint32(b, uint32(n))
				}
				b = binary.BigEndian.AppendUint32(b, c.tamperAt)
				b = append(b, c.tamperMask)
			}
		}
	}
	return b
}

// planPrims returns the Ciphers and jobs of the AEAD, stream and hash constructors both sides have (common), and
// of every common block constructor through cipher.NewGCM when a side accepts it there.
func planPrims(cfg *Config, sides [2]*side, common []string) ([]Cipher, []*primJob) {
	var names []string
	fam := map[string]Family{}
	typ := map[string]string{}
	derived := map[string]bool{}
	for _, n := range common {
		b, h := findCtor(sides[0].info, n), findCtor(sides[1].info, n)
		switch {
		case b.Family != h.Family:
			continue // reported by planFamilies
		case b.Family == FamilyBlock:
			names = append(names, n+gcmSuffix)
			fam[n+gcmSuffix], typ[n+gcmSuffix], derived[n+gcmSuffix] = FamilyAEAD, "cipher.AEAD", true
		default:
			names = append(names, n)
			fam[n], typ[n] = h.Family, h.Type
		}
	}
	sort.Strings(names)
	var ciphers []Cipher
	var jobs []*primJob
	for _, name := range names {
		var sizes [2]map[[2]int]primSize
		for i, s := range sides {
			sizes[i] = map[[2]int]primSize{}
			for _, p := range s.primProbed {
				if p.Name == name {
					for _, z := range p.Sizes {
						sizes[i][[2]int{z.Key, z.Nonce}] = z
					}
				}
			}
		}
		if len(sizes[0])+len(sizes[1]) == 0 && derived[name] {
			continue // a block cipher that cannot be GCM (its block size is not 16 bytes)
		}
		c, pairs := comparePrimSizes(name, fam[name], typ[name], sizes)
		c.Keys = cfg.MessageKeys
		for _, p := range pairs {
			lengths := messageLengths(familyBlock(c.Family, p), cfg.MessageBlocks)
			c.Lengths = lengths
			c.Inputs += cfg.MessageKeys * len(lengths)
			jobs = append(jobs, newPrimJob(cfg.Seed, name, c.Family, p, cfg.MessageKeys, lengths))
		}
		ciphers = append(ciphers, c)
	}
	return ciphers, jobs
}

// comparePrimSizes compares what the two sides accept and report about themselves, and returns the Cipher with
// its sizes and setup mismatches, and the size pairs to compare (base's view of each).
func comparePrimSizes(name string, family Family, typ string, sizes [2]map[[2]int]primSize) (Cipher, []primSize) {
	c := Cipher{Name: name, Family: family, Type: typ, KeySizes: []int{}, Methods: familyMethods[family]}
	var all [][2]int
	for i := range sizes {
		for k := range sizes[i] {
			if _, dup := sizes[1-i][k]; !dup || i == 0 {
				all = append(all, k)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i][0] < all[j][0] || all[i][0] == all[j][0] && all[i][1] < all[j][1]
	})
	var pairs []primSize
	setup := func(k [2]int, part, note string) {
		c.Mismatches++
		if len(c.Examples) < MaxExamples {
			c.Examples = append(c.Examples, Mismatch{Constructor: name, KeySize: k[0], Block: -1,
				Direction: "setup", Method: name, Part: part, Note: note})
		}
	}
	for _, k := range all {
		b, inB := sizes[0][k]
		h, inH := sizes[1][k]
		what := fmt.Sprintf("%d-byte key", k[0])
		if k[1] > 0 {
			what += fmt.Sprintf(", %d-byte nonce", k[1])
		}
		switch {
		case b.Panic != "" && h.Panic != "":
			c.Notes = append(c.Notes, what+" panics on both sides: "+h.Panic)
		case inB && inH && (b.Panic != "" || h.Panic != ""):
			setup(k, "setup", what+": base: "+b.text()+"; head: "+h.text())
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, k[0])
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, k[0])
		case b.NonceSize != h.NonceSize:
			setup(k, "nonce size", fmt.Sprintf("%s: NonceSize base %d, head %d", what, b.NonceSize, h.NonceSize))
		case b.Overhead != h.Overhead:
			setup(k, "overhead", fmt.Sprintf("%s: Overhead base %d, head %d", what, b.Overhead, h.Overhead))
		case b.Size != h.Size:
			setup(k, "size", fmt.Sprintf("%s: Size base %d, head %d", what, b.Size, h.Size))
		case b.BlockSize != h.BlockSize:
			setup(k, "block size", fmt.Sprintf("%s: BlockSize base %d, head %d", what, b.BlockSize, h.BlockSize))
		default:
			pairs = append(pairs, b)
		}
	}
	if len(pairs) > maxPrimSizes {
		var left []int
		picked := make([]primSize, 0, maxPrimSizes)
		for i := range maxPrimSizes {
			picked = append(picked, pairs[i*(len(pairs)-1)/(maxPrimSizes-1)])
		}
		for _, p := range pairs {
			if !containsPair(picked, p) {
				left = append(left, p.Key)
			}
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%d size pairs accepted by both sides, %d compared; "+
			"key sizes not compared: %v", len(pairs), maxPrimSizes, dedupInts(left)))
		pairs = picked
	}
	for _, p := range pairs {
		c.KeySizes = appendNew(c.KeySizes, p.Key)
		if p.Nonce > 0 {
			c.NonceSizes = appendNew(c.NonceSizes, p.Nonce)
		}
		if p.NonceSize > 0 {
			c.NonceSizes = appendNew(c.NonceSizes, p.NonceSize)
		}
	}
	sort.Ints(c.KeySizes)
	sort.Ints(c.NonceSizes)
	c.KeySizesAdded, c.KeySizesRemoved = dedupInts(c.KeySizesAdded), dedupInts(c.KeySizesRemoved)
	if len(pairs) == 0 {
		c.Notes = append(c.Notes, "no key size accepted by both sides: nothing compared")
	}
	return c, pairs
}

// familyMethods are the methods a family's check calls, for Cipher.Methods.
var familyMethods = map[Family][]string{
	FamilyAEAD:   {"Seal", "Open"},
	FamilyStream: {"XORKeyStream"},
	FamilyHash:   {"Write", "Sum", "Reset", "Size", "BlockSize"},
}

func containsPair(ps []primSize, p primSize) bool {
	for _, q := range ps {
		if q.Key == p.Key && q.Nonce == p.Nonce {
			return true
		}
	}
	return false
}

func appendNew(s []int, v int) []int {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func dedupInts(s []int) []int {
	var out []int
	for _, v := range s {
		out = appendNew(out, v)
	}
	sort.Ints(out)
	return out
}

// familyChanges returns a Cipher with a setup mismatch for each constructor whose family differs between the sides
// (a block cipher on base that returns a stream on head): nothing of it can be compared.
func familyChanges(sides [2]*side, common []string) []Cipher {
	var out []Cipher
	for _, n := range common {
		b, h := findCtor(sides[0].info, n), findCtor(sides[1].info, n)
		if b.Family == h.Family {
			continue
		}
		note := fmt.Sprintf("base returns %s (%s), head returns %s (%s)", b.Type, b.Family, h.Type, h.Family)
		out = append(out, Cipher{Name: n, Family: h.Family, Type: h.Type, KeySizes: []int{}, Mismatches: 1,
			Examples: []Mismatch{{Constructor: n, Block: -1, Direction: "setup", Method: n, Part: "setup", Note: note}},
			Notes:    []string{"the constructor changed family: nothing compared"}})
	}
	return out
}

// addCiphers appends the AEAD, stream and hash Ciphers (compared) to the report and settles its status: a
// mismatch anywhere is a mismatch; head's inconsistencies are named in the reason.
func (r *Report) addCiphers(cs []Cipher) {
	if len(cs) == 0 {
		return
	}
	r.Ciphers = append(r.Ciphers, cs...)
	if r.Status == "" {
		r.Status = record.DiffIdentical
	}
	var bad, inconsistent []string
	for _, c := range cs {
		if c.Mismatches > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d", c.Name, c.Mismatches))
		}
		if c.InconsistentHead > 0 {
			var parts []string
			for _, in := range c.Inconsistencies {
				if in.Side == record.Head && !slices.Contains(parts, in.Part) {
					parts = append(parts, in.Part)
				}
			}
			inconsistent = append(inconsistent, fmt.Sprintf("%s: %d, %s", c.Name, c.InconsistentHead,
				strings.Join(parts, ", ")))
		}
	}
	var reasons []string
	if r.Reason != "" {
		reasons = append(reasons, r.Reason)
	}
	if len(bad) > 0 {
		r.Status = record.DiffMismatch
		reasons = append(reasons, "outputs differ ("+strings.Join(bad, ", ")+")")
	}
	if len(inconsistent) > 0 {
		reasons = append(reasons, "head disagrees with itself ("+strings.Join(inconsistent, "; ")+")")
	}
	r.Reason = strings.Join(reasons, "; ")
}
