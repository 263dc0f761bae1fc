package gen

import (
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// gateOp is the operation of a circuit node.
type gateOp uint8

const (
	opInput gateOp = iota
	opAnd
	opOr
	opXor
	opAndNot // a &^ b
	opNot    // ^a
	opConst  // all zeros or all ones
)

// opCost is the cost of each operation in machine instructions.
var opCost = [...]int{opInput: 0, opAnd: 1, opOr: 1, opXor: 1, opAndNot: 2, opNot: 1, opConst: 0}

// node is one value of a circuit: its truth table and how it is computed.
type node struct {
	tt   uint64 // bit x is the value for the S-box input x
	op   gateOp
	a, b int // operand nodes (b unused for opNot)
}

// Circuit is a straight-line program computing the four output bits of one
// S-box from its six input bits. Nodes 0 to 5 are the inputs (first input
// bit first); Out holds the node of each output bit (first output bit first).
//
// Each S-box's circuit is derived from its table, for the bitsliced
// engine. A circuit is a straight-line program of AND, OR, XOR,
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
type Circuit struct {
	nodes []node
	Out   [4]int
	sched int // if not 0, schedule returns schedules()[sched-1]
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
	// rng, if not nil, picks at random among decompositions whose
	// estimated cost is within slack of the cheapest.
	rng   *rand.Rand
	slack int
}

func newBuilder(rng *rand.Rand, slack int) *builder {
	b := &builder{index: map[uint64]int{}, ones: map[uint64]oneGate{}, rng: rng, slack: slack}
	for i := range 6 {
		b.add(node{tt: inputTT(i), op: opInput})
	}
	// The constants, for cofactors that are constant; gate never emits a
	// gate with a constant operand.
	for _, t := range []uint64{0, ^uint64(0)} {
		b.index[t] = len(b.nodes)
		b.nodes = append(b.nodes, node{tt: t, op: opConst})
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
	// With a constant operand the result is a constant, the other operand
	// (both in the index) or its complement.
	if b.nodes[x].op == opConst || b.nodes[y].op == opConst || op == opNot {
		if b.nodes[x].op == opConst {
			x = y
		}
		if t != ^b.nodes[x].tt {
			panic("gen: gate with a constant operand gives neither a constant, its other operand nor its complement")
		}
		return b.add(node{tt: t, op: opNot, a: x, b: x})
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
	type choice struct{ v, form, cost int }
	var choices []choice
	bestCost := -1
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
			choices = append(choices, choice{v, form, c})
			if bestCost < 0 || c < bestCost {
				bestCost = c
			}
		}
	}
	// The first cheapest, or a random one of those within the slack.
	var pick choice
	if b.rng == nil {
		for _, c := range choices {
			if c.cost == bestCost {
				pick = c
				break
			}
		}
	} else {
		choices = slices.DeleteFunc(choices, func(c choice) bool { return c.cost > bestCost+b.slack })
		pick = choices[b.rng.IntN(len(choices))]
	}
	return b.decompose(t, pick.v, pick.form, b.synth)
}

// decompose computes t by splitting it on input v in the given form, with
// sub computing the two sub-functions.
func (b *builder) decompose(t uint64, v, form int, sub func(uint64) int) int {
	f0, f1 := cofactors(t, v)
	switch form {
	case davioPos:
		x, d := sub(f0), sub(f0^f1)
		return b.gate(opXor, x, b.gate(opAnd, v, d))
	case davioNeg:
		x, d := sub(f1), sub(f0^f1)
		return b.gate(opXor, x, b.gate(opAnd, b.not(v), d))
	default:
		x, y := sub(f0), sub(f1)
		return b.gate(opOr, b.gate(opAnd, b.not(v), x), b.gate(opAnd, v, y))
	}
}

// synthAhead is synth with lookahead: at the top depth levels it does not
// estimate but tries every decomposition on a copy of the circuit, letting
// synth (or synthAhead one level less deep) finish it, and keeps the
// cheapest result. At the top level the cost of a candidate includes the
// outputs still to come (rest), finished greedily on a further copy, since
// what one output builds the others can share.
func (b *builder) synthAhead(t uint64, depth int, rest []uint64) int {
	if _, ok := b.quick(t); ok || depth == 0 {
		return b.synth(t)
	}
	var best *builder
	bestID, bestCost := -1, 0
	for v := range 6 {
		if !depends(t, v) {
			continue
		}
		for form := range 3 {
			c := b.clone()
			id := c.decompose(t, v, form, func(u uint64) int { return c.synthAhead(u, depth-1, nil) })
			cost := c.cost()
			if len(rest) > 0 {
				d := c.clone()
				for _, u := range rest {
					d.synth(u)
				}
				cost = d.cost()
			}
			if best == nil || cost < bestCost {
				best, bestID, bestCost = c, id, cost
			}
		}
	}
	*b = *best
	return bestID
}

// clone returns a copy of b that can grow independently (sharing rng).
func (b *builder) clone() *builder {
	c := *b
	c.nodes = slices.Clone(b.nodes)
	c.index = maps.Clone(b.index)
	c.ones = maps.Clone(b.ones)
	return &c
}

// cost returns the cost of the nodes built so far.
func (b *builder) cost() int {
	n := 0
	for _, nd := range b.nodes {
		n += opCost[nd.op]
	}
	return n
}

// Recipe says how to reproduce the best circuit the search found for an
// S-box: the order in which its outputs are synthesised and the seed of the
// random choices (0: none, always the first cheapest decomposition).
type Recipe struct {
	Order [4]int
	Seed  uint64
	Slack int
	Ahead int  // levels of lookahead below each output (see synthAhead)
	Joint bool // the top lookahead level counts the outputs still to come
	// Schedule, if not 0, picks the order of the gates: the order
	// schedules()[Schedule-1] instead of the one with the fewest
	// simulated spills.
	Schedule int
}

// recipes are the best recipes found for each S-box. Two-level lookahead
// (Ahead: 2) over the 24 output orders beat 1,500 random trials of
// SearchSBox on every box (total cost 528 against 557), and counting the
// outputs still to come at the top level (Joint) did better on five boxes
// (518 in all). But fewer gates did not mean fewer instructions: what the
// compiler makes of a circuit depends as much on its spills and moves. So
// each box's recipe is the one, of the 48 with Ahead 2 (24 orders, Joint
// or not), whose S-box compiled alone into the round's context (inputs
// loaded from the state and the key, outputs XORed into the state) took
// the fewest amd64 instructions: 924 for the eight against 962 for the
// cheapest circuits. Then the gate order: of the 400 orders of schedules
// with the fewest simulated spills, each compiled the same way, the one
// with the fewest instructions (908 for the eight against 924 for the
// order spills prefers). The comments give each circuit's cost and
// instruction count.
var recipes = [8]Recipe{
	{Order: [4]int{2, 3, 0, 1}, Ahead: 2, Schedule: 611},               // S1: 75, 126 instructions
	{Order: [4]int{0, 2, 1, 3}, Ahead: 2, Schedule: 194},               // S2: 70, 116
	{Order: [4]int{3, 1, 2, 0}, Ahead: 2, Schedule: 1197},              // S3: 69, 118
	{Order: [4]int{1, 0, 3, 2}, Ahead: 2, Schedule: 26},                // S4: 50, 83
	{Order: [4]int{0, 3, 1, 2}, Ahead: 2, Schedule: 79},                // S5: 75, 125
	{Order: [4]int{0, 3, 2, 1}, Ahead: 2, Schedule: 43},                // S6: 68, 122
	{Order: [4]int{1, 0, 2, 3}, Ahead: 2, Joint: true, Schedule: 1739}, // S7: 69, 117
	{Order: [4]int{1, 3, 0, 2}, Ahead: 2, Joint: true, Schedule: 191},  // S8: 62, 101
}

// SBoxCircuit returns the circuit of S-box s (0-7) made by its recipe, or, if
// it has none, the cheapest made without random choices over every output
// order (the first of equals, in lexicographic order of the orders).
func SBoxCircuit(s int) (*Circuit, error) {
	var c *Circuit
	if r := recipes[s]; r.Seed != 0 || r.Ahead != 0 {
		c = build(s, r)
	} else {
		for _, order := range permutations4() {
			if x := build(s, Recipe{Order: order}); c == nil || x.Cost() < c.Cost() {
				c = x
			}
		}
	}
	var in [6]uint64
	for i := range in {
		in[i] = inputTT(i)
	}
	got := c.Eval(in)
	for j, t := range SBoxTT(s) {
		if got := got[j]; got != t {
			return nil, fmt.Errorf("s-box %d output %d: circuit computes %016x, want %016x", s+1, j+1, got, t)
		}
	}
	return c, nil
}

// build synthesises S-box s by recipe r.
func build(s int, r Recipe) *Circuit {
	targets := SBoxTT(s)
	var rng *rand.Rand
	if r.Seed != 0 {
		rng = rand.New(rand.NewPCG(r.Seed, uint64(s)))
	}
	b := newBuilder(rng, r.Slack)
	var c Circuit
	for i, j := range r.Order {
		var rest []uint64
		for _, k := range r.Order[i+1:] {
			if r.Joint {
				rest = append(rest, targets[k])
			}
		}
		c.Out[j] = b.synthAhead(targets[j], r.Ahead, rest)
	}
	c.nodes = b.nodes
	c.prune()
	c.sched = r.Schedule
	return &c
}

// SearchSBox tries trials random recipes for S-box s (seeds first, first+1,
// ...) and returns the cheapest with its cost. `go run gen.go -search N` in
// package des prints the best of each S-box as Go source for recipes.
func SearchSBox(s int, first uint64, trials int, slack int) (Recipe, int) {
	orders := permutations4()
	var best Recipe
	bestCost := -1
	for i := range trials {
		seed := first + uint64(i)
		r := Recipe{Order: orders[seed%uint64(len(orders))], Seed: seed, Slack: slack}
		if c := build(s, r).Cost(); bestCost < 0 || c < bestCost {
			best, bestCost = r, c
		}
	}
	return best, bestCost
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
		case opConst:
			v[i] = n.tt
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

// schedule returns an order in which to compute the gates (node numbers,
// inputs left out): the one of schedules the recipe names, or else the one
// that needs the fewest spills to the stack, as spills simulates them (the
// Go compiler keeps the order of straight-line code and allocates
// registers much like that).
func (c *Circuit) schedule() []int {
	all := c.schedules()
	if c.sched > 0 {
		return all[c.sched-1]
	}
	var best []int
	bestCost := -1
	for _, seq := range all {
		if cost := c.spills(seq, valueRegisters); bestCost < 0 || cost < bestCost {
			best, bestCost = seq, cost
		}
	}
	return best
}

// schedules returns scheduleTrials orders of the gates: depth-first walks
// from the outputs, over every order of the outputs, visiting first the
// operand that needs more registers (Sethi-Ullman) or, after the first 24,
// either operand at random (seeded, so the list is always the same).
func (c *Circuit) schedules() [][]int {
	need := make([]int, len(c.nodes))
	for i, n := range c.nodes {
		switch n.op {
		case opInput, opConst:
			need[i] = 1
		case opNot:
			need[i] = need[n.a]
		default:
			l, r := need[n.a], need[n.b]
			need[i] = max(l, r)
			if l == r {
				need[i]++
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(c.nodes)), 1))
	var all [][]int
	for trial := range scheduleTrials {
		order := permutations4()[trial%24]
		random := trial >= 24
		done := make([]bool, len(c.nodes))
		var seq []int
		var visit func(int)
		visit = func(i int) {
			n := c.nodes[i]
			if done[i] || n.op == opInput || n.op == opConst {
				return
			}
			done[i] = true
			first, second := n.a, n.b
			if n.op != opNot && (random && rng.IntN(2) == 0 || !random && need[n.b] > need[n.a]) {
				first, second = n.b, n.a
			}
			visit(first)
			if n.op != opNot {
				visit(second)
			}
			seq = append(seq, i)
		}
		for _, j := range order {
			visit(c.Out[j])
		}
		all = append(all, seq)
	}
	return all
}

// scheduleTrials is the number of orders schedule tries.
const scheduleTrials = 3000

// valueRegisters is the number of registers spills assumes for a circuit's
// values: the 13 general registers the compiler allocates on amd64. The
// round function keeps two pointers in them, but assuming 9, 11 or 13
// changed the instructions of a batch by less than 1%, and 13 gave the
// fewest.
const valueRegisters = 13

// spills simulates registers regs registers holding the values of the gates
// computed in order seq, each input loaded when first used, each output
// leaving as soon as it is computed, and returns the number of values
// stored to the stack and loaded back: when a register is needed and none
// is free, the value whose next use is farthest goes to the stack, once,
// and comes back before its next use.
func (c *Circuit) spills(seq []int, regs int) int {
	uses := make([][]int, len(c.nodes))
	operands := func(i int) []int {
		if n := c.nodes[i]; n.op != opNot {
			return []int{n.a, n.b}
		}
		return []int{c.nodes[i].a}
	}
	for step, i := range seq {
		for _, o := range operands(i) {
			uses[o] = append(uses[o], step)
		}
	}
	next := make([]int, len(c.nodes)) // index into uses of the next use
	inReg := make([]bool, len(c.nodes))
	stored := make([]bool, len(c.nodes))
	live := 0
	cost := 0
	nextUse := func(v int) int {
		if next[v] < len(uses[v]) {
			return uses[v][next[v]]
		}
		return len(seq)
	}
	claim := func(keep []int) {
		if live < regs {
			live++
			return
		}
		victim, far := -1, -1
		for v := range c.nodes {
			if inReg[v] && !slices.Contains(keep, v) && nextUse(v) > far {
				victim, far = v, nextUse(v)
			}
		}
		inReg[victim] = false
		if !stored[victim] && c.nodes[victim].op != opInput {
			stored[victim] = true
			cost++
		}
	}
	for _, i := range seq {
		ops := operands(i)
		for _, o := range ops {
			if !inReg[o] {
				claim(ops)
				inReg[o] = true
				if c.nodes[o].op != opInput || stored[o] {
					cost++ // a reload (an input is loaded anyway, once)
				}
				if c.nodes[o].op == opInput {
					stored[o] = true // its reloads cost a load too
				}
			}
		}
		for _, o := range ops {
			next[o]++
			if nextUse(o) == len(seq) && inReg[o] {
				inReg[o] = false
				live--
			}
		}
		claim(nil)
		inReg[i] = true
		if nextUse(i) == len(seq) {
			inReg[i] = false
			live--
		}
	}
	return cost
}
