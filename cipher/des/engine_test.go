package des

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// engine is one way of running the batch calls: set selects it (and
// registers the restoring of the default with t.Cleanup).
type engine struct {
	name string
	set  func(t testing.TB)
}

// engines returns the batch engines of this build: the 64-bit engine alone
// always, and where the assembly is built and the CPU has AVX2 the 256-lane
// engine alone and the default mix (256-lane groups, a short tail on the
// 64-bit engine); see wideEngines.
func engines() []engine {
	narrow := engine{"64-bit", func(t testing.TB) {
		old := useAVX2
		useAVX2 = false
		t.Cleanup(func() { useAVX2 = old })
	}}
	return append([]engine{narrow}, wideEngines()...)
}

// TestEngines checks every batch engine against crypto/des for every
// variant and every length from 0 to 1,100 blocks, in both directions, out
// of place (the bytes of dst after the output must stay untouched) and in
// place. 1,100 blocks are four groups of 256 and a tail of 76, more than
// the 64-bit engine's tail of up to wideMin blocks.
func TestEngines(t *testing.T) {
	const seed, maxBlocks = 20261203, 1100
	t.Logf("seed %d", seed)
	for _, e := range engines() {
		t.Run(e.name, func(t *testing.T) {
			e.set(t)
			rng := rand.New(rand.NewPCG(seed, seed))
			random := func(n int) []byte {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(rng.Uint32())
				}
				return b
			}
			for _, r := range references {
				for n := 0; n <= maxBlocks; n++ {
					key, data := random(r.keyLen), random(n*BlockSize)
					compareBatch(t, r, key, data)
				}
			}
		})
	}
}

// compareBatch checks EncryptBlocks and DecryptBlocks of a variant against
// the reference on data, out of place and in place.
func compareBatch(t *testing.T, r reference, key, data []byte) {
	t.Helper()
	mine, err := r.make(key)
	if err != nil {
		t.Fatal(err)
	}
	std := r.std(t, key)
	want := make([]byte, len(data))
	for i := 0; i < len(data); i += BlockSize {
		std.Encrypt(want[i:], data[i:])
	}
	check := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s key %x, %d blocks: %s = %x, want %x", r.name, key, len(data)/BlockSize, what, got, want)
		}
	}
	const tail = 2 * BlockSize
	out := bytes.Repeat([]byte{0x5c}, len(data)+tail)
	mine.EncryptBlocks(out, data)
	check("EncryptBlocks", out[:len(data)], want)
	check("EncryptBlocks tail", out[len(data):], bytes.Repeat([]byte{0x5c}, tail))
	mine.DecryptBlocks(out, want)
	check("DecryptBlocks", out[:len(data)], data)
	check("DecryptBlocks tail", out[len(data):], bytes.Repeat([]byte{0x5c}, tail))
	inPlace := append([]byte(nil), data...)
	mine.EncryptBlocks(inPlace, inPlace)
	check("EncryptBlocks in place", inPlace, want)
	mine.DecryptBlocks(inPlace, inPlace)
	check("DecryptBlocks in place", inPlace, data)
}

// TestEngineChoice checks which engine the batch calls take by default:
// the 64-bit one under the purego build tag, on other architectures and
// with GODEBUG=cpu.avx2=off (TestEngines then runs the 64-bit engine
// only, as its log says).
func TestEngineChoice(t *testing.T) {
	off := strings.Contains(os.Getenv("GODEBUG"), "cpu.avx2=off")
	if off && useAVX2 {
		t.Error("GODEBUG=cpu.avx2=off, but the batch calls take the 256-lane engine")
	}
	if !wideBuilt && useAVX2 {
		t.Error("no assembly in this build, but the batch calls take the 256-lane engine")
	}
	names := []string{}
	for _, e := range engines() {
		names = append(names, e.name)
	}
	t.Logf("assembly built: %v, default 256-lane engine: %v; engines tested: %s", wideBuilt, useAVX2,
		strings.Join(names, ", "))
}

// BenchmarkEngines times one DES and one EDE3 batch call of n blocks on
// each engine, for the short batches where the 64-bit engine (groups of 64)
// and the 256-lane engine (one padded group) compete; wideMin is where the
// default mix switches:
//
//	go test -run '^$' -bench Engines -count 5 ./cipher/des
func BenchmarkEngines(b *testing.B) {
	for _, e := range engines() {
		for _, v := range []variant{variantNamed("des"), variantNamed("tdes_ede3")} {
			for _, n := range []int{32, 64, 96, 128, 192, 256} {
				b.Run(fmt.Sprintf("%s/%s/%d", e.name, v.name, n), func(b *testing.B) {
					e.set(b)
					c, err := v.make(benchKey(v.keyLen))
					if err != nil {
						b.Fatal(err)
					}
					benchBatch(b, n, c.EncryptBlocks)
				})
			}
		}
	}
}
