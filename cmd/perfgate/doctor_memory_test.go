package main

import (
	"regexp"
	"testing"
	"time"
)

// TestDoctorMemoryLine: the memory line's words, from numbers given (a first touch of 2.1 µs, as
// this project's Firecracker VM measured on a busy minute).
func TestDoctorMemoryLine(t *testing.T) {
	c := summarizePages([]time.Duration{2100, 300, 5000, 2400, 1900}, []time.Duration{52, 50, 60, 55, 51},
		3*time.Second)
	got := memoryCheck(c)
	want := "first touch of a page costs 2.1µs (300ns–5µs over 3s, 5 rounds of 32 MiB), 40× a touch of a mapped " +
		"page (52ns): an allocating benchmark pays it until its heap stops growing, so perfgate warms each process " +
		"at the run's iteration count before timing it, and bench.txt's faults/op shows what each run still paid"
	if got.Name != "memory" || got.Status != "info" || got.Detail != want {
		t.Errorf("memory line:\n got %s %s %q\nwant memory info %q", got.Name, got.Status, got.Detail, want)
	}
	if got.Hint == "" {
		t.Errorf("a first touch of 2.1µs gives no hint")
	}
	cheap := memoryCheck(summarizePages([]time.Duration{250, 240, 260}, []time.Duration{20, 20, 20}, time.Second))
	if cheap.Hint != "" {
		t.Errorf("a first touch of 250ns hints %q", cheap.Hint)
	}
}

// TestDoctorMemoryMeasured measures this machine for a moment: the shape of what comes back, never
// its numbers.
func TestDoctorMemoryMeasured(t *testing.T) {
	c, err := measurePages(200 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", c)
	if c.Rounds < 3 || !(c.Lo > 0 && c.Lo <= c.First && c.First <= c.Hi) || !(c.Mapped > 0) {
		t.Errorf("page costs %+v: want 3 rounds or more, 0 < lo ≤ median ≤ hi, a mapped touch above 0", c)
	}
	line := regexp.MustCompile(`^first touch of a page costs [0-9.]+(ns|µs|ms) \([0-9.]+(ns|µs|ms)–[0-9.]+(ns|µs|ms) ` +
		`over [0-9.]+m?s, [0-9]+ rounds of 32 MiB\), [0-9]+× a touch of a mapped page \([0-9.]+(ns|µs|ms)\): `)
	if d := memoryCheck(c).Detail; !line.MatchString(d) {
		t.Errorf("memory line %q has another shape", d)
	}
}
