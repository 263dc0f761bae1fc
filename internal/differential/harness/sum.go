package harness

// Sum is the one-shot family's file of the harness.
const Sum = `import (
	"bufio"
	"encoding/binary"
)

func u32(v uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return b[:]
}

func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

type summer func(key, msg []byte) []byte

func (sum summer) probe(key, nonce []byte) (probeSize, bool) {
	return probeSize{Size: len(sum(key, nil))}, true
}

func (sum summer) fingerprint(key, nonce []byte) []byte { return sum(key, fixedMessage) }

func (sum summer) run(w *bufio.Writer, key, nonce []byte, cs []msgCase) error {
	field(w, nil)
	for _, c := range cs {
		where.op = "call"
		msg := append([]byte(nil), c.msg...)
		field(w, sum(key, msg))
		where.op = "second call"
		field(w, sum(key, append([]byte(nil), c.msg...)))
		field(w, msg)
	}
	return nil
}
`
