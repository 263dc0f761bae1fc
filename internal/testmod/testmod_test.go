package testmod

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTemp(t *testing.T) {
	dir := Temp(t, map[string]string{"go.mod": GoMod("example.com/m", "1.21"), "a/b/c.go": "package b\n"})
	for name, want := range map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "a/b/c.go": "package b\n"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
