package subject

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	base, head, pkg := "a", "b", ""
	if err := Resolve(&base, &head, &pkg); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(base) || !filepath.IsAbs(head) || pkg != "." {
		t.Errorf("Resolve = %q, %q, %q; want absolute directories and package .", base, head, pkg)
	}
	empty := ""
	if err := Resolve(&empty, &head, &pkg); err == nil {
		t.Error("Resolve without a base directory: no error")
	}
}

// TestLoad loads a library package and a command from a module written here, through a real go
// list.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.21\n",
		"lib/lib.go":  "package lib\n\nfunc NewCipher(key []byte) (any, error) { return nil, nil }\n\nfunc unexported() {}\n",
		"cmd/main.go": "package main\n\nfunc main() {}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GOFLAGS=-mod=mod"}
	p, err := Load(t.Context(), dir, "./lib", nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if p.ImportPath != "example.com/m/lib" || p.Name != "lib" || p.Types == nil || p.Types.Scope().Lookup("NewCipher") == nil {
		t.Errorf("Load(./lib) = %+v; want example.com/m/lib with NewCipher", p)
	}
	cmd, err := Load(t.Context(), dir, "./cmd", nil, env)
	if err != nil || cmd.Name != "main" || cmd.Types != nil {
		t.Errorf("Load(./cmd) = %+v, %v; want package main without types", cmd, err)
	}
	if _, err := Load(t.Context(), dir, "./...", nil, env); err == nil || !strings.Contains(err.Error(), "matches 2 packages") {
		t.Errorf("Load(./...) = %v; want an error about 2 packages", err)
	}
}
