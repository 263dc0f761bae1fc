package harness

// Stream is the stream family's file of the harness.
const Stream = `import (
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
		where.op = "XORKeyStream (in place)"
		s = again(mk(key, nonce))
		buf := append([]byte(nil), c.msg...)
		s.XORKeyStream(buf, buf)
		field(w, buf)
		where.op = "XORKeyStream (in place, chunks)"
		s = again(mk(key, nonce))
		buf = append([]byte(nil), c.msg...)
		off = 0
		for _, n := range c.chunks {
			s.XORKeyStream(buf[off:off+n], buf[off:off+n])
			off += n
		}
		field(w, buf)
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
