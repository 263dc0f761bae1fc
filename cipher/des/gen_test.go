package des

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

// TestGenerated regenerates const.go, unrolled.go, sliced.go, sliced_amd64.s, block_amd64.s,
// const_amd64.go and methods.go with internal/gen and compares them byte for byte with the
// committed files. Fix a failure with `go generate ./cipher/des`. The S-box circuit search behind
// sliced.go and sliced_amd64.s takes seconds, so only the long end-to-end set (PERFGATE_E2E=1, not
// -short) regenerates those two (TestSBoxCircuits still checks the compiled circuits against the
// S-box tables, and TestEngines the assembly against crypto/des).
func TestGenerated(t *testing.T) {
	for _, f := range []struct {
		name string
		make func() ([]byte, error)
	}{
		{"const.go", gen.Tables}, {"unrolled.go", gen.Unrolled}, {"sliced.go", gen.Sliced}, {"methods.go", gen.Methods},
		{"sliced_amd64.s", gen.SlicedAVX2}, {"block_amd64.s", gen.BlockAMD64}, {"const_amd64.go", gen.TablesAMD64},
	} {
		// PERFGATE_E2E=1 is the switch of perfgate's long end-to-end set
		// (internal/testing/testenv), read here directly: cipher/des imports nothing of perfgate's,
		// as samecode's and mutscore's tests copy it alone.
		if slow := f.name == "sliced.go" || f.name == "sliced_amd64.s"; slow && (testing.Short() || os.Getenv("PERFGATE_E2E") != "1") {
			t.Logf("%s not regenerated (slow): set PERFGATE_E2E=1 to check it", f.name)
			continue
		}
		want, err := f.make()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output; run go generate ./cipher/des", f.name)
		}
	}
	// The compiled tables are the generated ones.
	if spBox != gen.SP() || pc2Box != gen.PC2Tables() {
		t.Error("compiled tables differ from the generator's")
	}
}

// Textbook tables of FIPS 46-3 (1-based bit numbers from the most
// significant bit), for checking the fast paths against a direct reading of
// the standard.
var (
	textbookIP = [64]uint8{
		58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
		62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
		57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
		61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
	}
	textbookPC1 = [56]uint8{
		57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
		10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
		63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
		14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
	}
	textbookShifts = [16]uint{1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1}
)

// permute returns the width-bit result of selecting, for output bit i, input
// bit table[i-1] of the inWidth-bit value x.
func permute(x uint64, inWidth uint, table []uint8) uint64 {
	var out uint64
	for _, n := range table {
		out = out<<1 | x>>(inWidth-uint(n))&1
	}
	return out
}

func TestPermutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var fp [64]uint8 // FP = IP⁻¹
	for i, n := range textbookIP {
		fp[n-1] = uint8(i + 1)
	}
	for range 1000 {
		b := rng.Uint64()
		ip := permute(b, 64, textbookIP[:])
		l, r := initialPermutation(uint32(b>>32), uint32(b))
		if wl, wr := bits.RotateLeft32(uint32(ip>>32), 1), bits.RotateLeft32(uint32(ip), 1); l != wl || r != wr {
			t.Fatalf("initialPermutation(%016x) = %08x %08x, want %08x %08x", b, l, r, wl, wr)
		}
		// FP receives L16, R16 (rotated) and outputs FP(R16 | L16).
		hi, lo := finalPermutation(bits.RotateLeft32(uint32(b>>32), 1), bits.RotateLeft32(uint32(b), 1))
		want := permute(b<<32|b>>32, 64, fp[:])
		if got := uint64(hi)<<32 | uint64(lo); got != want {
			t.Fatalf("finalPermutation(%016x) = %016x, want %016x", b, got, want)
		}
	}
}

func TestKeySchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	key := make([]byte, 8)
	for range 200 {
		k := rng.Uint64()
		for i := range key {
			key[i] = byte(k >> (56 - 8*i))
		}
		cd := permute(k, 64, textbookPC1[:])
		c, d := uint32(cd>>28), uint32(cd&0x0fffffff)
		if gc, gd := permutedChoice1(key); gc != c || gd != d {
			t.Fatalf("permutedChoice1(%x) = %07x %07x, want %07x %07x", key, gc, gd, c, d)
		}
		var enc, dec schedule
		expandKey(key, &enc, false)
		expandKey(key, &dec, true)
		for i, s := range textbookShifts {
			c = (c<<s | c>>(28-s)) & 0x0fffffff
			d = (d<<s | d>>(28-s)) & 0x0fffffff
			sub := permute(uint64(c)<<28|uint64(d), 56, gen.PC2[:])
			var box [8]uint32 // the 6-bit key input of S-box j+1
			for j := range box {
				box[j] = uint32(sub >> (42 - 6*j) & 0x3f)
			}
			k0 := box[7] | box[5]<<8 | box[3]<<16 | box[1]<<24
			k1 := box[6] | box[4]<<8 | box[2]<<16 | box[0]<<24
			e := enc[i/2][i%2*2 : i%2*2+2]
			dd := dec[(15-i)/2][(15-i)%2*2 : (15-i)%2*2+2]
			if e[0] != k0 || e[1] != k1 || dd[0] != k0 || dd[1] != k1 {
				t.Fatalf("key %x round %d: enc %08x %08x dec %08x %08x, want %08x %08x", key, i+1, e[0], e[1], dd[0], dd[1], k0, k1)
			}
		}
	}
}

// TestSBoxCircuits runs the compiled S-box circuits on the truth tables of
// their inputs, all 64 inputs at once, and compares each output with the
// S-box table of FIPS 46-3.
func TestSBoxCircuits(t *testing.T) {
	var in [6]uint64
	for i := range in {
		for x := range 64 {
			in[i] |= uint64(x>>(5-i)&1) << x
		}
	}
	for s, f := range []func(a1, a2, a3, a4, a5, a6 uint64) (o1, o2, o3, o4 uint64){s1, s2, s3, s4, s5, s6, s7, s8} {
		var got [4]uint64
		got[0], got[1], got[2], got[3] = f(in[0], in[1], in[2], in[3], in[4], in[5])
		if want := gen.SBoxTT(s); got != want {
			t.Errorf("s%d = %016x, want %016x", s+1, got, want)
		}
	}
}

// TestTranspose checks transposeIn bit by bit against its definition on
// random blocks, and that transposeOut undoes it.
func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		var src, dst [512]byte
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		var x [64]uint64
		transposeIn(&x, &src)
		for i := range 64 {
			for j := range 64 {
				row := binary.LittleEndian.Uint64(src[8*j:])
				if x[i]>>(63-j)&1 != row>>(63-i)&1 {
					t.Fatalf("transposeIn: bit %d of word %d differs from bit %d of block %d", 63-j, i, 63-i, j)
				}
			}
		}
		transposeOut(&dst, &x)
		if dst != src {
			t.Fatalf("transposeOut(transposeIn(%x)) = %x", src, dst)
		}
	}
}

// TestSlicedKeys checks the subkey masks of the bitsliced engine against the
// subkeys computed from the textbook tables.
func TestSlicedKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	key := make([]byte, 8)
	for range 50 {
		k := rng.Uint64()
		for i := range key {
			key[i] = byte(k >> (56 - 8*i))
		}
		var enc schedule
		expandKey(key, &enc, false)
		var masks slicedKeys
		enc.slice(&masks)
		cd := permute(k, 64, textbookPC1[:])
		c, d := uint32(cd>>28), uint32(cd&0x0fffffff)
		for i, s := range textbookShifts {
			c = (c<<s | c>>(28-s)) & 0x0fffffff
			d = (d<<s | d>>(28-s)) & 0x0fffffff
			sub := permute(uint64(c)<<28|uint64(d), 56, gen.PC2[:])
			for n := range 48 {
				if want := -(sub >> (47 - n) & 1); masks[i][n] != want {
					t.Fatalf("key %x round %d bit %d: mask %016x, want %016x", key, i+1, n+1, masks[i][n], want)
				}
			}
		}
	}
}
