package differential

import (
	"bytes"
	"fmt"
	"go/types"

	"github.com/perfgate/perfgate/record"
)

// streamFamily is the stream ciphers: constructors func(key []byte) or func(key, nonce []byte) returning T or
// (T, error) with T a crypto/cipher.Stream. Each message is XORed in one call, and by a second stream in the
// case's chunks.
type streamFamily struct{}

// Outputs per case: XORKeyStream in one call, XORKeyStream in the case's chunks.
const streamOnce, streamChunks = 0, 1

// streamIface is crypto/cipher.Stream.
var streamIface = types.NewInterfaceType([]*types.Func{
	method("XORKeyStream", byteParams("dst", "src")),
}, nil).Complete()

func (streamFamily) kind() record.Family     { return record.FamilyStream }
func (streamFamily) directions() []string    { return []string{"xor"} }
func (streamFamily) methods() []string       { return []string{"XORKeyStream"} }
func (streamFamily) outputs() int            { return 2 }
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
		nonceHi = maxNonceSize
	}
	return []string{wrapEntry(c, c.Name, 1, maxKeySize, nonceHi, "streamMaker", "cipher.Stream",
		[3]string{"", "key", "key, nonce"}[c.Args], "%s, nil")}
}

func (f streamFamily) instances(b, h *ctor) []instance { return ownInstance(f, b, h) }

func (f streamFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	return planMessages(cfg, f, in, probes)
}

// compareCase records at most one mismatch per case (the keystream, else the chunked output), and each side's
// chunked output that differs from its output in one call.
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
	}
	for s, o := range [2][][]byte{b, h} {
		if !bytes.Equal(o[streamOnce], o[streamChunks]) {
			at := firstDiff(o[streamOnce], o[streamChunks])
			msgInconsistent(t, s, record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "xor",
				Method: "XORKeyStream", Input: c.msg, Single: o[streamOnce], Batch: o[streamChunks],
				Part: "chunk boundary", Length: len(c.msg), Chunks: c.chunks,
				Note: fmt.Sprintf("in chunks, the output differs from one call from byte %d, %s", at,
					chunkAt(c.chunks, at))})
		}
	}
}

func (streamFamily) harness() string { return streamHarness }

// streamHarness is the stream family's file of the harness.
const streamHarness = `import (
	"bufio"
	"crypto/cipher"
)

type streamMaker func(key, nonce []byte) (cipher.Stream, error)

func (mk streamMaker) probe(key, nonce []byte) (probeSize, bool) {
	_, err := mk(key, nonce)
	return probeSize{}, err == nil
}

func (mk streamMaker) fingerprint(key, nonce []byte) []byte {
	s, err := mk(key, nonce)
	if err != nil {
		return nil
	}
	out := make([]byte, len(fixedMessage))
	s.XORKeyStream(out, fixedMessage)
	return out
}

func (mk streamMaker) run(w *bufio.Writer, key, nonce []byte, cs []msgCase) error {
	if _, err := mk(key, nonce); err != nil {
		return err
	}
	field(w, nil)
	for _, c := range cs {
		where.op = "XORKeyStream"
		s := again(mk(key, nonce))
		out := make([]byte, len(c.msg))
		s.XORKeyStream(out, c.msg)
		field(w, out)
		where.op = "XORKeyStream (chunks)"
		s = again(mk(key, nonce))
		out = make([]byte, len(c.msg))
		off := 0
		for _, n := range c.chunks {
			s.XORKeyStream(out[off:off+n], c.msg[off:off+n])
			off += n
		}
		field(w, out)
	}
	return nil
}

func again(s cipher.Stream, err error) cipher.Stream {
	if err != nil {
		fail("constructor failed on a key it accepted: " + err.Error())
	}
	return s
}
`
