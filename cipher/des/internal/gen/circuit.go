package gen

import (
	"fmt"
	"math/bits"
	"slices"
)

// This file derives a Boolean circuit for each S-box from its table, for the
// bitsliced engine. A circuit is a straight-line program of AND, OR, XOR,
// AND-NOT and NOT gates over the six input words; every intermediate value
// is identified by its truth table over the 64 possible inputs, so two ways
// of computing the same function are recognised as one.
//
// The synthesis is greedy and heuristic. For each output bit (in a given
// order) it looks for the function among the values already computed, then
// for one gate over two of them, then for two gates (an XOR with a one-gate
// value). Failing that, it splits the function on one input v into its
// cofactors f0 (v = 0) and f1 (v = 1) and takes the cheapest of
//
//	f0 ^ (v & (f0^f1))    positive Davio
//	f1 ^ (^v & (f0^f1))   negative Davio
//	(^v & f0) | (v & f1)  Shannon
//
// judging each by what its two sub-functions would cost, then recurses on
// those. Every output order is tried and the cheapest circuit kept. The
// costs are machine operations on amd64 (GOAMD64=v1), where AND-NOT is a NOT
// followed by an AND and so counts two.

// gateOp is the operation of a circuit node.
type gateOp uint8

const (
	opInput gateOp = iota
	opAnd
	opOr
	opXor
	opAndNot // a &^ b
	opNot    // ^a
)

// opCost is the cost of each operation in machine instructions.
var opCost = [...]int{opInput: 0, opAnd: 1, opOr: 1, opXor: 1, opAndNot: 2, opNot: 1}

// node is one value of a circuit: its truth table and how it is computed.
type node struct {
	tt   uint64 // bit x is the value for the S-box input x
	op   gateOp
	a, b int // operand nodes (b unused for opNot)
}

// Circuit is a straight-line program computing the four output bits of one
// S-box from its six input bits. Nodes 0 to 5 are the inputs (first input
// bit first); Out holds the node of each output bit (first output bit first).
type Circuit struct {
	nodes []node
	Out   [4]int
}

// Cost returns the number of machine operations of the circuit.
func (c *Circuit) Cost() int {
	n := 0
	for _, nd := range c.nodes {
		n += opCost[nd.op]
	}
	return n
}

// Gates returns the number of gates of the circuit.
func (c *Circuit) Gates() int { return len(c.nodes) - 6 }

// inputTT is the truth table of input bit i (0 = first, the most significant
// bit of the 6-bit S-box input x).
func inputTT(i int) uint64 {
	var t uint64
	for x := range 64 {
		if x>>(5-i)&1 == 1 {
			t |= 1 << x
		}
	}
	return t
}

// SBoxTT returns the truth tables of the four output bits of S-box s (0-7),
// indexed by the 6-bit input x as the standard orders it (first bit most
// significant; the row is the first and last bits).
func SBoxTT(s int) [4]uint64 {
	var out [4]uint64
	for x := range 64 {
		v := sBoxes[s][x>>4&2|x&1][x>>1&15]
		for j := range 4 {
			out[j] |= uint64(v>>(3-j)&1) << x
		}
	}
	return out
}

// oneGate is a value computable by one gate from two existing nodes.
type oneGate struct {
	op   gateOp
	a, b int
}

// builder accumulates a circuit. index finds a node by its truth table; ones
// finds, for a truth table, a gate over existing nodes that computes it.
type builder struct {
	nodes []node
	index map[uint64]int
	ones  map[uint64]oneGate
}

func newBuilder() *builder {
	b := &builder{index: map[uint64]int{}, ones: map[uint64]oneGate{}}
	for i := range 6 {
		b.add(node{tt: inputTT(i), op: opInput})
	}
	return b
}

