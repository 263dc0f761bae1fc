package harness

// AEAD is the AEAD family's file of the harness.
const AEAD = `import (
	"bufio"
	"crypto/cipher"
)

type aeadMaker func(key, nonce []byte) (cipher.AEAD, error)

func (mk aeadMaker) probe(key, nonce []byte) (probeSize, bool) {
	a, err := mk(key, nonce)
	if err != nil {
		return probeSize{}, false
	}
	return probeSize{NonceSize: a.NonceSize(), Overhead: a.Overhead()}, true
}

func (mk aeadMaker) fingerprint(key, nonce []byte) []byte {
	a, err := mk(key, nonce)
	if err != nil {
		return nil
	}
	return a.Seal(nil, make([]byte, a.NonceSize()), fixedMessage, nil)
}

func (mk aeadMaker) run(w *bufio.Writer, key, nonce []byte, cs []msgCase) error {
	a, err := mk(key, nonce)
	if err != nil {
		return err
	}
	field(w, nil)
	for _, c := range cs {
		where.op = "Seal"
		ct := a.Seal(nil, c.nonce, c.msg, c.ad)
		field(w, ct)
		where.op = "Open"
		pt, err := a.Open(nil, c.nonce, ct, c.ad)
		if err != nil {
			field(w, []byte{1})
		} else {
			field(w, append([]byte{0}, pt...))
		}
		where.op = "Open (tampered)"
		field(w, []byte{tampered(a, c, ct)})
		where.op = "Seal (in place)"
		buf := make([]byte, len(c.msg), len(c.msg)+a.Overhead())
		copy(buf, c.msg)
		field(w, a.Seal(buf[:0], c.nonce, buf, c.ad))
		where.op = "Open (in place)"
		buf = append([]byte(nil), ct...)
		if pt, err := a.Open(buf[:0], c.nonce, buf, c.ad); err != nil {
			field(w, []byte{1})
		} else {
			field(w, append([]byte{0}, pt...))
		}
	}
	return nil
}

// tampered opens ct with one bit flipped: 0 rejected, 1 accepted, 2 nothing to tamper with.
func tampered(a cipher.AEAD, c msgCase, ct []byte) byte {
	if len(ct) == 0 {
		return 2
	}
	bad := append([]byte(nil), ct...)
	bad[c.tamperAt%len(bad)] ^= c.tamperMask
	if _, err := a.Open(nil, c.nonce, bad, c.ad); err != nil {
		return 0
	}
	return 1
}
`
