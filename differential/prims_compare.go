package differential

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/perfgate/perfgate/record"
)

// Outputs per case, by family, in the order the harness writes them (see primsSource).
const (
	aeadSeal, aeadOpen, aeadTampered              = 0, 1, 2
	streamOnce, streamChunks                      = 0, 1
	hashChunks, hashSumAgain, hashReset, hashOnce = 0, 1, 2, 3
)

// familyOutputs is how many outputs each case of a family has; familyDirections names the digests of Cipher.Digests
// and which output goes into which.
var (
	familyOutputs    = map[Family]int{FamilyAEAD: 3, FamilyStream: 2, FamilyHash: 4}
	familyDirections = map[Family][]string{FamilyAEAD: {"seal", "open"}, FamilyStream: {"xor"}, FamilyHash: {"sum"}}
)

func outputDirection(family Family, out int) int {
	if family == FamilyAEAD && out > aeadSeal {
		return 1
	}
	return 0
}

// primTally accumulates one constructor's comparison across its size pairs.
type primTally struct {
	c   *Cipher
	dir [2][]hash.Hash // [side][direction]
	all [2]hash.Hash
}

func newPrimTally(c *Cipher) *primTally {
	t := &primTally{c: c}
	for s := range 2 {
		t.all[s] = sha256.New()
		for range familyDirections[c.Family] {
			t.dir[s] = append(t.dir[s], sha256.New())
		}
	}
	return t
}

