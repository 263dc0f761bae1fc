// Command dudect tests package des for timing leakage the way dudect
// (Reparaz, Balasch and Verbauwhede, "Dude, is my code constant time?",
// 2017) does: it times one entry point many times on inputs from two
// classes, a fixed input and random inputs, interleaved at random, and
// compares the two timing distributions with Welch's t statistic. A
// constant-time path gives the same distribution for both classes, so |t|
// stays small; |t| ≥ 4.5 is taken as evidence of leakage.
//
// It is a measurement, not a unit test:
//
//	taskset -c 0 go run ./cipher/des/internal/dudect -n 1000000 -seed 1
//
// The fixed input is chosen the way an attacker of a table-based cipher
// would choose it (-fixed lines, see lines.go): the table engine of
// Encrypt reads eight 256-byte tables, four cache lines each; a random
// block makes DES read 31.7 of the 32 lines on average, and the tool
// searches (seeded, before measuring) for a DES key and a block that make
// it read far fewer (27 with the default seed), and for a block that makes
// Triple DES, with that key as K1, read fewer. Every path, bitsliced ones
// included, is measured with the same keys and fixed blocks (repeated for
// 64-block calls). -fixed fastest instead keeps the fastest of -calibrate
// random blocks, timed beforehand; -fixed zero the all-zero block.
//
// Before each measurement it evicts the level 1 data cache by reading a
// buffer larger than it (-evict), identically for both classes, so that
// the table lines a block makes the table engine read come from the level
// 2 cache: the attacker model of cache-timing attacks on table lookups,
// where other work has evicted the tables ("cold"). In the "warm"
// preparation it then runs the path once on the fixed block, so that the
// lines that block needs are cached and only other blocks miss (an
// evict-and-time model): a stronger signal for DES, a weaker one for
// Triple DES, whose fixed block reads nearly every line. By default (-prep
// both) every path is measured under both, as two tests with a line each.
// The class of each measurement is drawn at random. Besides the test on all measurements it
// runs, like dudect, tests on the measurements below several percentiles
// (set from a first, discarded chunk), which cuts the long tail of
// interrupts; it reports the largest |t|.
//
// Output: one line a path, with the number of measurements, the mean time
// of each class, the largest |t| and the test that gave it, and the table
// lines the table engine would read for the fixed block and on average
// for a random one (the bitsliced engine reads no table).
package main

import (
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/perfgate/perfgate/cipher/des"
	"github.com/perfgate/perfgate/cipher/des/internal/gen"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// path is one entry point under test: f processes blocks blocks. stages
// are the subkeys of its cipher's DES stages in the order encryption runs
// them (see gen.Trace), from which the table lines a block makes the table
// engine read are known.
type path struct {
	name   string
	blocks int
	f      func(dst, src []byte)
	stages [][16]uint64
	block  uint64 // the fixed block of -fixed lines
}

// threshold is |t| from which a difference counts as leakage.
const threshold = 4.5

// percentiles are the crops of the tests besides the one on all data.
var percentiles = []float64{0.5, 0.75, 0.9, 0.99}

// chunk is the number of measurements whose inputs are prepared at once.
const chunk = 10000

// options are the command's flags, checked.
type options struct {
	n, evict, calibrate int
	seed                uint64
	preps               []bool // the preparations to measure under: false cold, true warm
	fixedMode           string
	match               *regexp.Regexp
}

func run(args []string, stdout, stderr io.Writer) int {
	o, code := parseOptions(args, stderr)
	if o == nil {
		return code
	}
	// The keys and the fixed blocks: for DES a key and a block that make
	// the table engine read few table lines; Triple DES takes that key as
	// K1 and two more from testKey, and a block searched for them.
	desStages := func(k uint64) [][16]uint64 { return [][16]uint64{gen.Subkeys(k)} }
	desKey, desBlock := fewestLines(desStages, true, o.seed)
	tdesKey := slices.Clone(testKey)
	binary.BigEndian.PutUint64(tdesKey, desKey)
	tdesStages := func(uint64) [][16]uint64 { return tripleStages(tdesKey) }
	_, tdesBlock := fewestLines(tdesStages, false, o.seed)
	paths, err := paths(tdesKey, desBlock, tdesBlock)
	if err != nil {
		fmt.Fprintf(stderr, "dudect: error: %v\n", err)
		return 1
	}
	paths = slices.DeleteFunc(paths, func(p path) bool { return !o.match.MatchString(p.name) })
	// One thread and no garbage collection while measuring.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fmt.Fprintf(stdout, "dudect: fixed vs random plaintext, Welch t, |t| >= %.1f is leakage; %d measurements a path, "+
		"seed %d, %d KiB evicted before each, fixed input: %s\n",
		threshold, o.n, o.seed, o.evict>>10, o.fixedMode)
	fmt.Fprintf(stdout, "%-46s %10s %12s %12s %9s  %-8s %-11s %s\n", "path", "n", "fixed ns", "random ns", "max |t|",
		"test", "lines f/r", "verdict")
	for _, p := range paths {
		testPath(p, o, stdout)
	}
	return 0
}

