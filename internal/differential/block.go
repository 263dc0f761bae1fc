package differential

import (
	"encoding/binary"
	"fmt"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/internal/differential/vectors"
	"github.com/perfgate/perfgate/record"
)

// blockFamily is the block ciphers: constructors func(key []byte) (T, error) with T a
// crypto/cipher.Block, whose exported methods func(dst, src []byte) named Encrypt… or Decrypt…
// (other than Encrypt and Decrypt) are its batch methods, such as EncryptBlocks. For every key size
// both sides accept, Keys keys (vectors.Keys) and for each key Blocks random plaintexts and Blocks
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
	return []string{harness.Entry(c.Name, 1, harness.MaxKeySize, 0, fmt.Sprintf("blockEntry(func(key []byte) (cipher.Block, "+
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
	for size := 1; size <= harness.MaxKeySize; size++ {
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
// (vectors.Keys), and for each key blocks random plaintexts and blocks random ciphertexts.
func newBlockJob(seed uint64, ctor string, keySize, blockSize, nKeys, blocks int, methods []string) *blockJob {
	r := vectors.Rand(seed, ctor, keySize)
	j := &blockJob{ctor: ctor, keySize: keySize, blockSize: blockSize, blocks: blocks, methods: methods}
	keys := vectors.Keys(r, keySize, nKeys)
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

func (blockFamily) harness() string { return harness.Block }
