package record

import "testing"

func TestSandboxString(t *testing.T) {
	for _, c := range []struct {
		s    Sandbox
		want string
	}{
		{Sandbox{Mode: "off", NotCopied: []string{"big.bin (9 MiB)"}}, "off (children ran unguarded)"},
		{Sandbox{Mode: "required", Guarded: true, ABI: 7, NoNewPrivs: true, NetworkDenied: true},
			"Landlock ABI 7, no_new_privs, writes only to scratch, TCP denied"},
		{Sandbox{Mode: "required", Guarded: true, ABI: 7, NotCopied: []string{"big.bin (9 MiB)"}},
			"Landlock ABI 7, writes only to scratch, 1 large file(s) read in place, not copied into the working " +
				"directory: big.bin (9 MiB)"},
		{Sandbox{Mode: "auto", Unavailable: "no Landlock", NotCopied: []string{"a", "b", "c", "d", "e"}},
			"unavailable: no Landlock, 5 large file(s) read in place, not copied into the working directory: " +
				"a, b, c and 2 more"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.s, got, c.want)
		}
	}
}
