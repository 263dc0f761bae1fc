package main

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func rdtscp() uint32

// leaf7 prints the features of CPUID leaf 7 that golang.org/x/sys/cpu does not report on its own
// but Go's crypto packages dispatch on (crypto/sha256 uses SHA when the CPU has it), and RDTSCP
// from extended leaf 0x80000001, which the Go runtime's cputicks executes when the CPU reports it,
// as "x86.cpuid.name true|false".
func leaf7() {
	if max, _, _, _ := cpuid(0, 0); max >= 7 {
		_, b, c, _ := cpuid(7, 0)
		for _, f := range []struct {
			name string
			on   bool
		}{
			{"avx512f", b&(1<<16) != 0}, {"sha", b&(1<<29) != 0},
			{"gfni", c&(1<<8) != 0}, {"vaes", c&(1<<9) != 0}, {"vpclmulqdq", c&(1<<10) != 0},
		} {
			println2("x86.cpuid."+f.name, f.on)
		}
	}
	if max, _, _, _ := cpuid(0x80000000, 0); max >= 0x80000001 {
		_, _, _, d := cpuid(0x80000001, 0)
		println2("x86.cpuid.rdtscp", d&(1<<27) != 0)
	}
}

// execute runs one instruction of feature and reports whether it knows one.
func execute(feature string) bool {
	switch feature {
	case "x86.cpuid.rdtscp":
		rdtscp()
		return true
	}
	return false
}
