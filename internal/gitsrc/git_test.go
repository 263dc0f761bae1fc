package gitsrc

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestObjectCutShort: content that ends before the size git announced (git was killed) is an
// error, not a shorter file.
func TestObjectCutShort(t *testing.T) {
	o := &objects{out: bufio.NewReader(strings.NewReader("package x"))}
	o.pending = 20 + 1
	rd := &countingReader{o: o, r: io.LimitReader(o.out, 20)}
	if _, err := io.ReadAll(rd); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading 9 of 20 bytes: %v, want io.ErrUnexpectedEOF", err)
	}
	o = &objects{out: bufio.NewReader(strings.NewReader("package x\n"))}
	o.pending = 9 + 1
	rd = &countingReader{o: o, r: io.LimitReader(o.out, 9)}
	if b, err := io.ReadAll(rd); err != nil || string(b) != "package x" {
		t.Errorf("reading all 9 bytes: %q, %v", b, err)
	}
}
