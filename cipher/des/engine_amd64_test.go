//go:build amd64 && !purego

package des

import (
	stddes "crypto/des"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

// wideBuilt says whether this build has the 256-lane engine.
const wideBuilt = true

// wideEngines returns the 256-lane engine alone (every tail padded to 256
// blocks) and the default mix, if the CPU has AVX2 and GODEBUG has not
// turned it off (useAVX2 at start-up).
func wideEngines() []engine {
	if !defaultAVX2 {
		return nil
	}
	set := func(min int) func(t testing.TB) {
		return func(t testing.TB) {
			oldUse, oldMin := useAVX2, wideMin
			useAVX2, wideMin = true, min
			t.Cleanup(func() { useAVX2, wideMin = oldUse, oldMin })
		}
	}
	return []engine{{"256-lane", set(0)}, {"mixed", set(wideMin)}}
}

// defaultAVX2 is useAVX2 as the package set it.
var defaultAVX2 = useAVX2

// blockVariants lists the single-block assembly: each variant of
// internal/gen.BlockVariants, and the entries that pick one by useZen.
var blockVariants = []struct {
	name     string
	enc, dec func(*schedule, int, *byte, *byte)
}{
	{"Intel", encryptAMD64Intel, decryptAMD64Intel},
	{"Zen", encryptAMD64Zen, decryptAMD64Zen},
	{"chosen", encryptAMD64, decryptAMD64},
}

// block runs the assembly call f on the block b, big-endian.
func block(f func(*schedule, int, *byte, *byte), ks *schedule, stages int, b uint64) uint64 {
	var src, dst [BlockSize]byte
	binary.BigEndian.PutUint64(src[:], b)
	f(ks, stages, &dst[0], &src[0])
	return binary.BigEndian.Uint64(dst[:])
}

// TestBlockAMD64 checks every variant of the assembly single-block calls,
// whatever the CPU, against crypto/des (DES and three-key EDE) and the Go
// engine cryptGo (which the purego build runs; also on EEE schedules), on
// random keys and blocks, the methods with either variant chosen (useZen),
// and that the tables are the generator's.
func TestBlockAMD64(t *testing.T) {
	if spBox64 != gen.SP64() || spBox32 != gen.SP32() {
		t.Fatal("spBox64 or spBox32 differs from the generator's")
	}
	if len(blockVariants) != len(gen.BlockVariants)+1 {
		t.Fatalf("%d variants tested, internal/gen generates %d", len(blockVariants)-1, len(gen.BlockVariants))
	}
	defer func(old bool) { useZen = old }(useZen)
	rng := rand.New(rand.NewPCG(9, 10))
	key := make([]byte, 24)
	var src, want, got [8]byte
	for i := range 2000 {
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		b := rng.Uint64()
		binary.BigEndian.PutUint64(src[:], b)
		c, err := NewTripleEEE3(key) // EEE on even i, EDE on odd
		if i%2 == 1 {
			c, err = NewTripleEDE3(key)
		}
		if err != nil {
			t.Fatal(err)
		}
		useZen = i%4 < 2 // the chosen entries and the methods take each variant
		for _, v := range blockVariants {
			check := func(what string, got, want uint64) {
				t.Helper()
				if got != want {
					t.Fatalf("%s %s (useZen %v) %x of %016x = %016x, want %016x", v.name, what, useZen, key, b, got, want)
				}
			}
			check("DES encrypt", block(v.enc, &c.ks[0], 1, b), cryptGo(c.ks[:1], b))
			check("DES decrypt", block(v.dec, &c.ks[0], 1, b), cryptReversedGo(c.ks[:1], b))
			check("Triple DES encrypt", block(v.enc, &c.ks[0], 3, b), cryptGo(c.ks[:], b))
			check("Triple DES decrypt", block(v.dec, &c.ks[0], 3, b), cryptReversedGo(c.ks[:], b))
			std, err := stddes.NewCipher(key[:8])
			if err != nil {
				t.Fatal(err)
			}
			std.Encrypt(want[:], src[:])
			check("DES encrypt (crypto/des)", block(v.enc, &c.ks[0], 1, b), binary.BigEndian.Uint64(want[:]))
			std.Decrypt(want[:], src[:])
			check("DES decrypt (crypto/des)", block(v.dec, &c.ks[0], 1, b), binary.BigEndian.Uint64(want[:]))
			if i%2 == 1 {
				std3, err := stddes.NewTripleDESCipher(key)
				if err != nil {
					t.Fatal(err)
				}
				std3.Encrypt(want[:], src[:])
				check("EDE3 encrypt (crypto/des)", block(v.enc, &c.ks[0], 3, b), binary.BigEndian.Uint64(want[:]))
				c.Encrypt(got[:], src[:])
				check("EDE3 Encrypt method", binary.BigEndian.Uint64(got[:]), binary.BigEndian.Uint64(want[:]))
				std3.Decrypt(want[:], src[:])
				check("EDE3 decrypt (crypto/des)", block(v.dec, &c.ks[0], 3, b), binary.BigEndian.Uint64(want[:]))
				c.Decrypt(got[:], src[:])
				check("EDE3 Decrypt method", binary.BigEndian.Uint64(got[:]), binary.BigEndian.Uint64(want[:]))
			}
		}
	}
}

// TestBlockChoice logs which single-block variant this CPU takes.
func TestBlockChoice(t *testing.T) {
	_, b, c, d := cpuid(0, 0)
	vendor := string(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(
		binary.LittleEndian.AppendUint32(nil, b), d), c))
	a, _, _, _ := cpuid(1, 0)
	if vendor == "GenuineIntel" && useZen {
		t.Error("an Intel CPU takes the Zen variant")
	}
	t.Logf("CPU %s, family %#x model %#x: single blocks take the Zen variant: %v", vendor,
		a>>8&0xf+a>>20&0xff, a>>4&0xf|a>>12&0xf0, useZen)
}