// parseOptions parses and checks the flags; nil and the exit code when they are wrong.
func parseOptions(args []string, stderr io.Writer) (*options, int) {
	fs := flag.NewFlagSet("dudect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 1_000_000, "measurements per path")
	seed := fs.Uint64("seed", 1, "seed of the class sequence and the random inputs")
	evict := fs.Int("evict", 256<<10, "bytes read before each measurement to evict the L1 cache (0: none)")
	only := fs.String("run", "", "measure only the paths whose name matches this regular expression")
	prep := fs.String("prep", "both", "before each measurement: cold (evict), warm (evict, then run the path on the "+
		"fixed input) or both (a test each)")
	fixedMode := fs.String("fixed", "lines", "the fixed input: lines (the block touching the fewest table lines), "+
		"fastest (the fastest of -calibrate random blocks) or zero")
	calibrate := fs.Int("calibrate", 32, "with -fixed fastest: candidates for the fixed input")
	if err := fs.Parse(args); err != nil {
		return nil, 2
	}
	if *n < 2*chunk || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dudect: error: -n must be at least %d and there are no arguments\n", 2*chunk)
		return nil, 2
	}
	preps := map[string][]bool{"cold": {false}, "warm": {true}, "both": {false, true}}[*prep]
	if preps == nil {
		fmt.Fprintf(stderr, "dudect: error: -prep %q: want cold, warm or both\n", *prep)
		return nil, 2
	}
	if !slices.Contains([]string{"lines", "fastest", "zero"}, *fixedMode) {
		fmt.Fprintf(stderr, "dudect: error: -fixed %q: want lines, fastest or zero\n", *fixedMode)
		return nil, 2
	}
	match, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintf(stderr, "dudect: error: -run: %v\n", err)
		return nil, 2
	}
	return &options{n: *n, evict: *evict, calibrate: *calibrate, seed: *seed, preps: preps, fixedMode: *fixedMode,
		match: match}, 0
}

// testPath measures p under each preparation and prints a line for each.
func testPath(p path, o *options, stdout io.Writer) {
	buf := make([]byte, o.evict)
	fixed := make([]byte, p.blocks*des.BlockSize)
	switch o.fixedMode {
	case "lines":
		for i := 0; i < len(fixed); i += des.BlockSize {
			binary.BigEndian.PutUint64(fixed[i:], p.block)
		}
	case "fastest":
		fixed = pickFixed(p, o.calibrate, o.seed, buf)
	}
	// The table lines the fixed block and, on average, a random one make
	// the table engine read (the bitsliced engine reads none).
	fl := tableLines(p.stages, binary.BigEndian.Uint64(fixed))
	lines := fmt.Sprintf("%d/%.1f", fl, meanLines(p.stages, o.seed))
	for _, warm := range o.preps {
		r := measure(p, fixed, o.n, o.seed, buf, warm)
		verdict := "no leakage detected"
		if r.maxT >= threshold {
			verdict = "LEAKS"
		}
		name := p.name + " cold"
		if warm {
			name = p.name + " warm"
		}
		fmt.Fprintf(stdout, "%-46s %10d %12.1f %12.1f %9.2f  %-8s %-11s %s\n", name, r.n, r.mean[0], r.mean[1], r.maxT,
			r.test, lines, verdict)
	}
}

// testKey supplies K2 and K3 of the Triple DES paths.
var testKey = []byte("dudect key for triple DES")[:24]

// tripleStages returns the subkeys of the stages of three-key Triple DES
// (EDE) in the order encryption runs them.
func tripleStages(key []byte) [][16]uint64 {
	k := func(i int) [16]uint64 { return gen.Subkeys(binary.BigEndian.Uint64(key[8*i:])) }
	k2 := k(1) // the middle stage decrypts: its subkeys reversed
	slices.Reverse(k2[:])
	return [][16]uint64{k(0), k2, k(2)}
}

// paths returns the entry points under test: DES with the first 8 bytes of
// key, Triple DES with key, each with its fixed block.
func paths(key []byte, desBlock, tdesBlock uint64) ([]path, error) {
	c, err := des.NewCipher(key[:8])
	if err != nil {
		return nil, err
	}
	t, err := des.NewTripleEDE3(key)
	if err != nil {
		return nil, err
	}
	desKeys, tdesKeys := tripleStages(key)[:1], tripleStages(key)
	return []path{
		{"des Encrypt (table, 1 block)", 1, c.Encrypt, desKeys, desBlock},
		{"tdes_ede3 Encrypt (table, 1 block)", 1, t.Encrypt, tdesKeys, tdesBlock},
		{"des EncryptBlocks (bitsliced, 64)", 64, c.EncryptBlocks, desKeys, desBlock},
		{"des EncryptBlocks (bitsliced, 1, padded)", 1, c.EncryptBlocks, desKeys, desBlock},
		{"des DecryptBlocks (bitsliced, 64)", 64, c.DecryptBlocks, desKeys, desBlock},
		{"tdes_ede3 EncryptBlocks (bitsliced, 64)", 64, t.EncryptBlocks, tdesKeys, tdesBlock},
		// With AVX2 these take the 256-lane engine (100 blocks: one padded group), without it
		// (-tags purego, GODEBUG=cpu.avx2=off) the 64-bit one.
		{"des EncryptBlocks (bitsliced, 256)", 256, c.EncryptBlocks, desKeys, desBlock},
		{"des EncryptBlocks (bitsliced, 100, padded)", 100, c.EncryptBlocks, desKeys, desBlock},
		{"des DecryptBlocks (bitsliced, 256)", 256, c.DecryptBlocks, desKeys, desBlock},
		{"tdes_ede3 EncryptBlocks (bitsliced, 256)", 256, t.EncryptBlocks, tdesKeys, tdesBlock},
	}, nil
}

