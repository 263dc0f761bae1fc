package differential

import (
	"encoding/binary"
	"fmt"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// blockFamily is the block ciphers: constructors func(key []byte) (T, error) with T a
// crypto/cipher.Block, whose exported methods func(dst, src []byte) named Encrypt… or Decrypt…
// (other than Encrypt and Decrypt) are its batch methods, such as EncryptBlocks. For every key size
// both sides accept, Keys keys (keyList) and for each key Blocks random plaintexts and Blocks
// random ciphertexts; each harness encrypts and decrypts every block one by one and in one call per
// batch method, out of place and in place, and the first keys call each batch method at every count
// of batchLengths (blockRun).
type blockFamily struct{}

func (blockFamily) kind() record.Family  { return record.FamilyBlock }
func (blockFamily) directions() []string { return directions[:] }

func (blockFamily) shape() string {
	return "func(key []byte) (T, error) with T a crypto/cipher.Block"
}

var (
	// dstSrc is the signature func(dst, src []byte) of Encrypt, Decrypt and the batch methods.
	dstSrc = types.NewSignatureType(nil, nil, nil, types.NewTuple(byteParams("dst", "src")...), nil, false)
	// blockIface is crypto/cipher.Block.
	blockIface = types.NewInterfaceType([]*types.Func{
		method("BlockSize", nil, intType),
		types.NewFunc(0, nil, "Decrypt", dstSrc),
		types.NewFunc(0, nil, "Encrypt", dstSrc),
	}, nil).Complete()
)

func (blockFamily) match(fn *types.Func, sig *types.Signature) (ctor, bool, string) {
	c, t, ok, why := ifaceCtor(fn, sig, record.FamilyBlock, blockIface, [3]bool{1: true}, true)
	if !ok || why != "" {
		return c, ok, why
	}
	ms := types.NewMethodSet(t)
	for i := range ms.Len() {
		m := ms.At(i).Obj()
		name := m.Name()
		if !m.Exported() || name == "Encrypt" || name == "Decrypt" {
			continue
		}
		if !strings.HasPrefix(name, "Encrypt") && !strings.HasPrefix(name, "Decrypt") {
			continue
		}
		if types.Identical(m.Type(), dstSrc) {
			c.Batch = append(c.Batch, name)
		}
	}
	sort.Strings(c.Batch)
	return c, true, ""
}

func (blockFamily) entries(c ctor) []string {
	if c.Family != record.FamilyBlock {
		return nil
	}
	stmts, value := ctorCall(c, "key", "nil, nil, ")
	var ms []string
	for _, m := range c.Batch {
		switch {
		case !c.Emulate:
			ms = append(ms, fmt.Sprintf("%q: b.%s, ", m, m))
		case strings.HasPrefix(m, "Encrypt"):
			ms = append(ms, fmt.Sprintf("%q: ecb(b.Encrypt, b.BlockSize()), ", m))
		default:
			ms = append(ms, fmt.Sprintf("%q: ecb(b.Decrypt, b.BlockSize()), ", m))
		}
	}
	return []string{harnessEntry(c.Name, 1, maxKeySize, 0, fmt.Sprintf("blockEntry(func(key []byte) (cipher.Block, "+
		"methods, error) {\n%s\nb := %s\nreturn b, methods{%s}, nil\n})", stmts, value, strings.Join(ms, "")))}
}

func (f blockFamily) instances(b, h *ctor) []instance { return ownInstance(f, b, h) }

// plan compares the key sizes and batch methods of the two sides, and returns the jobs of the key
// sizes both accept with the same block size.
func (blockFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	name := in.name
	c := record.Cipher{Name: name, Family: record.FamilyBlock, Type: in.typ, Keys: cfg.Keys, Blocks: cfg.Blocks,
		KeySizes: []int{}}
	var batch []string
	for _, m := range in.ctors[0].Batch {
		if slices.Contains(in.ctors[1].Batch, m) {
			batch = append(batch, m)
		} else {
			c.MethodsRemoved = append(c.MethodsRemoved, m)
		}
	}
	for _, m := range in.ctors[1].Batch {
		if !slices.Contains(in.ctors[0].Batch, m) {
			c.MethodsAdded = append(c.MethodsAdded, m)
		}
	}
	c.Methods = append([]string{"Encrypt", "Decrypt"}, batch...)
	var jobs []job
	panics := map[string][]int{}
	for size := 1; size <= maxKeySize; size++ {
		b, inB := probes[0][sizeKey{size, 0}]
		h, inH := probes[1][sizeKey{size, 0}]
		switch {
		case !inB && !inH:
		case b.Panic != "" && h.Panic != "":
			panics[h.Panic] = append(panics[h.Panic], size)
		case inB && inH && (b.Panic != "" || h.Panic != "" || b.BlockSize != h.BlockSize):
			c.Mismatches++
			c.Examples = append(c.Examples, record.Mismatch{Constructor: name, KeySize: size, Block: -1,
				Direction: "setup", Method: name, Note: "base: " + blockProbeText(b) + "; head: " + blockProbeText(h)})
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, size)
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, size)
		default:
			c.KeySizes = append(c.KeySizes, size)
			jobs = append(jobs, newBlockJob(cfg.Seed, name, size, b.BlockSize, cfg.Keys, cfg.Blocks, batch))
		}
	}
	c.Notes = append(c.Notes, panicNotes(panics)...)
	if len(c.KeySizes) == 0 {
		c.Notes = append(c.Notes, "no key size accepted by both sides: nothing compared")
	}
	return &c, jobs
}

