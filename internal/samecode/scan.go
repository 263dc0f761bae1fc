package samecode

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

// rawRef is an address a unit's bytes refer to, found before carriers are cut into pieces.
type rawRef struct {
	at     uint64 // address of the field holding the reference
	target uint64 // absolute address referred to
	// exact is set when the field is certainly an address (a PC-relative operand); its bytes are
	// then blanked in the normalised content. An absolute operand of an instruction keeps its
	// bytes: they are compared as they are, so a moved target reads as a change.
	exact bool
	// field is the width of a data field normalised by its reference (8 for a pointer word, 4 for
	// an offset in a type descriptor); 0 for instruction operands.
	field int
	// callNext is set on the operand of LEAQ sym(IP), AX when the next instruction, after padding
	// (NOPs), is a direct call: the call's target. An address loaded into the first argument
	// register of runtime.newobject is only the type of an allocation (see allocOnly in
	// compare.go).
	callNext uint64
	// next marks the link from a piece of a static data stretch to the piece after it (splitGaps):
	// followed, and compared only when both sides have one (see differ).
	next bool
}

// rawSig is a unit's content with its references located but not yet resolved to units.
type rawSig struct {
	norm []byte // content with exact reference fields blanked
	refs []rawRef
	bad  string // why the unit cannot be compared (undecodable code, …); "" when it can
}

// scanText decodes the machine code of a text unit. Every instruction must decode and the last must
// end at the unit's end, or the unit is bad: an instruction read out of step could hide a
// PC-relative operand.
//
// goCode says the unit is a function cmd/compile compiled from Go (not assembly, not of unknown
// origin). Its absolute operands are then constants, never addresses, and are compared as bytes
// only: on amd64 the Go toolchain materialises every address of a symbol PC-relative (the assembler
// turns MOVQ $sym(SB), R into LEAQ sym(SB), R, which is RIP-relative), and the compiler never
// indexes a symbol directly (sym(SB)(R*8)), which only hand-written assembly does. Read as
// addresses, constants that happen to fall inside a unit (a runtime limit of 8 MiB inside a 32 MiB
// buffer in .noptrbss) would tie the function to that unit's placement.
func scanText(code []byte, addr uint64, goCode bool) *rawSig {
	rs := &rawSig{norm: append([]byte(nil), code...)}
	leaAX := -1 // the ref of the previous instruction when it was LEAQ sym(IP), AX
	for pc := 0; pc < len(code); {
		inst, err := decode(code[pc:])
		if err != nil {
			// Go pads some functions' tails with INT3.
			if allByte(code[pc:], 0xcc) {
				return rs
			}
			rs.bad = fmt.Sprintf("%v at +%#x", err, pc)
			return rs
		}
		next := addr + uint64(pc+inst.Len)
		if inst.PCRel > 0 {
			off := pc + inst.PCRelOff
			if off+inst.PCRel > len(code) {
				rs.bad = fmt.Sprintf("truncated instruction at +%#x", pc)
				return rs
			}
			var disp int64
			switch inst.PCRel {
			case 1:
				disp = int64(int8(code[off]))
			case 2:
				disp = int64(int16(binary.LittleEndian.Uint16(code[off:])))
			case 4:
				disp = int64(int32(binary.LittleEndian.Uint32(code[off:])))
			default:
				rs.bad = fmt.Sprintf("PC-relative field of %d bytes at +%#x", inst.PCRel, pc)
				return rs
			}
			clear(rs.norm[off : off+inst.PCRel])
			target := uint64(int64(next) + disp)
			if leaAX >= 0 && inst.Op == x86asm.CALL && inst.PCRel == 4 {
				rs.refs[leaAX].callNext = target
			}
			leaAX = -1
			if m, ok := inst.Args[1].(x86asm.Mem); ok && inst.Op == x86asm.LEA && inst.Args[0] == x86asm.RAX &&
				m.Base == x86asm.RIP && m.Index == 0 {
				leaAX = len(rs.refs)
			}
			rs.refs = append(rs.refs, rawRef{at: addr + uint64(off), target: target, exact: true})
		} else if inst.Op != x86asm.NOP {
			leaAX = -1 // padding between the two leaves AX as it was
		}
		// Absolute addresses (assembly's sym(SB)(R*8) operands, immediates holding an address) stay
		// in the compared bytes; they are recorded so that their targets are reached and compared
		// too.
		for _, a := range inst.Args {
			if goCode {
				break
			}
			switch a := a.(type) {
			case x86asm.Imm:
				if v := uint64(a); v >= 0x1000 {
					rs.refs = append(rs.refs, rawRef{at: addr + uint64(pc), target: v})
				}
			case x86asm.Mem:
				if a.Base == 0 && a.Disp >= 0x1000 {
					rs.refs = append(rs.refs, rawRef{at: addr + uint64(pc), target: uint64(a.Disp)})
				}
			}
		}
		pc += inst.Len
	}
	return rs
}

// decode decodes the instruction at the start of code. VEX and EVEX instructions are measured by
// vexLength; of them, only the length and the place of a RIP-relative or absolute address are
// filled in.
func decode(code []byte) (x86asm.Inst, error) {
	switch code[0] {
	case 0xc4, 0xc5, 0x62:
		var inst x86asm.Inst
		n, rip, abs, ok := vexLength(code)
		if !ok {
			return inst, errors.New("undecodable VEX instruction")
		}
		inst.Len = n
		if rip > 0 {
			inst.PCRel, inst.PCRelOff = 4, rip
		}
		if abs > 0 {
			inst.Args[0] = x86asm.Mem{Disp: int64(int32(binary.LittleEndian.Uint32(code[abs:])))}
		}
		return inst, nil
	}
	inst, err := x86asm.Decode(code, 64)
	if err == nil && inst.Len == 0 {
		err = errors.New("empty instruction")
	}
	if err != nil {
		return inst, fmt.Errorf("undecodable instruction: %w", err)
	}
	return inst, nil
}

func allByte(b []byte, c byte) bool {
	for _, x := range b {
		if x != c {
			return false
		}
	}
	return true
}

// scanData finds the pointer-sized, aligned words of a data unit whose value is an address inside a
// unit of the image, and blanks them: an absolute pointer becomes the unit and offset it points to.
func scanData(b *image, data []byte, addr uint64) *rawSig {
	rs := &rawSig{norm: append([]byte(nil), data...)}
	start := (8 - addr%8) % 8
	for i := start; i+8 <= uint64(len(data)); i += 8 {
		v := binary.LittleEndian.Uint64(data[i:])
		if v < 0x1000 {
			continue
		}
		if u, off := b.lookup(v); u == nil || u.kind == kindBSS && off >= deepInBSS {
			// No address, or one deep inside zero-initialised data, which is a number that falls
			// into a large buffer (an itab's hash inside the 32 MiB of
			// crypto/internal/fips140/drbg.memory): its bytes are compared as they are (see
			// deepInBSS).
			continue
		}
		clear(rs.norm[i : i+8])
		rs.refs = append(rs.refs, rawRef{at: addr + i, target: v, exact: true, field: 8})
	}
	return rs
}
