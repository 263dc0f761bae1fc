package differential

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
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

// A messageFamily is a family whose inputs are messages (an AEAD, a stream cipher, a hash, a one-shot
// function): for every size both sides accept (at most maxPrimSizes, spread evenly), MessageKeys keys, and for
// each key one random message of every length of messageLengths, written in random chunks (some empty).
type messageFamily interface {
	family
	block(p probeSize) int     // the block size that message lengths are laid around
	outputs() int              // how many outputs the harness writes per case
	outputDirection(i int) int // which digest of directions() output i goes into
	methods() []string         // the methods the check calls, for Cipher.Methods
	sealed() bool              // cases carry a nonce and additional data (an AEAD)
	compareCase(t *tally, j *msgJob, k *msgKey, c *msgCase, b, h [][]byte)
}

// A msgJob is one message-family constructor at one key size (and constructor nonce size).
type msgJob struct {
	ctor               string
	family             messageFamily
	keySize, nonceSize int // nonceSize: the constructor's nonce argument (streams func(key, nonce))
	keys               []msgKey
}

func (j *msgJob) ctorName() string { return j.ctor }

// msgKey is one key, the constructor's nonce, and one case per message length.
type msgKey struct {
	key, nonce []byte
	cases      []msgCase
}

// msgCase is one message and what goes with it: the AEAD's nonce and additional data, the chunks the message
// is written in, and the bit flipped for the tampered Open.
type msgCase struct {
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

// newMsgJob generates the inputs of one constructor at one size pair, from its own stream (newRand).
func newMsgJob(seed uint64, ctor string, family messageFamily, p probeSize, nKeys int, lengths []int) *msgJob {
	src := newRand(seed, ctor+"\x00nonce "+strconv.Itoa(p.Nonce), p.Key)
	r := rand.New(src)
	j := &msgJob{ctor: ctor, family: family, keySize: p.Key, nonceSize: p.Nonce}
	bytes := func(n int) []byte {
		b := make([]byte, n)
		src.Read(b)
		return b
	}
	block := family.block(p)
	for k := range nKeys {
		pk := msgKey{key: bytes(p.Key), nonce: bytes(p.Nonce)}
		if k == 0 {
			clear(pk.key) // the all-zero key
		}
		for i, n := range lengths {
			c := msgCase{msg: bytes(n), chunks: randomChunks(r, n, block), tamperAt: r.Uint32(),
				tamperMask: 1 << r.IntN(8)}
			if family.sealed() {
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

// encode writes the job in the layout
//
//	u16(keySize) u16(nonceSize) u32(keys) u32(cases per key)
//	per key:  key  nonce
//	per case: u32(len) message  u16(len) nonce  u32(len) additional data  u16(chunks) {u32(chunk)}
//	          u32(tamper offset) u8(tamper mask)
func (j *msgJob) encode(b []byte) []byte {
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
	return b
}

// planMessages compares what the two sides accept of in, a constructor of the message family f, and returns its
// Cipher and jobs; nil when a derived instance is accepted by neither side (a block cipher that cannot be GCM).
func planMessages(cfg *Config, f messageFamily, in instance, probes [2]map[sizeKey]probeSize) (*Cipher, []job) {
	if len(probes[0])+len(probes[1]) == 0 && in.derived {
		return nil, nil
	}
	c, pairs := comparePrimSizes(in.name, f, in.typ, probes)
	c.Keys = cfg.MessageKeys
	var jobs []job
	for _, p := range pairs {
		lengths := messageLengths(f.block(p), cfg.MessageBlocks)
		c.Lengths = lengths
		c.Inputs += cfg.MessageKeys * len(lengths)
		jobs = append(jobs, newMsgJob(cfg.Seed, in.name, f, p, cfg.MessageKeys, lengths))
	}
	return &c, jobs
}

// comparePrimSizes compares what the two sides accept and report about themselves, and returns the Cipher with
// its sizes and setup mismatches, and the size pairs to compare (base's view of each).
func comparePrimSizes(name string, f messageFamily, typ string, sizes [2]map[sizeKey]probeSize) (Cipher, []probeSize) {
	c := Cipher{Name: name, Family: f.kind(), Type: typ, KeySizes: []int{}, Methods: f.methods()}
	var all []sizeKey
	for i := range sizes {
		for k := range sizes[i] {
			if _, dup := sizes[1-i][k]; !dup || i == 0 {
				all = append(all, k)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].key < all[j].key || all[i].key == all[j].key && all[i].nonce < all[j].nonce
	})
	var pairs []probeSize
	setup := func(k sizeKey, part, note string) {
		c.Mismatches++
		if len(c.Examples) < MaxExamples {
			c.Examples = append(c.Examples, Mismatch{Constructor: name, KeySize: k.key, Block: -1,
				Direction: "setup", Method: name, Part: part, Note: note})
		}
	}
	for _, k := range all {
		b, inB := sizes[0][k]
		h, inH := sizes[1][k]
		what := fmt.Sprintf("%d-byte key", k.key)
		if k.nonce > 0 {
			what += fmt.Sprintf(", %d-byte nonce", k.nonce)
		}
		switch {
		case b.Panic != "" && h.Panic != "":
			c.Notes = append(c.Notes, what+" panics on both sides: "+h.Panic)
		case inB && inH && (b.Panic != "" || h.Panic != ""):
			setup(k, "setup", what+": base: "+b.text()+"; head: "+h.text())
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, k.key)
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, k.key)
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
		picked := make([]probeSize, 0, maxPrimSizes)
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

func containsPair(ps []probeSize, p probeSize) bool {
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

// messagesHarness is the harness file the message families share: the job loop and the cases.
const messagesHarness = `import "bufio"

type msgCase struct {
	msg, nonce, ad []byte
	chunks         []int
	tamperAt       int
	tamperMask     byte
}

func (in *input) msgCase() msgCase {
	var c msgCase
	c.msg = in.u32len()
	c.nonce = in.next(in.u16())
	c.ad = in.u32len()
	for n := in.u16(); n > 0; n-- {
		c.chunks = append(c.chunks, in.u32())
	}
	c.tamperAt = in.u32()
	c.tamperMask = in.next(1)[0]
	return c
}

// A maker is a message family's constructor: probe is the entry's probe, run writes the outputs of one key's
// cases, or returns the constructor's error before writing anything.
type maker interface {
	probe(key, nonce []byte) (probeSize, bool)
	run(w *bufio.Writer, key, nonce []byte, cs []msgCase) error
}

// messageEntry is the entry of a message family's constructor, whose jobs runMessages runs.
func messageEntry(m maker) entryFuncs {
	return entryFuncs{probe: m.probe, run: func(in *input, w *bufio.Writer) { runMessages(in, w, m.run) }}
}

// runMessages reads one job of a message family and runs perKey on every key. Per key, perKey writes an empty
// field and the outputs of every case, or returns the constructor's error before writing anything.
func runMessages(in *input, w *bufio.Writer, perKey func(w *bufio.Writer, key, nonce []byte, cs []msgCase) error) {
	keySize, nonceSize, keys, cases := in.u16(), in.u16(), in.u32(), in.u32()
	for ; keys > 0; keys-- {
		key, nonce := in.next(keySize), in.next(nonceSize)
		cs := make([]msgCase, cases)
		for i := range cs {
			cs[i] = in.msgCase()
		}
		where.key, where.op = key, "constructor"
		if err := perKey(w, key, nonce, cs); err != nil {
			field(w, []byte(errorText(err)))
		}
	}
}
`
