package valgrind

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

var (
	// vex's message when its decoder meets an instruction it cannot translate.
	unhandledRE = regexp.MustCompile(`unhandled instruction bytes: ((?:0x[0-9A-Fa-f]+ ?)+)`)
	// the Go runtime's own dump of the instruction it died on (valgrind -q prints no message of its
	// own).
	goBytesRE = regexp.MustCompile(`(?m)^SIGILL: illegal instruction\n(?:.*\n)*?instruction bytes: ((?:0x[0-9A-Fa-f]+ ?)+)`)
	// valgrind's line when the program it runs dies of a signal.
	terminatingRE = regexp.MustCompile(`Process terminating with default action of signal \d+ \((SIG[A-Z]+)\)`)
	// the Go runtime's first line on a fatal signal, and the frame that follows its goroutine
	// header.
	goSignalRE = regexp.MustCompile(`(?m)^(SIG[A-Z]+): `)
	frameRE    = regexp.MustCompile(`^([A-Za-z_][\w./*()\[\]{}-]*)\(`)
	// valgrind's first stack frame after a message: "==123== at 0x48E649: runtime.cputicks.abi0
	// (asm_amd64.s:1261)".
	vgFrameRE = regexp.MustCompile(`==\d+==\s+at 0x[0-9A-Fa-f]+: ([^\s(]+)`)
)

// Diagnose reads what valgrind and the program it ran printed on standard error and says in one
// line why the run failed when valgrind, not the program, is the cause: an instruction valgrind
// cannot decode ("valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks"), an internal error
// of valgrind's own, or a signal valgrind raised. It returns "" when the output shows no fault of
// valgrind's: the program's own failure.
func Diagnose(stderr []byte) string {
	m := unhandledRE.FindSubmatchIndex(stderr)
	if m == nil {
		m = goBytesRE.FindSubmatchIndex(stderr)
	}
	if m != nil {
		code, name := decodeBytes(string(stderr[m[2]:m[3]]))
		d := "valgrind cannot decode " + code
		if name != "" {
			d = "valgrind cannot decode " + name + " (" + code + ")"
		}
		fn := ""
		if f := vgFrameRE.FindSubmatch(stderr[m[0]:]); f != nil {
			fn = strings.TrimSuffix(string(f[1]), ".abi0")
		}
		if fn == "" {
			fn = faultingFunc(stderr)
		}
		if fn != "" {
			d += " in " + fn
		}
		return d
	}
	switch {
	case bytes.Contains(stderr, []byte("the 'impossible' happened")):
		return "valgrind failed internally (\"the 'impossible' happened\")"
	case bytes.Contains(stderr, []byte("Valgrind's memory management: out of memory")):
		return "valgrind ran out of memory"
	case bytes.Contains(stderr, []byte("unhandled syscall")) || bytes.Contains(stderr, []byte("Unsupported clone()")):
		return "valgrind cannot emulate a system call the program made"
	}
	if m := terminatingRE.FindSubmatch(stderr); m != nil {
		return "the program died of " + string(m[1]) + " under valgrind"
	}
	return ""
}

// decodeBytes formats vex's "0xF 0x1 0xF9 …" as hex bytes of the first instruction and names its
// operation; it shows at most the first three bytes when they do not decode.
func decodeBytes(s string) (code, name string) {
	var raw []byte
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 8)
		if err != nil {
			break
		}
		raw = append(raw, byte(v))
	}
	n := min(3, len(raw))
	if inst, err := x86asm.Decode(raw, 64); err == nil && inst.Len > 0 {
		n, name = inst.Len, inst.Op.String()
	}
	parts := make([]string, n)
	for i, b := range raw[:n] {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, " "), name
}

// faultingFunc returns the function the Go runtime's traceback names first after a fatal signal,
// e.g. "runtime.cputicks"; "" when there is none.
func faultingFunc(stderr []byte) string {
	loc := goSignalRE.FindIndex(stderr)
	if loc == nil {
		return ""
	}
	s := bufio.NewScanner(bytes.NewReader(stderr[loc[0]:]))
	s.Buffer(make([]byte, 64<<10), 1<<20)
	inGoroutine := false
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "goroutine ") {
			inGoroutine = true
			continue
		}
		if m := frameRE.FindStringSubmatch(line); inGoroutine && m != nil {
			return m[1]
		}
	}
	return ""
}
