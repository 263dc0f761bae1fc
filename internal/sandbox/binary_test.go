package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryVerify: an untouched binary verifies; one overwritten with another's bytes, truncated,
// or removed is reported as tampered, naming the file.
func TestBinaryVerify(t *testing.T) {
	dir := t.TempDir()
	base, head := filepath.Join(dir, "base.test"), filepath.Join(dir, "head.test")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(base, "base's machine code")
	write(head, "head's machine code")
	b, err := Seal(base)
	if err != nil {
		t.Fatal(err)
	}
	// SHA-256 of "base's machine code", computed with sha256sum.
	if want := "766a0be6628c92bfab34f50f84eb18743da405b29ac460984ee732944ae6f96e"; b.SHA256 != want {
		t.Fatalf("sha256 %s, want %s", b.SHA256, want)
	}
	if err := b.Verify(); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	for _, c := range []struct {
		name   string
		tamper func()
	}{
		{"overwritten with head", func() { write(base, "head's machine code") }},
		{"truncated", func() { write(base, "") }},
		{"removed", func() { os.Remove(base) }},
	} {
		write(base, "base's machine code")
		c.tamper()
		err := b.Verify()
		var te *TamperedError
		if !errors.As(err, &te) || !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), base) {
			t.Errorf("%s: %v, want a *TamperedError naming %s", c.name, err, base)
		}
	}
	if err := (Binary{Path: base}).Verify(); err == nil {
		t.Errorf("an unsealed binary verified")
	}
}