func blockProbeText(p probeSize) string {
	if p.Panic != "" {
		return "panic: " + p.Panic
	}
	return fmt.Sprintf("accepted, block size %d", p.BlockSize)
}

// A blockJob is one block constructor at one key size: the keys, and for every key the plaintexts
// to encrypt and the ciphertexts to decrypt.
type blockJob struct {
	ctor      string
	keySize   int
	blockSize int
	blocks    int
	// batch methods run on both sides, sorted; Encrypt*/Decrypt* tell the direction
	methods []string
	keys    []keyInput
	// long holds, per direction, batchLengths' longest run of random blocks: the first lengthKeys
	// keys also call every batch method on each prefix of batchLengths blocks of it.
	long [2][]byte
}

// batchLengths are the block counts at which the first lengthKeys keys call each batch method (on a
// prefix of the job's long input): one and two blocks, and each power of two ±1 up to 128, around
// the widths of bitsliced and interleaved code (cipher/des takes 64 blocks at a time); 7 is the odd
// count ≡ 7 mod 16.
var batchLengths = []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129}

// lengthKeys is how many keys of each size call the batch methods at batchLengths.
const lengthKeys = 8

// inPlaceKeys is how many keys of each size also make every call in place (dst == src): the
// structured keys first. How a call handles overlapping buffers rarely depends on the key, and
// calls in place double a key's cost.
const inPlaceKeys = 128

func (j *blockJob) ctorName() string { return j.ctor }

// keyInput is one key and its inputs; plain and cipher hold blocks × blockSize bytes each.
type keyInput struct {
	key, plain, cipher []byte
}

// input returns the bytes fed in direction dir (0 encrypt, 1 decrypt).
func (k *keyInput) input(dir int) []byte {
	if dir == 0 {
		return k.plain
	}
	return k.cipher
}

// newBlockJob generates the inputs of one constructor at one key size: exactly nKeys keys
// (keyList), and for each key blocks random plaintexts and blocks random ciphertexts.
func newBlockJob(seed uint64, ctor string, keySize, blockSize, nKeys, blocks int, methods []string) *blockJob {
	r := newRand(seed, ctor, keySize)
	j := &blockJob{ctor: ctor, keySize: keySize, blockSize: blockSize, blocks: blocks, methods: methods}
	keys := keyList(r, keySize, nKeys)
	n := blocks * blockSize
	buf := make([]byte, 2*n*len(keys))
	r.Read(buf)
	for i, k := range keys {
		in := buf[2*n*i : 2*n*(i+1)]
		j.keys = append(j.keys, keyInput{key: k, plain: in[:n:n], cipher: in[n:]})
	}
	if len(methods) > 0 {
		for dir := range j.long {
			j.long[dir] = make([]byte, slices.Max(batchLengths)*blockSize)
			r.Read(j.long[dir])
		}
	}
	return j
}

// encode writes the job in the layout
//
//	u16(keySize) u32(blockSize) u32(keys) u32(blocks) u8(methods) {u8(len) name}
//	u32(in-place keys) u32(length keys) u8(lengths) {u16(blocks)} u32(long blocks)
//	long plaintexts  long ciphertexts
//	per key:  key  plaintexts  ciphertexts
func (j *blockJob) encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(j.keySize))
	b = binary.BigEndian.AppendUint32(b, uint32(j.blockSize))
	b = binary.BigEndian.AppendUint32(b, uint32(len(j.keys)))
	b = binary.BigEndian.AppendUint32(b, uint32(j.blocks))
	b = append(b, byte(len(j.methods)))
	for _, m := range j.methods {
		b = append(b, byte(len(m)))
		b = append(b, m...)
	}
	lengths := j.lengths()
	b = binary.BigEndian.AppendUint32(b, uint32(min(inPlaceKeys, len(j.keys))))
	b = binary.BigEndian.AppendUint32(b, uint32(min(lengthKeys, len(j.keys))))
	b = append(b, byte(len(lengths)))
	for _, n := range lengths {
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(j.long[0])/j.blockSize))
	b = append(append(b, j.long[0]...), j.long[1]...)
	for _, k := range j.keys {
		b = append(b, k.key...)
		b = append(b, k.plain...)
		b = append(b, k.cipher...)
	}
	return b
}

// Key status bytes in a block job's output.
const (
	statusOK        = 0 // outputs follow
	statusError     = 1 // the constructor returned an error; u16 length and message follow
	statusBlockSize = 2 // the block size is not the probed one; u16 length and message follow
)

func (blockFamily) harness() string { return blockHarness }

// blockHarness is the block family's file of the harness. A job's output, per key: u8(status)
// [u16(len) message when status ≠ 0], then per direction, per method (dirMethods): blocks ×
// blockSize bytes.
const blockHarness = `import (
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
