package harness

// Block is the block family's file of the harness. A job's output, per key: u8(status)
// [u16(len) message when status ≠ 0], then per direction, per method (dirMethods): blocks ×
// blockSize bytes.
const Block = `import (
	"bufio"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"strings"
)

type methods = map[string]func(dst, src []byte)

func blockEntry(mk func(key []byte) (cipher.Block, methods, error)) entryFuncs {
	return entryFuncs{
		probe: func(key, nonce []byte) (probeSize, bool) {
			b, _, err := mk(key)
			if err != nil {
				return probeSize{}, false
			}
			return probeSize{BlockSize: b.BlockSize()}, true
		},
		run: func(in *input, w *bufio.Writer) { runBlock(in, w, mk) },
	}
}

// blockJobHeader is what a block job says before its keys.
type blockJobHeader struct {
	keySize, blockSize, keys, blocks int
	inPlaceKeys, lengthKeys              int
	names                                        []string
	lengths                                      []int
	long                                         [2][]byte
}

func readBlockJob(in *input) blockJobHeader {
	var h blockJobHeader
	h.keySize, h.blockSize, h.keys, h.blocks = in.u16(), in.u32(), in.u32(), in.u32()
	for n := in.u8(); n > 0; n-- {
		h.names = append(h.names, string(in.next(in.u8())))
	}
	h.inPlaceKeys, h.lengthKeys = in.u32(), in.u32()
	for n := in.u8(); n > 0; n-- {
		h.lengths = append(h.lengths, in.u16())
	}
	long := in.u32() * h.blockSize
	h.long = [2][]byte{in.next(long), in.next(long)}
	return h
}

// runBlock writes, per key and direction: the single-block method one block at a time, each batch method in one
// call, the same again in place (dst == src) for the first inPlaceKeys keys, and for the first lengthKeys keys the
// single-block method over the long input and each batch method on each prefix of lengths blocks of it.
func runBlock(in *input, w *bufio.Writer, mk func(key []byte) (cipher.Block, methods, error)) {
	h := readBlockJob(in)
	for k := 0; k < h.keys; k++ {
		key := in.next(h.keySize)
		n := h.blocks * h.blockSize
		inputs := [2][]byte{in.next(n), in.next(n)}
		where.key, where.op = key, "constructor"
		b, ms, err := mk(key)
		if err != nil {
			status(w, 1, err.Error())
			continue
		}
		if bs := b.BlockSize(); bs != h.blockSize {
			status(w, 2, fmt.Sprintf("block size %d, probed %d", bs, h.blockSize))
			continue
		}
		w.WriteByte(0)
		for dir, prefix := range [2]string{"Encrypt", "Decrypt"} {
			single := b.Encrypt
			if dir == 1 {
				single = b.Decrypt
			}
			var batch []string
			for _, m := range h.names {
				if strings.HasPrefix(m, prefix) {
					if ms[m] == nil {
						fail("unknown method " + m)
					}
					batch = append(batch, m)
				}
			}
			blockRuns(w, h.blockSize, prefix, single, ms, batch, inputs[dir], nil, k < h.inPlaceKeys)
			if k < h.lengthKeys && len(batch) > 0 {
				blockRuns(w, h.blockSize, prefix, single, ms, batch, h.long[dir], h.lengths, false)
			}
		}
	}
}

// blockRuns writes the single-block method over src, then each batch method on src: with lengths nil, in one
// call, and then, if inPlace, both again in place; else on each prefix of lengths blocks.
func blockRuns(w *bufio.Writer, bs int, prefix string, single func(dst, src []byte), ms methods, batch []string,
	src []byte, lengths []int, inPlace bool) {
	dst := make([]byte, len(src))
	where.op = prefix
	for i := 0; i < len(src); i += bs {
		single(dst[i:i+bs], src[i:i+bs])
	}
	w.Write(dst)
	for _, m := range batch {
		where.op = m
		for _, n := range lengths {
			out := make([]byte, n*bs)
			ms[m](out, src[:n*bs])
			w.Write(out)
		}
		if lengths == nil {
			out := make([]byte, len(src))
			ms[m](out, src)
			w.Write(out)
		}
	}
	if !inPlace {
		return
	}
	where.op = prefix + " (in place)"
	copy(dst, src)
	for i := 0; i < len(dst); i += bs {
		single(dst[i:i+bs], dst[i:i+bs])
	}
	w.Write(dst)
	for _, m := range batch {
		where.op = m + " (in place)"
		copy(dst, src)
		ms[m](dst, dst)
		w.Write(dst)
	}
}

// ecb runs a single-block method over whole blocks: an oracle's stand-in for a batch method.
func ecb(single func(dst, src []byte), bs int) func(dst, src []byte) {
	return func(dst, src []byte) {
		for i := 0; i+bs <= len(src); i += bs {
			single(dst[i:i+bs], src[i:i+bs])
		}
	}
}

func status(w *bufio.Writer, s byte, msg string) {
	if len(msg) > 200 {
		msg = msg[:200]
	}
	w.WriteByte(s)
	binary.Write(w, binary.BigEndian, uint16(len(msg)))
	w.WriteString(msg)
}
`
