package valgrind

import (
	"slices"
	"testing"
)

func TestDiagnose(t *testing.T) {
	// As valgrind 3.19 and Go 1.26 printed them on a host without RDTSCP (abridged).
	rdtscp := `vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48 0xC1 0xE2 0x20 0x48 0x1 0xD0
vex amd64->IR:   REX=0 REX.W=0 REX.R=0 REX.X=0 REX.B=0
==3549== valgrind: Unrecognised instruction at address 0x48e649.
==3549==    at 0x48E649: runtime.cputicks.abi0 (asm_amd64.s:1261)
==3549==    by 0x4155D4: runtime.lock2 (lock_spinbit.go:235)
==3549== Either way, Valgrind will now raise a SIGILL signal which will
SIGILL: illegal instruction
PC=0x48e649 m=0 sigcode=2

goroutine 0 gp=0x3e66b44d0000 m=0 mp=0x856000 [idle]:
runtime.cputicks()
	/usr/local/go/src/runtime/asm_amd64.s:1261 +0x9 fp=0x3e66b44d8f78 sp=0x3e66b44d8f70 pc=0x48e649
`
	goOnly := `vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9 0x48
SIGILL: illegal instruction
PC=0x48e649 m=0 sigcode=2

goroutine 0 gp=0x3e66b44d0000 m=0 mp=0x856000 [idle]:
runtime.cputicks()
`
	quiet := `SIGILL: illegal instruction
PC=0x47f809 m=1 sigcode=1
instruction bytes: 0xf 0x1 0xf9 0x48 0xc1 0xe2 0x20 0x48 0x1 0xd0 0x48 0x89 0x44 0x24 0x8 0xc3

goroutine 0 gp=0x13e0248705a0 m=1 mp=0x13e0248aa008 [idle]:
runtime.cputicks()
`
	for _, c := range []struct{ name, in, want string }{
		{"valgrind -q: the runtime's dump only", quiet, "valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks"},
		{"rdtscp", rdtscp, "valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks"},
		{"go traceback only", goOnly, "valgrind cannot decode RDTSCP (0F 01 F9) in runtime.cputicks"},
		{"undecodable bytes", "vex amd64->IR: unhandled instruction bytes: 0xFF 0xFF 0xFF 0xFF\n",
			"valgrind cannot decode FF FF FF"},
		{"impossible", "valgrind: the 'impossible' happened:\n   LibVEX called failure_exit().\n",
			`valgrind failed internally ("the 'impossible' happened")`},
		{"signal", "==12== Process terminating with default action of signal 11 (SIGSEGV)\n",
			"the program died of SIGSEGV under valgrind"},
		{"the program's own panic", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", ""},
		{"nothing", "", ""},
	} {
		if got := Diagnose([]byte(c.in)); got != c.want {
			t.Errorf("%s: Diagnose = %q; want %q", c.name, got, c.want)
		}
	}
}

func TestAddGODEBUG(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, []string{"GODEBUG=cpu.rdtscp=off"}},
		{[]string{"A=1", "GODEBUG="}, []string{"A=1", "GODEBUG=cpu.rdtscp=off"}},
		{[]string{"GODEBUG=asyncpreemptoff=1", "B=2"}, []string{"GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off", "B=2"}},
	} {
		if got := AddGODEBUG(c.in, "cpu.rdtscp=off"); !slices.Equal(got, c.want) {
			t.Errorf("AddGODEBUG(%q) = %q; want %q", c.in, got, c.want)
		}
	}
	in := []string{"GODEBUG=x=1"}
	if AddGODEBUG(in, "y=0"); in[0] != "GODEBUG=x=1" {
		t.Errorf("AddGODEBUG changed its argument: %q", in)
	}
}
