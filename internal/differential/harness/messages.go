package harness

// Messages is the harness file the message families share: the job loop and the cases.
const Messages = `import "bufio"

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
	fingerprint(key, nonce []byte) []byte // an output for fixedMessage; nil when the key is rejected
}

// fixedMessage is the message of the fingerprints.
var fixedMessage = []byte("perfgate: which key bytes matter?")

// messageEntry is the entry of a message family's constructor, whose jobs runMessages runs.
func messageEntry(m maker) entryFuncs {
	return entryFuncs{probe: m.probe, fingerprint: m.fingerprint,
		run: func(in *input, w *bufio.Writer) { runMessages(in, w, m.run) }}
}

// runMessages reads one job of a message family and runs perKey on every key. Per key, perKey writes an empty
// field and the outputs of every case, or returns the constructor's error before writing anything.
func runMessages(in *input, w *bufio.Writer, perKey func(w *bufio.Writer, key, nonce []byte, cs []msgCase) error) {
	keySize, nonceSize, keys := in.u16(), in.u16(), in.u32()
	for ; keys > 0; keys-- {
		key, nonce := in.next(keySize), in.next(nonceSize)
		cs := make([]msgCase, in.u32())
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
