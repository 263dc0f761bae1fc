package samecode

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// objdumpTarget finds the address objdump resolves a branch ("jmp 401000 <…>") or a RIP-relative
// operand ("# 5f8000 <…>") to.
var objdumpTarget = regexp.MustCompile(`^\t\S+(?:\s+\S+)*?\s+([0-9a-f]+) <|#\s+([0-9a-f]+)`)

// TestDecodeAgreesWithObjdump checks the decoding of every function in real test binaries against
// GNU objdump, an independent decoder: the same instruction boundaries (an instruction read out of
// step could hide a PC-relative operand, and x86asm was found to misread VZEROUPPER), and the same
// PC-relative operands resolved to the same addresses, none missed.
func TestDecodeAgreesWithObjdump(t *testing.T) {
	objdump := testenv.NeedTool(t, "objdump", "apt-get install binutils")
	for _, bin := range []struct{ name, path string }{
		{"fixture", fixtureTest(t, "base")},
		{"cipher/des", desTest(t, "base")},
	} {
		cmd := proc.Command(context.Background(), "", nil, objdump, "-d", "--no-show-raw-insn", "-j", ".text", bin.path)
		out, _, err := proc.Run(cmd)
		if err != nil {
			t.Fatal(err)
		}
		theirs := map[uint64]bool{}
		// instruction → the address objdump resolves its relative operand to
		targets := map[uint64]uint64{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			addr, rest, ok := strings.Cut(line, ":")
			if !ok || rest == "" || rest[0] != '\t' {
				continue
			}
			v, err := strconv.ParseUint(addr, 16, 64)
			if err != nil {
				continue
			}
			theirs[v] = true
			if m := objdumpTarget.FindStringSubmatch(rest); m != nil {
				hex := m[1] + m[2]
				if tv, err := strconv.ParseUint(hex, 16, 64); err == nil {
					targets[v] = tv
				}
			}
		}
		f, err := elf.Open(bin.path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := load(bin.path, f)
		if err != nil {
			t.Fatal(err)
		}
		funcs, insts, vex, pcrel := 0, 0, 0, 0
		for _, u := range img.units {
			if u.kind != kindText || strings.HasSuffix(u.name, "~") {
				continue // gaps between functions hold INT3 padding
			}
			code, err := img.bytes(u)
			if err != nil {
				t.Fatal(err)
			}
			funcs++
			for pc := 0; pc < len(code); {
				if !theirs[u.addr+uint64(pc)] {
					t.Errorf("%s: %s+%#x: objdump has no instruction here", bin.name, u.name, pc)
					break
				}
				inst, err := decode(code[pc:])
				if err != nil {
					t.Errorf("%s: %s+%#x: %v", bin.name, u.name, pc, err)
					break
				}
				at := u.addr + uint64(pc)
				want, rel := targets[at]
				switch {
				case inst.PCRel > 0:
					rs := scanText(code[pc:pc+inst.Len], at, false)
					if len(rs.refs) == 0 || !rel || rs.refs[0].target != want {
						t.Errorf("%s: %s+%#x: relative target %v, objdump %#x (%v)", bin.name, u.name, pc, rs.refs, want, rel)
					}
					pcrel++
				case rel:
					t.Errorf("%s: %s+%#x: objdump finds a relative operand to %#x, decode none", bin.name, u.name, pc, want)
				}
				if c := code[pc]; c == 0xc4 || c == 0xc5 || c == 0x62 {
					vex++
				}
				insts++
				pc += inst.Len
			}
		}
		if vex == 0 {
			t.Errorf("%s: no VEX instruction met", bin.name)
		}
		t.Logf("%s: %d functions, %d instructions (%d VEX/EVEX, %d PC-relative) agree with objdump", bin.name, funcs, insts, vex, pcrel)
	}
}