// add appends a node (which must be new) and records the one-gate values it
// makes reachable.
func (b *builder) add(n node) int {
	id := len(b.nodes)
	b.nodes = append(b.nodes, n)
	b.index[n.tt] = id
	b.offer(^n.tt, oneGate{opNot, id, id})
	for j := range id {
		t := b.nodes[j].tt
		b.offer(n.tt&t, oneGate{opAnd, j, id})
		b.offer(n.tt|t, oneGate{opOr, j, id})
		b.offer(n.tt^t, oneGate{opXor, j, id})
		b.offer(t&^n.tt, oneGate{opAndNot, j, id})
		b.offer(n.tt&^t, oneGate{opAndNot, id, j})
	}
	return id
}

// offer records g as the way to compute t unless a cheaper or earlier one is
// known.
func (b *builder) offer(t uint64, g oneGate) {
	if old, ok := b.ones[t]; ok && opCost[old.op] <= opCost[g.op] {
		return
	}
	b.ones[t] = g
}

// gate returns the node computing op(x, y), adding it if it is new.
func (b *builder) gate(op gateOp, x, y int) int {
	var t uint64
	tx, ty := b.nodes[x].tt, b.nodes[y].tt
	switch op {
	case opAnd:
		t = tx & ty
	case opOr:
		t = tx | ty
	case opXor:
		t = tx ^ ty
	case opAndNot:
		t = tx &^ ty
	case opNot:
		t = ^tx
	}
	if id, ok := b.index[t]; ok {
		return id
	}
	return b.add(node{tt: t, op: op, a: x, b: y})
}

// quick returns the cost of computing t with at most two more gates, and
// whether it can. It adds nothing.
func (b *builder) quick(t uint64) (int, bool) {
	if _, ok := b.index[t]; ok {
		return 0, true
	}
	if g, ok := b.ones[t]; ok {
		return opCost[g.op], true
	}
	best, found := 0, false
	for i := range b.nodes {
		if g, ok := b.ones[t^b.nodes[i].tt]; ok {
			if c := 1 + opCost[g.op]; !found || c < best {
				best, found = c, true
			}
		}
	}
	return best, found
}

// quickBuild computes t with at most two gates; quick must have said it can.
func (b *builder) quickBuild(t uint64) int {
	if id, ok := b.index[t]; ok {
		return id
	}
	if g, ok := b.ones[t]; ok {
		return b.gate(g.op, g.a, g.b)
	}
	bestI, bestC := -1, 0
	for i := range b.nodes {
		if g, ok := b.ones[t^b.nodes[i].tt]; ok {
			if c := opCost[g.op]; bestI < 0 || c < bestC {
				bestI, bestC = i, c
			}
		}
	}
	g := b.ones[t^b.nodes[bestI].tt]
	return b.gate(opXor, bestI, b.gate(g.op, g.a, g.b))
}

// cofactors returns f with input v fixed to 0 and to 1, each as a function
// that does not depend on v.
func cofactors(f uint64, v int) (f0, f1 uint64) {
	w := uint(1) << (5 - v)
	m := inputTT(v)
	f0 = f &^ m
	f0 |= f0 << w
	f1 = f & m
	f1 |= f1 >> w
	return f0, f1
}

// depends reports whether f depends on input v.
func depends(f uint64, v int) bool {
	f0, f1 := cofactors(f, v)
	return f0 != f1
}

// estimate is the estimated cost of computing t: exact if two gates or
// fewer do, otherwise a bound growing with the number of inputs t depends on.
func (b *builder) estimate(t uint64) int {
	if c, ok := b.quick(t); ok {
		return c
	}
	n := 0
	for v := range 6 {
		if depends(t, v) {
			n++
		}
	}
	return 3 + 3*n
}

// Decomposition forms, see the file comment.
const (
	davioPos = iota
	davioNeg
	shannon
)

// not returns the node of ^x.
func (b *builder) not(x int) int { return b.gate(opNot, x, x) }

