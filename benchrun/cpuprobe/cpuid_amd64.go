package main

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

// leaf7 prints the features of CPUID leaf 7 that golang.org/x/sys/cpu does not report on its own but Go's
// crypto packages dispatch on (crypto/sha256 uses SHA when the CPU has it), as "x86.cpuid.name true|false".
func leaf7() {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return
	}
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