// result is the outcome of measuring one path.
type result struct {
	n    int
	mean [2]float64 // mean time of the fixed and the random class, ns
	maxT float64
	test string // the test giving maxT: "all" or "<pNN"
}

// measure times p n times (plus a first chunk that only sets the crop
// thresholds) and runs the tests.
func measure(p path, fixed []byte, n int, seed uint64, evictBuf []byte, warm bool) result {
	rng := mrand.New(mrand.NewPCG(seed, uint64(len(p.name))))
	size := p.blocks * des.BlockSize
	inputs := make([]byte, chunk*size)
	class := make([]int, chunk)
	times := make([]float64, chunk)
	dst := make([]byte, size)

	// prepare draws the classes of a chunk and writes its inputs: the fixed
	// input for the fixed class, random bytes for the other.
	prepare := func() {
		for i := range class {
			class[i] = int(rng.Uint32() & 1)
			in := inputs[i*size : (i+1)*size]
			if class[i] == 0 {
				copy(in, fixed)
			} else {
				rand.Read(in)
			}
		}
	}
	// time runs the prepared chunk.
	warmDst := make([]byte, size)
	timeChunk := func() {
		for i := range class {
			evict(evictBuf)
			if warm {
				p.f(warmDst, fixed)
			}
			in := inputs[i*size : (i+1)*size]
			t0 := time.Now()
			p.f(dst, in)
			times[i] = float64(time.Since(t0).Nanoseconds())
		}
	}

	prepare()
	timeChunk()
	sorted := slices.Sorted(slices.Values(times))
	crops := make([]float64, len(percentiles))
	for i, q := range percentiles {
		crops[i] = sorted[int(q*float64(len(sorted)-1))]
	}

	var all welch
	cropped := make([]welch, len(crops))
	for done := 0; done < n; done += chunk {
		prepare()
		timeChunk()
		for i, x := range times {
			all.add(class[i], x)
			for j, c := range crops {
				if x < c {
					cropped[j].add(class[i], x)
				}
			}
		}
	}
	r := result{n: int(all.n[0] + all.n[1]), mean: all.mean, maxT: math.Abs(all.t()), test: "all"}
	for j, w := range cropped {
		if t := math.Abs(w.t()); t > r.maxT {
			r.maxT, r.test = t, fmt.Sprintf("<p%02.0f", 100*percentiles[j])
		}
	}
	return r
}

// calibrationRuns is the number of timings of each candidate fixed input.
const calibrationRuns = 1000

// pickFixed returns the fixed input for p: of k random candidates, the one
// with the smallest median time. A path whose time depends on its input
// then shows it with the most extreme input it is easy to find, as a
// careful attacker would choose it; the test itself runs on fresh
// measurements, so the choice does not bias it. On a constant-time path the
// choice only follows noise, and the test finds nothing.
func pickFixed(p path, k int, seed uint64, evictBuf []byte) []byte {
	rng := mrand.New(mrand.NewPCG(seed, 0xca11b))
	size := p.blocks * des.BlockSize
	cands := make([]byte, k*size)
	for i := range cands {
		cands[i] = byte(rng.Uint32())
	}
	times := make([][]float64, k)
	dst := make([]byte, size)
	// Candidates in turn, so that drift affects them alike.
	for range calibrationRuns {
		for c := range k {
			in := cands[c*size : (c+1)*size]
			evict(evictBuf)
			t0 := time.Now()
			p.f(dst, in)
			times[c] = append(times[c], float64(time.Since(t0).Nanoseconds()))
		}
	}
	best, bestMedian := 0, math.Inf(1)
	for c, ts := range times {
		slices.Sort(ts)
		if m := ts[len(ts)/2]; m < bestMedian {
			best, bestMedian = c, m
		}
	}
	return cands[best*size : (best+1)*size]
}

// sink keeps the eviction reads from being optimised away.
//
//lint:ignore U1000 only written: a store to a global is what keeps the reads.
var sink byte

// evict reads one byte of every cache line of buf.
func evict(buf []byte) {
	var s byte
	for i := 0; i < len(buf); i += 64 {
		s += buf[i]
	}
	sink += s
}
