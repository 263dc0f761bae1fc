package differential

import (
	"bytes"
	"fmt"
	"go/types"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/record"
)

// streamFamily is the stream ciphers: constructors func(key []byte) or func(key, nonce []byte)
// returning T or (T, error) with T a crypto/cipher.Stream. Each message is XORed in one call, and
// by a second stream in the case's chunks; both again in place (dst == src).
type streamFamily struct{}

// Outputs per case: XORKeyStream in one call, in the case's chunks, and both again in place (dst ==
// src).
const streamOnce, streamChunks, streamInPlace, streamInPlaceChunks = 0, 1, 2, 3

// streamIface is crypto/cipher.Stream.
var streamIface = types.NewInterfaceType([]*types.Func{
	method("XORKeyStream", byteParams("dst", "src")),
}, nil).Complete()

func (streamFamily) kind() record.Family     { return record.FamilyStream }
func (streamFamily) directions() []string    { return []string{"xor"} }
func (streamFamily) methods() []string       { return []string{"XORKeyStream"} }
func (streamFamily) outputs() int            { return 4 }
func (streamFamily) sealed() bool            { return false }
func (streamFamily) outputDirection(int) int { return 0 }

// block is 64: ChaCha20, Salsa20, and four AES-CTR blocks.
func (streamFamily) block(probeSize) int { return 64 }

func (streamFamily) shape() string {
	return "func(key[, nonce] []byte) T or (T, error) with T a crypto/cipher.Stream"
}

func (streamFamily) match(fn *types.Func, sig *types.Signature) (ctor, bool, string) {
	c, _, ok, why := ifaceCtor(fn, sig, record.FamilyStream, streamIface, [3]bool{1: true, 2: true}, false)
	return c, ok, why
}

func (streamFamily) entries(c ctor) []string {
	if c.Family != record.FamilyStream {
		return nil
	}
	nonceHi := 0
	if c.Args == 2 {
		nonceHi = harness.MaxNonceSize
	}
	return []string{wrapEntry(c, c.Name, 1, harness.MaxKeySize, nonceHi, "streamMaker", "cipher.Stream",
		[3]string{"", "key", "key, nonce"}[c.Args], "%s, nil")}
}

func (f streamFamily) instances(b, h *ctor) []instance { return ownInstance(f, b, h) }

func (f streamFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	return planMessages(cfg, f, in, probes)
}

// compareCase records at most one mismatch per case (the keystream, else the chunked output), and
// each side's chunked output that differs from its output in one call.
func (streamFamily) compareCase(t *tally, j *msgJob, k *msgKey, c *msgCase, b, h [][]byte) {
	m := caseMismatch(j, k, c)
	switch {
	case !bytes.Equal(b[streamOnce], h[streamOnce]):
		part, note := firstDifference("keystream", b[streamOnce], h[streamOnce])
		reportCase(t, m, b, h, streamOnce, "xor", "XORKeyStream", part, note)
	case !bytes.Equal(b[streamChunks], h[streamChunks]):
		m.Chunks = c.chunks
		_, note := firstDifference("output", b[streamChunks], h[streamChunks])
		reportCase(t, m, b, h, streamChunks, "xor", "XORKeyStream", "chunk boundary", note+
			" when written in chunks "+chunkAt(c.chunks, firstDiff(b[streamChunks], h[streamChunks])))
	case !bytes.Equal(b[streamInPlace], h[streamInPlace]):
		_, note := firstDifference("output", b[streamInPlace], h[streamInPlace])
		reportCase(t, m, b, h, streamInPlace, "xor", "XORKeyStream", "in place", note+" in place (dst == src)")
	case !bytes.Equal(b[streamInPlaceChunks], h[streamInPlaceChunks]):
		m.Chunks = c.chunks
		at := firstDiff(b[streamInPlaceChunks], h[streamInPlaceChunks])
		reportCase(t, m, b, h, streamInPlaceChunks, "xor", "XORKeyStream", "in place", fmt.Sprintf("output "+
			"differs from byte %d in place (dst == src) in chunks %s", at, chunkAt(c.chunks, at)))
	}
	for s, o := range [2][][]byte{b, h} {
		for _, i := range []int{streamChunks, streamInPlace, streamInPlaceChunks} {
			if bytes.Equal(o[streamOnce], o[i]) {
				continue
			}
			at := firstDiff(o[streamOnce], o[i])
			in := record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "xor", Method: "XORKeyStream",
				Input: c.msg, Single: o[streamOnce], Batch: o[i], Part: "chunk boundary", Length: len(c.msg),
				Note: fmt.Sprintf("in place, the output differs from one call into another slice from byte %d", at)}
			if i != streamInPlace {
				in.Chunks = c.chunks
				in.Note = fmt.Sprintf("in chunks, the output differs from one call from byte %d, %s", at,
					chunkAt(c.chunks, at))
			}
			if i == streamInPlaceChunks {
				in.Part, in.Note = "in place", "in place and "+in.Note
			}
			if i == streamInPlace {
				in.Part = "in place"
			}
			msgInconsistent(t, s, in)
		}
	}
}

func (streamFamily) harness() string { return harness.Stream }
