// Package mcaest estimates a benchmark's cycles per operation with a model of the processor's
// pipeline, where the instruction count and callgrind's cache-based estimate see neither latency
// nor throughput: a DIV counts as one instruction and one L1 access, like an ADD, so a change that
// runs fewer instructions at a lower IPC looks faster to both.
//
// The data flows in three steps. Callgrind runs the benchmark leaf at N and at 2N iterations,
// counting the instructions executed at every address (--dump-instr=yes); the difference of the two
// runs is what N iterations execute, without the process's start-up (loopCounts). The executed
// addresses are decoded from the binary's machine code and grouped into blocks, straight-line runs
// of instructions that executed equally often and end at a branch, call or return (formBlocks). The
// blocks that together hold Config.Share of the instructions go to llvm-mca, each as a code region
// it repeats 100 times, and its total cycles over the iterations are the block's cycles per
// execution (runMCA). The estimate is the sum over the blocks of executions × cycles per execution,
// over N, with the remaining blocks charged at the analyzed ones' mean cycles per instruction.
//
// What it cannot see: a block is repeated alone, so a loop whose body spans several blocks (a
// branch inside, a call) loses the dependencies between them, and code that runs once is costed at
// its throughput, not its latency; llvm-mca assumes every load hits L1 and every branch is
// predicted. It reads amd64 code only.
package mcaest
