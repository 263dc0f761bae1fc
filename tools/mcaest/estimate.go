package mcaest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/internal/valgrind"
)

// Defaults of Config.
const (
	// DefaultCPU is the llvm-mca model of the machine perfgate was developed on, an AMD EPYC of
	// family 25 (Zen 3), which is what llvm-mca 14 reports as its host CPU there.
	DefaultCPU = "znver3"
	// DefaultShare is the share of the executed instructions whose blocks llvm-mca analyzes.
	DefaultShare = 0.99
	// DefaultTarget is how many instructions N iterations should execute when N is probed: enough
	// that a few hundred instructions a run does differently (the runtime's timers, a sysmon
	// wake-up) are 10⁻⁴ of them.
	DefaultTarget = 5_000_000
)

// Config says what to estimate.
type Config struct {
	Binary string // a Go test binary for amd64, with its symbol table
	Bench  string // a leaf benchmark's full name without "Benchmark", e.g. "Sum" or "Encrypt/des"
	// N is the iterations: the estimate counts the runs at N and 2N. 0 probes a run at 1 and 2
	// iterations and takes the N whose difference holds Target instructions.
	N      int
	Target int64 // instructions for a probed N; 0 means DefaultTarget
	// Valgrind and MCA are the programs; "" looks for valgrind and llvm-mca (then llvm-mca-14) in
	// PATH.
	Valgrind, MCA string
	CPU           string // llvm-mca's -mcpu; "" means DefaultCPU
	// the share of instructions whose blocks are analyzed; 0 means DefaultShare
	Share float64
	// scratch space for callgrind's output; "" means a new temporary directory
	Dir string
	// Merge analyzes each function's blocks that executed equally often as one sequence
	// (mergeBlocks) rather than each block alone.
	Merge bool
}

// Result is the estimate of one benchmark leaf on one binary.
type Result struct {
	Instructions float64 // instructions per op of the benchmark's code (countedCode)
	Runtime      float64 // instructions per op of the runtime and the testing package, left out
	Cycles       float64 // est-mca cycles per op
	N            int     // the iterations counted
	Blocks       int     // the blocks executed
	Hot          []Block // the blocks analyzed, most instructions first
	// Noise is the instructions per op of the benchmark's code at addresses that ran less often at
	// 2N than at N, left out.
	Noise float64
	// Rejected is the instructions per op that llvm-mca or the decoder could not model, charged a
	// cycle each.
	Rejected float64
}

// Block is one analyzed block of a Result.
type Block struct {
	Start    uint64   // the address of its first instruction
	Func     string   // the function that holds it
	Insns    int      // its instructions
	Code     []string // the instructions that decoded, in GNU syntax
	PerOp    float64  // its executions per op
	PerIter  float64  // llvm-mca's cycles per execution
	Rejected int      // instructions llvm-mca or the decoder could not model
}

// Estimate runs cfg.Bench on cfg.Binary under callgrind at N and 2N iterations, groups the
// difference into blocks and asks llvm-mca for each hot block's cycles per execution: est-mca
// cycles per op is the sum over the blocks of executions × cycles per execution, over N. The blocks
// outside cfg.Share are charged at the hot blocks' mean cycles per instruction.
func Estimate(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Binary == "" || cfg.Bench == "" || cfg.N < 0 || cfg.Target < 0 {
		return nil, errors.New("mcaest: a binary and a benchmark are required, N and the target not negative")
	}
	if cfg.Target == 0 {
		cfg.Target = DefaultTarget
	}
	bin, err := filepath.Abs(cfg.Binary) // the runs start in its directory
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	cfg.Binary = bin
	vg, err := valgrind.Find(ctx, cfg.Valgrind, "the instruction-count lane needs it")
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	if _, err := findMCA(cfg.MCA); err != nil {
		return nil, err
	}
	t, err := readText(cfg.Binary)
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	dir := cfg.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "mcaest-"); err != nil {
			return nil, fmt.Errorf("mcaest: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	if cfg.N == 0 {
		// At 2 and 4 iterations: a b.N benchmark runs once at b.N = 1 first, unless -test.benchtime
		// is 1x.
		probe, err := loopCounts(ctx, vg.Path, cfg.Binary, cfg.Bench, 2, dir)
		if err != nil {
			return nil, fmt.Errorf("mcaest: probing N: %w", err)
		}
		keepCounted(t, probe)
		dropNegative(probe)
		var ir int64
		for _, n := range probe {
			ir += n
		}
		perOp := max(ir/2, 1)
		cfg.N = int(max(2, min(cfg.Target, (cfg.Target+perOp-1)/perOp)))
	}
	counts, err := loopCounts(ctx, vg.Path, cfg.Binary, cfg.Bench, cfg.N, dir)
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	runtime := keepCounted(t, counts)
	res, err := cost(ctx, cfg, t, counts, cfg.N)
	if err != nil {
		return nil, fmt.Errorf("mcaest: %s: %w", cfg.Bench, err)
	}
	res.Runtime = float64(runtime) / float64(cfg.N)
	return res, nil
}

