package differential

import (
	"bytes"
	"fmt"
	"go/types"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/record"
)

// hashFamily is the hashes and MACs: constructors func() or func(key []byte) returning T or (T,
// error) with T a hash.Hash. Each message is written in the case's chunks, summed twice, the hash
// Reset, the message written at once and summed; a new hash sums the message written at once.
type hashFamily struct{}

// Outputs per case: Sum after Write in chunks, Sum(a5) after that, Sum after Reset and one Write,
// Sum of a fresh hash.
const hashChunks, hashSumAgain, hashReset, hashOnce = 0, 1, 2, 3

// hashIface is hash.Hash.
var hashIface = types.NewInterfaceType([]*types.Func{
	method("BlockSize", nil, intType),
	method("Reset", nil),
	method("Size", nil, intType),
	method("Sum", byteParams("b"), byteSlice),
	method("Write", byteParams("p"), intType, errorType),
}, nil).Complete()

func (hashFamily) kind() record.Family     { return record.FamilyHash }
func (hashFamily) directions() []string    { return []string{"sum"} }
func (hashFamily) methods() []string       { return []string{"Write", "Sum", "Reset", "Size", "BlockSize"} }
func (hashFamily) outputs() int            { return 4 }
func (hashFamily) sealed() bool            { return false }
func (hashFamily) outputDirection(int) int { return 0 }

// block is the hash's own BlockSize, or 64 when it reports none of a sensible size.
func (hashFamily) block(p probeSize) int {
	if p.BlockSize > 0 && p.BlockSize <= 256 {
		return p.BlockSize
	}
	return 64
}

func (hashFamily) shape() string {
	return "func([key []byte]) T or (T, error) with T a hash.Hash"
}

func (hashFamily) match(fn *types.Func, sig *types.Signature) (ctor, bool, string) {
	c, _, ok, why := ifaceCtor(fn, sig, record.FamilyHash, hashIface, [3]bool{0: true, 1: true}, false)
	return c, ok, why
}

func (hashFamily) entries(c ctor) []string {
	if c.Family != record.FamilyHash {
		return nil
	}
	keyHi := harness.MaxKeySize
	if c.Args == 0 {
		keyHi = 0
	}
	return []string{wrapEntry(c, c.Name, 0, keyHi, 0, "hashMaker", "hash.Hash", [3]string{"", "key", ""}[c.Args],
		"%s, nil")}
}

func (f hashFamily) instances(b, h *ctor) []instance { return ownInstance(f, b, h) }

func (f hashFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	return planMessages(cfg, f, in, probes)
}

// compareCase records at most one mismatch per case (the digest of one Write, else of the chunks,
// after Reset, of Sum(a5)), and each side's inconsistencies: chunks against one Write, Sum(a5)
// against a5 and the digest, Reset against a new hash.
func (hashFamily) compareCase(t *tally, j *msgJob, k *msgKey, c *msgCase, b, h [][]byte) {
	m := caseMismatch(j, k, c)
	differ := func(i int) bool { return !bytes.Equal(b[i], h[i]) }
	switch {
	case differ(hashOnce):
		part, note := firstDifference("digest", b[hashOnce], h[hashOnce])
		reportCase(t, m, b, h, hashOnce, "sum", "Sum", part, note)
	case differ(hashChunks):
		m.Chunks = c.chunks
		reportCase(t, m, b, h, hashChunks, "sum", "Write", "chunk boundary", "digests differ when the message "+
			"is written in chunks "+fmt.Sprint(c.chunks))
	case differ(hashReset):
		reportCase(t, m, b, h, hashReset, "sum", "Reset", "reset", "digests differ after Reset and one Write")
	case differ(hashSumAgain):
		reportCase(t, m, b, h, hashSumAgain, "sum", "Sum", "sum", "Sum(a5) after Sum(nil) differs")
	}
	for s, o := range [2][][]byte{b, h} {
		check := func(ok bool, method, part, note string, ref, got []byte) {
			if !ok {
				msgInconsistent(t, s, record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "sum",
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

func (hashFamily) harness() string { return harness.Hash }