// synth computes t and returns its node.
func (b *builder) synth(t uint64) int {
	if _, ok := b.quick(t); ok {
		return b.quickBuild(t)
	}
	bestV, bestForm, bestCost := -1, 0, 0
	for v := range 6 {
		f0, f1 := cofactors(t, v)
		if f0 == f1 {
			continue
		}
		d := f0 ^ f1
		_, haveNot := b.index[^b.nodes[v].tt]
		notCost := 0
		if !haveNot {
			notCost = 1
		}
		costs := [3]int{
			davioPos: 2 + b.estimate(f0) + b.estimate(d),
			davioNeg: 2 + notCost + b.estimate(f1) + b.estimate(d),
			shannon:  3 + notCost + b.estimate(f0) + b.estimate(f1),
		}
		for form, c := range costs {
			if bestV < 0 || c < bestCost {
				bestV, bestForm, bestCost = v, form, c
			}
		}
	}
	v := bestV
	f0, f1 := cofactors(t, v)
	switch bestForm {
	case davioPos:
		x, d := b.synth(f0), b.synth(f0^f1)
		return b.gate(opXor, x, b.gate(opAnd, v, d))
	case davioNeg:
		x, d := b.synth(f1), b.synth(f0^f1)
		return b.gate(opXor, x, b.gate(opAnd, b.not(v), d))
	default:
		x, y := b.synth(f0), b.synth(f1)
		return b.gate(opOr, b.gate(opAnd, b.not(v), x), b.gate(opAnd, v, y))
	}
}

// SBoxCircuit returns the cheapest circuit found for S-box s (0-7): the
// outputs are synthesised in every order and the cheapest result is kept
// (the first of equals, in lexicographic order of the permutations).
func SBoxCircuit(s int) (*Circuit, error) {
	targets := SBoxTT(s)
	var best *Circuit
	for _, order := range permutations4() {
		b := newBuilder()
		var c Circuit
		for _, j := range order {
			c.Out[j] = b.synth(targets[j])
		}
		c.nodes = b.nodes
		c.prune()
		if best == nil || c.Cost() < best.Cost() {
			best = &c
		}
	}
	for j, t := range targets {
		if got := best.nodes[best.Out[j]].tt; got != t {
			return nil, fmt.Errorf("s-box %d output %d: circuit computes %016x, want %016x", s+1, j+1, got, t)
		}
	}
	return best, nil
}

// prune drops the nodes no output needs, keeping the order of the rest.
func (c *Circuit) prune() {
	live := make([]bool, len(c.nodes))
	for i := range 6 {
		live[i] = true
	}
	var mark func(int)
	mark = func(i int) {
		if live[i] {
			return
		}
		live[i] = true
		n := c.nodes[i]
		mark(n.a)
		if n.op != opNot {
			mark(n.b)
		}
	}
	for _, o := range c.Out {
		mark(o)
	}
	renum := make([]int, len(c.nodes))
	var kept []node
	for i, n := range c.nodes {
		if !live[i] {
			continue
		}
		renum[i] = len(kept)
		n.a, n.b = renum[n.a], renum[n.b]
		kept = append(kept, n)
	}
	for j := range c.Out {
		c.Out[j] = renum[c.Out[j]]
	}
	c.nodes = kept
}

// Eval runs the circuit on six input words (bitsliced inputs, first input
// bit first) and returns the four output words.
func (c *Circuit) Eval(in [6]uint64) [4]uint64 {
	v := make([]uint64, len(c.nodes))
	for i, n := range c.nodes {
		switch n.op {
		case opInput:
			v[i] = in[i]
		case opAnd:
			v[i] = v[n.a] & v[n.b]
		case opOr:
			v[i] = v[n.a] | v[n.b]
		case opXor:
			v[i] = v[n.a] ^ v[n.b]
		case opAndNot:
			v[i] = v[n.a] &^ v[n.b]
		case opNot:
			v[i] = ^v[n.a]
		}
	}
	var out [4]uint64
	for j, o := range c.Out {
		out[j] = v[o]
	}
	return out
}

// permutations4 returns the 24 orders of 0, 1, 2, 3 in lexicographic order.
func permutations4() [][4]int {
	var out [][4]int
	for p := range 4 * 4 * 4 * 4 {
		o := [4]int{p >> 6, p >> 4 & 3, p >> 2 & 3, p & 3}
		seen := 0
		for _, x := range o {
			seen |= 1 << x
		}
		if bits.OnesCount(uint(seen)) == 4 {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(x, y [4]int) int { return slices.Compare(x[:], y[:]) })
	return out
}
