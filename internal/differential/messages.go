package differential

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/perfgate/perfgate/internal/differential/vectors"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// Defaults of Config for the message families (AEAD, stream, hash, one-shot).
const (
	DefaultMessageKeys   = DefaultKeys // keys per key size
	DefaultMessageBlocks = 8           // messages go up to this many blocks
)

// maxPrimSizes is how many (key size, nonce size) pairs of one constructor are compared at most; a
// constructor that accepts more (an RC4 takes every key size, a MAC every key length) is compared
// at an even spread of them, always including the smallest and the largest.
const maxPrimSizes = 8

// adLengths are the additional-data lengths AEAD cases cycle through.
var adLengths = []int{0, 1, 13, 16, 17, 32, 65}

// A messageFamily is a family whose inputs are messages (an AEAD, a stream cipher, a hash, a
// one-shot function): for every size both sides accept (at most maxPrimSizes, spread evenly),
// MessageKeys keys (vectors.MessageKeys), each with random messages of the lengths
// vectors.KeyLengths gives it, written in random chunks.
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

// msgCase is one message and what goes with it: the AEAD's nonce and additional data, the chunks
// the message is written in, and the bit flipped for the tampered Open.
type msgCase struct {
	msg, nonce, ad []byte
	chunks         []int
	tamperAt       uint32
	tamperMask     byte
}

// lightKeys is how many keys each size pair beyond the maxPrimSizes compared in full gets, none of
// them with every length: enough for a bug tied to the key's length (a 17-byte key used as 16).
const lightKeys = 16

// newMsgJob generates the inputs of one constructor at one size pair, from its own stream
// (vectors.Rand): nKeys keys (vectors.MessageKeys), each with its messages (vectors.KeyLengths),
// every length for the first sweep.
func newMsgJob(seed uint64, ctor string, family messageFamily, p probeSize, nKeys, sweep int,
	lengths []int) *msgJob {
	src := vectors.Rand(seed, ctor+"\x00nonce "+strconv.Itoa(p.Nonce), p.Key)
	r := rand.New(src)
	j := &msgJob{ctor: ctor, family: family, keySize: p.Key, nonceSize: p.Nonce}
	random := func(n int) []byte {
		b := make([]byte, n)
		src.Read(b)
		return b
	}
	block := family.block(p)
	keys := vectors.MessageKeys(src, p.Key, nKeys)
	for k, key := range keys {
		pk := msgKey{key: key, nonce: random(p.Nonce)}
		for i, n := range vectors.KeyLengths(lengths, k, sweep, len(keys)) {
			c := msgCase{msg: random(n), chunks: vectors.Chunks(r, n, block), tamperAt: r.Uint32(),
				tamperMask: 1 << r.IntN(8)}
			if family.sealed() {
				c.nonce = random(p.NonceSize)
				c.ad = random(adLengths[(i+k)%len(adLengths)])
			}
			pk.cases = append(pk.cases, c)
		}
		j.keys = append(j.keys, pk)
	}
	return j
}

// inputs is how many messages the job holds.
func (j *msgJob) inputs() int {
	n := 0
	for _, k := range j.keys {
		n += len(k.cases)
	}
	return n
}

// encode writes the job in the layout
//
//	u16(keySize) u16(nonceSize) u32(keys)
//	per key:  key  nonce  u32(cases)
//	per case: u32(len) message  u16(len) nonce  u32(len) additional data  u16(chunks) {u32(chunk)}
//	          u32(tamper offset) u8(tamper mask)
func (j *msgJob) encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(j.keySize))
	b = binary.BigEndian.AppendUint16(b, uint16(j.nonceSize))
	b = binary.BigEndian.AppendUint32(b, uint32(len(j.keys)))
	for _, k := range j.keys {
		b = append(b, k.key...)
		b = append(b, k.nonce...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(k.cases)))
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

// planMessages compares what the two sides accept of in, a constructor of the message family f, and
// returns its Cipher and jobs; nil when a derived instance is accepted by neither side (a block
// cipher that cannot be GCM).
func planMessages(cfg *Config, f messageFamily, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	if len(probes[0])+len(probes[1]) == 0 && in.derived {
		return nil, nil
	}
	c, pairs := comparePrimSizes(in.name, f, in.typ, probes)
	var jobs []job
	for _, p := range pairs {
		lengths := vectors.MessageLengths(f.block(p), cfg.MessageBlocks)
		keys, sweep := cfg.MessageKeys, vectors.SweepKeys
		if p.light {
			keys, sweep = min(keys, lightKeys), 0
		}
		j := newMsgJob(cfg.Seed, in.name, f, p, keys, sweep, lengths)
		c.Lengths = lengths
		c.Keys = max(c.Keys, len(j.keys))
		c.Inputs += j.inputs()
		jobs = append(jobs, j)
	}
	return &c, jobs
}

// comparePrimSizes compares what the two sides accept and report about themselves, and returns the
// Cipher with its sizes and setup mismatches, and the size pairs to compare (base's view of each).
func comparePrimSizes(name string, f messageFamily, typ string, sizes [2]map[sizeKey]probeSize) (record.Cipher,
	[]probeSize) {
	c := planned{Name: name, Family: f.kind(), Type: typ, KeySizes: []int{}, Methods: f.methods()}
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
	panics := map[string][]int{}
	for _, k := range all {
		b, inB := sizes[0][k]
		h, inH := sizes[1][k]
		switch {
		case b.Panic != "" && h.Panic != "":
			panics[h.Panic] = append(panics[h.Panic], k.key)
		case inB && inH && (b.Panic != "" || h.Panic != ""):
			c.setup(k, "setup", sizeText(k)+": base: "+b.text()+"; head: "+h.text())
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, k.key)
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, k.key)
		default:
			if part, note := describeDiffers(b, h); part != "" {
				c.setup(k, part, sizeText(k)+": "+note)
				continue
			}
			pairs = append(pairs, b)
		}
	}
	c.Notes = append(c.Notes, panicNotes(panics)...)
	pairs = c.sizesThatMatter(pairs, sizes[1])
	pairs = c.spread(pairs)
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
	return record.Cipher(c), pairs
}

