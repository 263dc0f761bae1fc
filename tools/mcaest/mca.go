package mcaest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
)

// mcaIterations is how many times llvm-mca runs each block: enough that the pipeline's fill and
// drain, a few cycles, are a small part of the total.
const mcaIterations = 100

// regionCycles is what llvm-mca says of one code region.
type regionCycles struct {
	iterations int64
	cycles     int64 // Total Cycles
}

// perIter returns the region's cycles per iteration.
func (r regionCycles) perIter() float64 { return float64(r.cycles) / float64(r.iterations) }

// mcaInput writes each block as a code region of llvm-mca's input, named b0, b1, … after its index,
// and returns the input and, for each of its lines, the index of the block it belongs to (-1 for a
// marker).
func mcaInput(blocks []block) ([]byte, []int) {
	var buf bytes.Buffer
	lineBlock := []int{-1} // lines count from 1
	for i, b := range blocks {
		fmt.Fprintf(&buf, "# LLVM-MCA-BEGIN b%d\n", i)
		lineBlock = append(lineBlock, -1)
		for _, s := range b.insns {
			buf.WriteString(s)
			buf.WriteByte('\n')
			lineBlock = append(lineBlock, i)
		}
		fmt.Fprintf(&buf, "# LLVM-MCA-END b%d\n", i)
		lineBlock = append(lineBlock, -1)
	}
	return buf.Bytes(), lineBlock
}

// runMCA runs llvm-mca (program mca) for the CPU model cpu over blocks and returns the cycles of
// each block's region, and for each block how many of its instructions llvm-mca rejected (it
// reports them and leaves them out). A block with no region in the output (all its instructions
// rejected) has a zero regionCycles.
func runMCA(ctx context.Context, mca, cpu string, blocks []block) ([]regionCycles, []int, error) {
	in, lineBlock := mcaInput(blocks)
	cmd := proc.Command(ctx, "", nil, mca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu="+cpu,
		"-iterations="+strconv.Itoa(mcaIterations), "-instruction-info=false", "-resource-pressure=false")
	cmd.Stdin = bytes.NewReader(in)
	stdout, stderr, err := proc.RunLimit(cmd, 1<<28)
	if err != nil && bytes.Contains(stderr, []byte("no assembly instructions found")) {
		err = nil // every instruction rejected: every block is unmodelled
	}
	if err != nil {
		return nil, nil, fmt.Errorf("running llvm-mca: %w", err)
	}
	regions, err := parseMCA(bytes.NewReader(stdout))
	if err != nil {
		return nil, nil, err
	}
	out := make([]regionCycles, len(blocks))
	for name, r := range regions {
		i, err := strconv.Atoi(strings.TrimPrefix(name, "b"))
		if err != nil || !strings.HasPrefix(name, "b") || i < 0 || i >= len(blocks) {
			return nil, nil, fmt.Errorf("llvm-mca output: unexpected code region %q", name)
		}
		out[i] = r
	}
	rejected := make([]int, len(blocks))
	for _, line := range rejectedLines(stderr) {
		if line > 0 && line < len(lineBlock) && lineBlock[line] >= 0 {
			rejected[lineBlock[line]]++
		}
	}
	return out, rejected, nil
}

// mcaError matches llvm-mca's report of an input line it rejected: "<stdin>:LINE:COL: error: …".
var mcaError = regexp.MustCompile(`^<stdin>:(\d+):\d+: error: `)

// rejectedLines returns the input lines llvm-mca's standard error reports as rejected, in order.
func rejectedLines(stderr []byte) []int {
	var lines []int
	for _, l := range strings.Split(string(stderr), "\n") {
		if m := mcaError.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			lines = append(lines, n)
		}
	}
	return lines
}

// parseMCA reads llvm-mca's summary of each named code region: "[0] Code Region - NAME" followed by
// "Iterations:" and "Total Cycles:" lines.
func parseMCA(r io.Reader) (map[string]regionCycles, error) {
	out := map[string]regionCycles{}
	var name string
	var cur regionCycles
	flush := func() error {
		if name == "" {
			return nil
		}
		if cur.iterations <= 0 || cur.cycles <= 0 {
			return fmt.Errorf("llvm-mca output: code region %s has no iterations or total cycles", name)
		}
		out[name] = cur
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if _, rest, ok := strings.Cut(line, "] Code Region - "); ok && strings.HasPrefix(line, "[") {
			if err := flush(); err != nil {
				return nil, err
			}
			name, cur = rest, regionCycles{}
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || name == "" || (key != "Iterations" && key != "Total Cycles") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("llvm-mca output: malformed %q in code region %s", line, name)
		}
		if key == "Iterations" {
			cur.iterations = n
		} else {
			cur.cycles = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading llvm-mca output: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