func (t *primTally) finish() {
	sum := func(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
	t.c.DigestBase, t.c.DigestHead = sum(t.all[0]), sum(t.all[1])
	t.c.Digests = nil
	for d, name := range familyDirections[t.c.Family] {
		t.c.Digests = append(t.c.Digests, Digest{Direction: name, Base: sum(t.dir[0][d]), Head: sum(t.dir[1][d])})
	}
}

func (t *primTally) mismatch(m Mismatch) {
	t.c.Mismatches++
	if len(t.c.Examples) < MaxExamples {
		t.c.Examples = append(t.c.Examples, m)
	}
}

func (t *primTally) inconsistent(side int, in Inconsistency) {
	if side == 0 {
		t.c.InconsistentBase++
	} else {
		t.c.InconsistentHead++
	}
	if len(t.c.Inconsistencies) < MaxExamples {
		in.Side = [2]record.Side{record.Base, record.Head}[side]
		in.Constructor = t.c.Name
		in.Block = -1
		t.c.Inconsistencies = append(t.c.Inconsistencies, in)
	}
}

// compareJob reads one job's outputs from both sides, hashes them, and records the cases that differ between
// base and head, and the cases where a side disagrees with itself (chunked against one call, Open against Seal).
func (t *primTally) compareJob(j *primJob, base, head *outReader) error {
	nOut := familyOutputs[j.family]
	for _, k := range j.keys {
		var status [2][]byte
		for s, r := range []*outReader{base, head} {
			var err error
			if status[s], err = r.field(); err != nil {
				return err
			}
			t.all[s].Write(status[s])
		}
		var outs [2][][][]byte // [side][case][output]
		for s, r := range []*outReader{base, head} {
			if len(status[s]) > 0 {
				continue
			}
			for range k.cases {
				var o [][]byte
				for i := range nOut {
					f, err := r.field()
					if err != nil {
						return err
					}
					o = append(o, f)
					t.all[s].Write(f)
					t.dir[s][outputDirection(j.family, i)].Write(f)
				}
				outs[s] = append(outs[s], o)
			}
		}
		if !bytes.Equal(status[0], status[1]) {
			t.mismatch(Mismatch{Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Nonce: k.nonce, Block: -1,
				Direction: "setup", Method: j.ctor, Part: "setup",
				Note: "base: " + keyStatus(status[0]) + "; head: " + keyStatus(status[1])})
			continue
		}
		if len(status[0]) > 0 {
			continue
		}
		for ci := range k.cases {
			t.compareCase(j, &k, &k.cases[ci], outs[0][ci], outs[1][ci])
		}
	}
	return nil
}

func keyStatus(b []byte) string {
	if len(b) == 0 {
		return "key accepted"
	}
	return "constructor error: " + string(b)
}

// compareCase records at most one mismatch per case (the first output that differs, in the order that names the
// cause best), a head that accepts a forgery, and each side's inconsistencies.
func (t *primTally) compareCase(j *primJob, k *primKey, c *primCase, b, h [][]byte) {
	m := Mismatch{Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: -1, Input: c.msg, Length: len(c.msg),
		Nonce: k.nonce, AD: c.ad}
	if j.family == FamilyAEAD {
		m.Nonce = c.nonce
	}
	differ := func(i int) bool { return !bytes.Equal(b[i], h[i]) }
	report := func(i int, dir, method, part, note string) {
		m.Direction, m.Method, m.Part, m.Note, m.Base, m.Head = dir, method, part, note, b[i], h[i]
		t.mismatch(m)
	}
	sides := [2][][]byte{b, h}
	switch j.family {
	case FamilyAEAD:
		switch {
		case differ(aeadSeal):
			part, note := sealDifference(len(c.msg), b[aeadSeal], h[aeadSeal])
			report(aeadSeal, "seal", "Seal", part, note)
		case differ(aeadOpen):
			report(aeadOpen, "open", "Open", "open", "Open of the sealed message: base "+openText(b[aeadOpen])+
				", head "+openText(h[aeadOpen]))
		}
		if h[aeadTampered][0] == 1 {
			report(aeadTampered, "open", "Open", "forgery", fmt.Sprintf("head's Open accepted the ciphertext "+
				"with byte %d XOR %#02x (base: %s)", int(c.tamperAt%uint32(len(h[aeadSeal]))), c.tamperMask,
				map[byte]string{0: "rejected", 1: "accepted"}[b[aeadTampered][0]]))
		}
		for s, o := range sides {
			if !bytes.Equal(o[aeadOpen], append([]byte{0}, c.msg...)) {
				t.inconsistent(s, Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "open", Method: "Open",
					Input: c.msg, Single: c.msg, Batch: o[aeadOpen], Part: "round trip", Length: len(c.msg),
					Note: "Open of Seal's output: " + openText(o[aeadOpen])})
			}
			if s == 0 && o[aeadTampered][0] == 1 {
				t.inconsistent(s, Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "open", Method: "Open",
					Input: c.msg, Part: "forgery", Length: len(c.msg),
					Note: "base's Open accepted a ciphertext with one bit flipped"})
			}
		}
	case FamilyStream:
		switch {
		case differ(streamOnce):
			part, note := firstDifference("keystream", b[streamOnce], h[streamOnce])
			report(streamOnce, "xor", "XORKeyStream", part, note)
		case differ(streamChunks):
			m.Chunks = c.chunks
			_, note := firstDifference("output", b[streamChunks], h[streamChunks])
			report(streamChunks, "xor", "XORKeyStream", "chunk boundary", note+" when written in chunks "+
				chunkAt(c.chunks, firstDiff(b[streamChunks], h[streamChunks])))
		}
		for s, o := range sides {
			if !bytes.Equal(o[streamOnce], o[streamChunks]) {
				at := firstDiff(o[streamOnce], o[streamChunks])
				t.inconsistent(s, Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "xor",
					Method: "XORKeyStream", Input: c.msg, Single: o[streamOnce], Batch: o[streamChunks],
					Part: "chunk boundary", Length: len(c.msg), Chunks: c.chunks,
					Note: fmt.Sprintf("in chunks, the output differs from one call from byte %d, %s", at,
						chunkAt(c.chunks, at))})
			}
		}
	case FamilyHash:
		switch {
		case differ(hashOnce):
			part, note := firstDifference("digest", b[hashOnce], h[hashOnce])
			report(hashOnce, "sum", "Sum", part, note)
		case differ(hashChunks):
			m.Chunks = c.chunks
			report(hashChunks, "sum", "Write", "chunk boundary", "digests differ when the message is written "+
				"in chunks "+fmt.Sprint(c.chunks))
		case differ(hashReset):
			report(hashReset, "sum", "Reset", "reset", "digests differ after Reset and one Write")
		case differ(hashSumAgain):
			report(hashSumAgain, "sum", "Sum", "sum", "Sum(a5) after Sum(nil) differs")
		}
		for s, o := range sides {
			check := func(ok bool, method, part, note string, ref, got []byte) {
				if !ok {
					t.inconsistent(s, Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "sum",
						Method: method, Input: c.msg, Single: ref, Batch: got, Part: part, Length: len(c.msg),
						Chunks: c.chunks, Note: note})
				}
			}
			check(bytes.Equal(o[hashChunks], o[hashOnce]), "Write", "chunk boundary",
				"the digest of the message written in chunks differs from that of one Write",
				o[hashOnce], o[hashChunks])
			check(bytes.Equal(o[hashSumAgain], append([]byte{0xa5}, o[hashChunks]...)), "Sum", "sum",
				"Sum(a5) does not append the same digest to a5: Sum changed the state or ignores its argument",
				append([]byte{0xa5}, o[hashChunks]...), o[hashSumAgain])
			check(bytes.Equal(o[hashReset], o[hashOnce]), "Reset", "reset",
				"after Reset, the digest differs from that of a new hash", o[hashOnce], o[hashReset])
		}
	}
}