// BenchmarkBlockVariants times each single-block variant as
// BenchmarkVsStdlib does (the methods, in alternation with crypto/des, the
// median ratio), with useZen set to take it, so that one host measures
// both and shows whether its CPU takes the faster:
//
//	go test -run '^$' -bench BlockVariants -count 5 ./cipher/des
func BenchmarkBlockVariants(b *testing.B) {
	defer func(old bool) { useZen = old }(useZen)
	src, dst := buffers(benchBlocks)
	for _, zen := range []bool{false, true} {
		for _, v := range []variant{variantNamed("des"), variantNamed("tdes_ede3")} {
			c, err := v.make(benchKey(v.keyLen))
			if err != nil {
				b.Fatal(err)
			}
			newStd := stddes.NewTripleDESCipher
			if v.keyLen == 8 {
				newStd = stddes.NewCipher
			}
			std, err := newStd(benchKey(v.keyLen))
			if err != nil {
				b.Fatal(err)
			}
			for _, dir := range []string{"Encrypt", "Decrypt"} {
				ours, theirs := c.Encrypt, std.Encrypt
				if dir == "Decrypt" {
					ours, theirs = c.Decrypt, std.Decrypt
				}
				name := map[bool]string{false: "Intel", true: "Zen"}[zen] + "/" + v.name + "/" + dir
				b.Run(name, func(b *testing.B) {
					useZen = zen
					var ratios []float64
					for b.Loop() {
						t0 := time.Now()
						for i := 0; i < len(src); i += BlockSize {
							ours(dst[i:], src[i:])
						}
						t1 := time.Now()
						for i := 0; i < len(src); i += BlockSize {
							theirs(dst[i:], src[i:])
						}
						ratios = append(ratios, float64(time.Since(t1))/float64(t1.Sub(t0)))
					}
					slices.Sort(ratios)
					b.ReportMetric(ratios[len(ratios)/2], "x-stdlib")
				})
			}
		}
	}
}
