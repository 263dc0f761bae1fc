package pipeline

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/perfgate/perfgate/internal/proc"
)

// disassemble returns the machine code of bin's .text, one instruction a line in the Go assembler's
// syntax, as go tool objdump prints it (which decodes with the same package, x86asm): what
// valgrind.UsesFeatures reads. An amd64 ELF binary is decoded here, in well under a second; go tool
// objdump is not in every Go distribution's prebuilt tools, and building it into a fresh build
// cache took 15 to 50 s before the timing started (nothing was printed meanwhile). Anything else
// goes to go tool objdump.
func (p *pipeline) disassemble(ctx context.Context, bin string) ([]byte, error) {
	out, err := decodeText(bin)
	if errors.Is(err, errNotAMD64) {
		out, _, err = proc.Run(proc.Command(ctx, p.work, nil, "go", "tool", "objdump", bin))
	}
	return out, err
}

var errNotAMD64 = errors.New("not an amd64 ELF binary")

func decodeText(bin string) ([]byte, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, errNotAMD64
	}
	defer f.Close()
	sec := f.Section(".text")
	if f.Machine != elf.EM_X86_64 || sec == nil {
		return nil, errNotAMD64
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	// Function by function, as objdump does: what lies between functions (padding) is not code.
	var b bytes.Buffer
	for _, sym := range syms {
		if elf.ST_TYPE(sym.Info) != elf.STT_FUNC || sym.Value < sec.Addr || sym.Value+sym.Size > sec.Addr+uint64(len(data)) {
			continue
		}
		code := data[sym.Value-sec.Addr : sym.Value-sec.Addr+sym.Size]
		pc := sym.Value
		for len(code) > 0 {
			inst, err := x86asm.Decode(code, 64)
			if err == nil && inst.Len > 0 && (evex(code) || strings.HasPrefix(inst.Op.String(), "SHA")) {
				// The x86asm the Go toolchain vendors for objdump decodes neither EVEX (AVX-512)
				// nor SHA instructions: it prints "?" for them, and so does this, so that the
				// features found are objdump's. (Both are in Go binaries, behind the runtime's CPU
				// checks.)
				b.WriteString("?\n")
				code, pc = code[inst.Len:], pc+uint64(inst.Len)
				continue
			}
			if err != nil || inst.Len == 0 {
				b.WriteString("?\n")
				code, pc = code[1:], pc+1
				continue
			}
			b.WriteString(x86asm.GoSyntax(inst, pc, nil))
			b.WriteByte('\n')
			code, pc = code[inst.Len:], pc+uint64(inst.Len)
		}
	}
	return b.Bytes(), nil
}

// evex reports whether the instruction at the start of code is EVEX-encoded: 0x62 after any legacy
// and REX prefixes (in 64-bit mode 0x62 is nothing else).
func evex(code []byte) bool {
	for _, c := range code {
		switch {
		case c == 0x66, c == 0x67, c == 0xF0, c == 0xF2, c == 0xF3, c == 0x2E, c == 0x36, c == 0x3E, c == 0x26,
			c == 0x64, c == 0x65, c >= 0x40 && c <= 0x4F:
			continue
		}
		return c == 0x62
	}
	return false
}