// sealDifference says what differs between two Seal outputs of a message of n bytes: their length, the
// ciphertext (the first n bytes) or the tag.
func sealDifference(n int, b, h []byte) (part, note string) {
	if len(b) != len(h) {
		return "length", fmt.Sprintf("ciphertext and tag: base %d bytes, head %d", len(b), len(h))
	}
	at := firstDiff(b, h)
	if at < n {
		return "ciphertext", fmt.Sprintf("ciphertext differs from byte %d of %d", at, n)
	}
	return "tag", fmt.Sprintf("ciphertext identical, tag differs from its byte %d", at-n)
}

// firstDifference describes two outputs that differ; what ("keystream", "digest") is also the part, unless their
// lengths differ.
func firstDifference(what string, b, h []byte) (part, note string) {
	if len(b) != len(h) {
		return "length", fmt.Sprintf("%s: base %d bytes, head %d", what, len(b), len(h))
	}
	return what, fmt.Sprintf("%s differs from byte %d of %d", what, firstDiff(b, h), len(b))
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// chunkAt describes where byte at falls among the chunks.
func chunkAt(chunks []int, at int) string {
	off := 0
	for i, n := range chunks {
		if at < off+n {
			return fmt.Sprintf("%v: in chunk %d (bytes %d to %d), %d bytes after its start", chunks, i, off,
				off+n-1, at-off)
		}
		off += n
	}
	return fmt.Sprint(chunks)
}

func openText(o []byte) string {
	if len(o) > 0 && o[0] == 0 {
		return fmt.Sprintf("opened, %d bytes", len(o)-1)
	}
	return "failed"
}

// comparePrims reads both sides' -primitives outputs job by job into the ciphers.
func comparePrims(ciphers []Cipher, jobs []*primJob, outs [2][]byte) error {
	base, head := &outReader{side: "base", b: outs[0]}, &outReader{side: "head", b: outs[1]}
	tallies := map[string]*primTally{}
	for i := range ciphers {
		tallies[ciphers[i].Name] = newPrimTally(&ciphers[i])
	}
	for _, j := range jobs {
		if err := tallies[j.ctor].compareJob(j, base, head); err != nil {
			return err
		}
	}
	for _, r := range []*outReader{base, head} {
		if err := r.end(); err != nil {
			return err
		}
	}
	for i := range ciphers {
		tallies[ciphers[i].Name].finish()
	}
	return nil
}
