package abba

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		out  string
	}{
		{"0", []int{0}, "0"},
		{"0-3", []int{0, 1, 2, 3}, "0-3"},
		{"0-2,5,7-8", []int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"},
		{"5,1,2", []int{1, 2, 5}, "1-2,5"},
		{" 1 \n", []int{1}, "1"},
		{"", nil, ""},
	}
	for _, tt := range tests {
		got, err := ParseCPUList(tt.in)
		if err != nil {
			t.Errorf("ParseCPUList(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCPUList(%q) (-want +got):\n%s", tt.in, diff)
		}
		if s := FormatCPUList(got); s != tt.out {
			t.Errorf("FormatCPUList(%v) = %q, want %q", got, s, tt.out)
		}
	}
	for _, bad := range []string{"a", "3-1", "1-x", "-1", "1,,2"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) succeeded, want an error", bad)
		}
	}
}

func TestChooseNoPin(t *testing.T) {
	p, err := Choose(0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Pinned || p.CPU != -1 || p.Reason == "" {
		t.Errorf("Choose(0, true) = %+v, want unpinned with a reason", p)
	}
}

func TestChooseInvalidCPU(t *testing.T) {
	if _, err := AllowedCPUs(); err != nil {
		t.Skipf("no cpu affinity here: %v", err)
	}
	_, err := Choose(100000, false)
	if err == nil || !strings.Contains(err.Error(), "cpu 100000 is not one this process may use (allowed: ") {
		t.Errorf("Choose(100000) error = %v, want one naming the cpu and the allowed set", err)
	}
}
