package harness

// Hash is the hash family's file of the harness.
const Hash = `import (
	"bufio"
	"hash"
)

type hashMaker func(key, nonce []byte) (hash.Hash, error)

func (mk hashMaker) probe(key, nonce []byte) (probeSize, bool) {
	h, err := mk(key, nonce)
	if err != nil {
		return probeSize{}, false
	}
	return probeSize{Size: h.Size(), BlockSize: h.BlockSize()}, true
}

func (mk hashMaker) fingerprint(key, nonce []byte) []byte {
	h, err := mk(key, nonce)
	if err != nil {
		return nil
	}
	h.Write(fixedMessage)
	return h.Sum(nil)
}

func (mk hashMaker) run(w *bufio.Writer, key, nonce []byte, cs []msgCase) error {
	if _, err := mk(key, nonce); err != nil {
		return err
	}
	field(w, nil)
	for _, c := range cs {
		where.op = "Write (chunks)"
		h := newHash(mk(key, nonce))
		off := 0
		for _, n := range c.chunks {
			h.Write(c.msg[off : off+n])
			off += n
		}
		where.op = "Sum"
		field(w, h.Sum(nil))
		field(w, h.Sum([]byte{0xa5}))
		where.op = "Reset"
		h.Reset()
		h.Write(c.msg)
		field(w, h.Sum(nil))
		where.op = "Write"
		fresh := newHash(mk(key, nonce))
		fresh.Write(c.msg)
		field(w, fresh.Sum(nil))
	}
	return nil
}

func newHash(h hash.Hash, err error) hash.Hash {
	if err != nil {
		fail("constructor failed on a key it accepted: " + err.Error())
	}
	return h
}
`
