package samecode

// vexLength measures a VEX- or EVEX-encoded instruction that x86asm does not decode (VZEROUPPER,
// some AVX2 and AVX-512 forms), from its prefix, opcode map, ModRM, SIB, displacement and
// immediate. It returns the instruction's length and, for a RIP-relative memory operand, the offset
// of its 32-bit displacement (ripOff > 0) or of an absolute 32-bit address (absOff > 0), or ok
// false when the bytes are not such an instruction. In 64-bit mode C4, C5 and 62 always start a VEX
// or EVEX prefix.
//
// x86asm decodes most of these but not all, and not all correctly (it reads a ModRM byte after
// VZEROUPPER), so scanText measures every VEX and EVEX instruction here.
func vexLength(code []byte) (n, ripOff, absOff int, ok bool) {
	if len(code) < 3 {
		return 0, 0, 0, false
	}
	var m byte // opcode map: 1 = 0F, 2 = 0F38, 3 = 0F3A (5, 6: AVX-512 FP16 maps, no immediate)
	pos := 0
	switch code[0] {
	case 0xc5:
		m, pos = 1, 2
	case 0xc4:
		m, pos = code[1]&0x1f, 3
	case 0x62:
		if len(code) < 5 || code[2]&0x04 == 0 { // EVEX P1 bit 2 is always 1
			return 0, 0, 0, false
		}
		m, pos = code[1]&0x07, 4
	default:
		return 0, 0, 0, false
	}
	if m == 0 || m == 4 || m > 6 || pos >= len(code) {
		return 0, 0, 0, false
	}
	op := code[pos]
	pos++
	if m == 1 && op == 0x77 && code[0] != 0x62 { // VZEROUPPER, VZEROALL: no ModRM
		return pos, 0, 0, true
	}
	if pos >= len(code) {
		return 0, 0, 0, false
	}
	modrm := code[pos]
	pos++
	mod, rm := modrm>>6, modrm&7
	if mod != 3 {
		if rm == 4 {
			if pos >= len(code) {
				return 0, 0, 0, false
			}
			sib := code[pos]
			pos++
			if mod == 0 && sib&7 == 5 {
				absOff = pos // absolute disp32, no base: kept in the compared bytes
				pos += 4
			}
		} else if mod == 0 && rm == 5 {
			ripOff = pos
			pos += 4
		}
		switch mod {
		case 1:
			pos++
		case 2:
			pos += 4
		}
	}
	if m == 3 || m == 1 && (op >= 0x70 && op <= 0x73 || op == 0xc2 || op >= 0xc4 && op <= 0xc6) {
		pos++ // imm8
	}
	if pos > len(code) {
		return 0, 0, 0, false
	}
	return pos, ripOff, absOff, true
}
