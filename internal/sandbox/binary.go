package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// Binary is an executable perfgate built, with the SHA-256 it had right after the build, before any
// repository code ran. Verify it right before each exec: a child that managed to rewrite it (when
// the sandbox is off or unavailable) is caught there, not trusted.
type Binary struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // hex
}

// ErrTampered is wrapped by every *TamperedError.
var ErrTampered = errors.New("binary changed after it was built")

// TamperedError is a Binary whose file no longer has the hash it was built with.
type TamperedError struct {
	Path      string
	Want, Got string // hex SHA-256; Got is empty when the file is gone or unreadable
	Err       error  // why it could not be read, if it could not
}

func (e *TamperedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s changed after it was built: %v (code under test tampered with the evidence)",
			e.Path, e.Err)
	}
	return fmt.Sprintf("%s changed after it was built: sha256 %s, built as %s (code under test tampered with "+
		"the evidence)", e.Path, short(e.Got), short(e.Want))
}

func (e *TamperedError) Unwrap() error { return ErrTampered }

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Seal records the SHA-256 of the executable at path, as it is now.
func Seal(path string) (Binary, error) {
	h, err := hashFile(path)
	if err != nil {
		return Binary{}, fmt.Errorf("hashing %s: %w", path, err)
	}
	return Binary{Path: path, SHA256: h}, nil
}

// Verify hashes the file again and returns a *TamperedError when it differs from what Seal
// recorded.
func (b Binary) Verify() error {
	if b.SHA256 == "" {
		return fmt.Errorf("%s was never sealed", b.Path)
	}
	h, err := hashFile(b.Path)
	if err != nil {
		return &TamperedError{Path: b.Path, Want: b.SHA256, Err: err}
	}
	if h != b.SHA256 {
		return &TamperedError{Path: b.Path, Want: b.SHA256, Got: h}
	}
	return nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