// planned is a Cipher being planned.
type planned record.Cipher

// setup records a setup mismatch at size k.
func (c *planned) setup(k sizeKey, part, note string) {
	c.Mismatches++
	if len(c.Examples) < MaxExamples {
		c.Examples = append(c.Examples, record.Mismatch{Constructor: c.Name, KeySize: k.key, Block: -1,
			Direction: "setup", Method: c.Name, Part: part, Note: note})
	}
}

func sizeText(k sizeKey) string {
	what := fmt.Sprintf("%d-byte key", k.key)
	if k.nonce > 0 {
		what += fmt.Sprintf(", %d-byte nonce", k.nonce)
	}
	return what
}

// describeDiffers says what differs between what the two sides' results report of themselves, if
// anything.
func describeDiffers(b, h probeSize) (part, note string) {
	for _, d := range []struct {
		part, method string
		b, h         int
	}{
		{"nonce size", "NonceSize", b.NonceSize, h.NonceSize},
		{"overhead", "Overhead", b.Overhead, h.Overhead},
		{"size", "Size", b.Size, h.Size},
		{"block size", "BlockSize", b.BlockSize, h.BlockSize},
	} {
		if d.b != d.h {
			return d.part, fmt.Sprintf("%s base %d, head %d", d.method, d.b, d.h)
		}
	}
	return "", ""
}

// panicNotes is one note per panic message, its numbers aside (an index out of range names the key
// size): the key sizes that panic on both sides with it, and the message of the smallest.
func panicNotes(panics map[string][]int) []string {
	type group struct {
		sizes []int
		first string
	}
	groups := map[string]*group{}
	for msg, sizes := range panics {
		k := digits.ReplaceAllString(msg, "N")
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
		}
		for _, n := range sizes {
			if len(g.sizes) == 0 || n < slices.Min(g.sizes) {
				g.first = msg
			}
			g.sizes = append(g.sizes, n)
		}
	}
	var notes []string
	for _, g := range groups {
		sizes := dedupInts(g.sizes)
		if len(sizes) == 1 {
			notes = append(notes, fmt.Sprintf("%d-byte key panics on both sides: %s", sizes[0], g.first))
			continue
		}
		notes = append(notes, fmt.Sprintf("%d key sizes (%s bytes) panic on both sides, the %d-byte key with: %s",
			len(sizes), sizeRanges(sizes), sizes[0], g.first))
	}
	sort.Strings(notes)
	return notes
}

var digits = regexp.MustCompile(`[0-9]+`)

// sizeRanges writes sorted sizes as ranges: "1–15, 17, 65" (text.Ranges).
func sizeRanges(sizes []int) string { return text.Ranges(sizes) }

// sizesThatMatter drops the key sizes at which the constructor reads only a prefix of its key, on
// both sides alike (siphash reads 16 bytes of a longer key): of those, only the largest is
// compared, and a note says so once. head holds head's probe, by size.
func (c *planned) sizesThatMatter(pairs []probeSize, head map[sizeKey]probeSize) []probeSize {
	longest := map[[2]int]int{} // (bytes read, nonce) → the largest key size that reads only them
	longer := map[[2]int][]int{}
	for _, p := range pairs {
		h := head[sizeKey{p.Key, p.Nonce}]
		if p.Reads == nil || h.Reads == nil || *p.Reads != *h.Reads || *p.Reads >= p.Key {
			continue
		}
		k := [2]int{*p.Reads, p.Nonce}
		longest[k] = max(longest[k], p.Key)
		longer[k] = append(longer[k], p.Key)
	}
	var kept []probeSize
	for _, p := range pairs {
		if p.Reads != nil {
			if l, ok := longest[[2]int{*p.Reads, p.Nonce}]; ok && *p.Reads < p.Key && p.Key != l {
				continue
			}
		}
		kept = append(kept, p)
	}
	var notes []string
	for k, sizes := range longer {
		notes = append(notes, fmt.Sprintf("reads %d bytes of a longer key (%s bytes): compared at %d only",
			k[0], sizeRanges(dedupInts(sizes)), longest[k]))
	}
	sort.Strings(notes)
	c.Notes = append(c.Notes, notes...)
	return kept
}

// spread compares at most maxPrimSizes of the pairs in full, evenly spread, the smallest and the
// largest among them; the others are marked light, to be compared with lightKeys keys.
func (c *planned) spread(pairs []probeSize) []probeSize {
	if len(pairs) <= maxPrimSizes {
		return pairs
	}
	var light []int
	picked := make([]probeSize, 0, maxPrimSizes)
	for i := range maxPrimSizes {
		picked = append(picked, pairs[i*(len(pairs)-1)/(maxPrimSizes-1)])
	}
	out := make([]probeSize, 0, len(pairs))
	for _, p := range pairs {
		if !containsPair(picked, p) {
			p.light = true
			light = append(light, p.Key)
		}
		out = append(out, p)
	}
	c.Notes = append(c.Notes, fmt.Sprintf("%d size pairs accepted by both sides: %d compared in full, the other "+
		"%d (key sizes %s) with %d keys each", len(pairs), maxPrimSizes, len(pairs)-maxPrimSizes,
		sizeRanges(dedupInts(light)), lightKeys))
	return out
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

// dedupInts returns the distinct values of s in increasing order.
func dedupInts(s []int) []int { return slices.Compact(slices.Sorted(slices.Values(s))) }