// Cost is the part of Estimate after the counting, for a caller that counted already: counts holds
// the instructions executed at each address of cfg.Binary in n iterations of a benchmark, of the
// code the caller means to cost (the instruction-count lane's counted code, say). An address with a
// count that is not positive is left out and its count reported as Noise. cfg.Bench, Valgrind, N
// and Target are not used.
func Cost(ctx context.Context, cfg Config, counts map[uint64]int64, n int) (*Result, error) {
	if cfg.Binary == "" || n < 1 {
		return nil, errors.New("mcaest: a binary and n ≥ 1 are required")
	}
	t, err := readText(cfg.Binary)
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	res, err := cost(ctx, cfg, t, maps.Clone(counts), n)
	if err != nil {
		return nil, fmt.Errorf("mcaest: %w", err)
	}
	return res, nil
}

// cost costs counts, which it modifies, of n iterations of the code t holds.
func cost(ctx context.Context, cfg Config, t *text, counts map[uint64]int64, n int) (*Result, error) {
	if cfg.CPU == "" {
		cfg.CPU = DefaultCPU
	}
	if cfg.Share <= 0 || cfg.Share > 1 {
		cfg.Share = DefaultShare
	}
	mca, err := findMCA(cfg.MCA)
	if err != nil {
		return nil, err
	}
	noise := dropNegative(counts)
	blocks := formBlocks(t, counts)
	if cfg.Merge {
		blocks = mergeBlocks(t, blocks)
	}
	hot, total := hotBlocks(blocks, cfg.Share)
	if len(hot) == 0 {
		return nil, errors.New("no instructions executed per iteration (hint: is N large enough?)")
	}
	regions, rejected, err := runMCA(ctx, mca, cfg.CPU, hot)
	if err != nil {
		return nil, err
	}
	res := combine(t, hot, regions, rejected, total, float64(n))
	res.N, res.Blocks, res.Noise = n, len(blocks), float64(noise)/float64(n)
	return res, nil
}

// combine adds up the hot blocks' cycles (regions, by block) into a Result; total is the
// instructions of all blocks, n the iterations. A rejected or undecoded instruction costs a cycle
// per execution, on top of what llvm-mca says of the rest of its block.
func combine(t *text, hot []block, regions []regionCycles, rejected []int, total int64, n float64) *Result {
	res := &Result{Instructions: float64(total) / n}
	var cycles, covered float64
	for i, b := range hot {
		bad := b.unknown + rejected[i]
		per := float64(bad)
		if regions[i].iterations > 0 {
			per += regions[i].perIter()
		}
		cycles += float64(b.execs) * per
		covered += float64(b.ir())
		res.Rejected += float64(b.execs) * float64(bad) / n
		res.Hot = append(res.Hot, Block{Start: b.start, Func: t.funcName(b.start), Insns: len(b.insns) + b.unknown,
			Code:  b.insns,
			PerOp: float64(b.execs) / n, PerIter: per, Rejected: bad})
	}
	res.Cycles = cycles * float64(total) / covered / n
	slices.SortStableFunc(res.Hot, func(a, b Block) int {
		return cmp.Compare(b.PerOp*b.PerIter, a.PerOp*a.PerIter)
	})
	return res
}

// findMCA returns the llvm-mca program: path, or llvm-mca or llvm-mca-14 in PATH.
func findMCA(path string) (string, error) {
	names := []string{"llvm-mca", "llvm-mca-14"}
	if path != "" {
		names = []string{path}
	}
	for _, n := range names {
		if full, err := exec.LookPath(n); err == nil {
			return full, nil
		}
	}
	return "", fmt.Errorf("mcaest: llvm-mca not found (%s); install it with \"sudo apt-get install -y llvm\"",
		names[0])
}
