// Package testmod writes small Go modules for tests: the fixtures of the bench, sizes and
// differential tests are a map from slash-separated path to content, go.mod among them, written
// into a temporary directory.
package testmod

import (
	"os"
	"path/filepath"
	"testing"
)

// GoMod is the content of a go.mod declaring module path at language version goVersion, e.g.
// "1.26".
func GoMod(path, goVersion string) string {
	return "module " + path + "\n\ngo " + goVersion + "\n"
}

// Write writes files (slash-separated path → content) under dir, creating the directories they
// need, and returns dir. A file it cannot write fails the test.
func Write(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Temp writes files into a new temporary directory of t and returns it.
func Temp(t testing.TB, files map[string]string) string {
	t.Helper()
	return Write(t, t.TempDir(), files)
}
