package report

import (
	"slices"
	"testing"

	"github.com/perfgate/perfgate/record"
)

// TestCipherNotesGrouped: a note several constructors share is one line naming them all, and the
// count of what did not fit counts distinct notes.
func TestCipherNotesGrouped(t *testing.T) {
	df := record.Differential{Ciphers: []record.Cipher{
		{Name: "New", Notes: []string{"reads 16 bytes of a longer key", "a"}},
		{Name: "New128", Notes: []string{"reads 16 bytes of a longer key"}},
		{Name: "Sum", Notes: []string{"b"}},
	}}
	got := CipherNotes(df, 2)
	want := []string{"New, New128: reads 16 bytes of a longer key", "New: a", "… 1 more note"}
	if !slices.Equal(got, want) {
		t.Errorf("cipherNotes = %q, want %q", got, want)
	}
}
