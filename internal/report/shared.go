package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/record"
)

// methodNotes are the notes that say how the run was made but not how to read its numbers: they go
// to the method section, not under the verdict. Notes are the pipeline's prose (record has no codes
// for them), so this matches the sentences internal/pipeline writes; a note it does not know stays
// at the top, where a reader sees it.
var methodNotes = []string{
	// valgrind hides CPU features no binary uses: a no-op
	"but neither test binary has an instruction of them",
	// the forest says "same machine code"
	"run the same machine code on both sides: unchanged without timing",
}

// IsMethodNote reports whether note belongs to the method section (methodNotes).
func IsMethodNote(note string) bool {
	for _, m := range methodNotes {
		if strings.Contains(note, m) {
			return true
		}
	}
	return false
}

// ReadingNotes are the notes of r that change how its numbers read, shown under the verdict.
func ReadingNotes(r *record.Result) []string {
	var out []string
	for _, s := range slices.Concat(r.Notes, r.Verdict.Notes) {
		if !IsMethodNote(s) {
			out = append(out, s)
		}
	}
	return out
}

func keySizes(ks []int) string { return text.Ranges(ks) }

// Vectors is what one constructor was fed: "1,024 keys × 17 blocks" for a block cipher, "8 keys ×
// 52 lengths" for an AEAD, stream cipher or hash (per key size).
func Vectors(c record.Cipher) string {
	if isBlock(c) {
		return text.PluralCommas(c.Keys, "key") + " × " + text.PluralCommas(c.Blocks, "block")
	}
	s := text.PluralCommas(c.Keys, "key") + ", " + text.PluralCommas(len(c.Lengths), "length")
	if c.Inputs > 0 {
		s += ", " + text.PluralCommas(c.Inputs, "message")
	}
	return s
}

// isBlock reports whether c is a block cipher's comparison; results from before families have no
// Family.
func isBlock(c record.Cipher) bool { return c.Family == record.FamilyBlock || c.Family == "" }

// FamilyOf is the constructor's family, "block" when the result predates families (untrusted: the
// caller escapes).
func FamilyOf(c record.Cipher) string {
	if c.Family == "" {
		return string(record.FamilyBlock)
	}
	return Clip(string(c.Family), 20)
}

// SizesCell is the key sizes, and the nonce sizes of an AEAD or a stream cipher that takes one:
// "16, 32 · nonce 12".
func SizesCell(c record.Cipher) string {
	s := keySizes(c.KeySizes)
	if len(c.NonceSizes) > 0 {
		s += " · nonce " + keySizes(c.NonceSizes)
	}
	return s
}

// CipherResult is "identical", "3 mismatches", with head's inconsistencies added: "identical, head
// inconsistent on 2".
func CipherResult(c record.Cipher, strong func(string) string) string {
	result := "identical"
	switch {
	case c.Mismatches == 1:
		result = strong("1 mismatch")
	case c.Mismatches > 1:
		result = strong(text.Commas(int64(c.Mismatches)) + " mismatches")
	}
	if c.InconsistentHead > 0 {
		result += ", " + strong("head inconsistent on "+text.Commas(int64(c.InconsistentHead)))
	}
	if c.InconsistentBase > 0 {
		result += ", base inconsistent on " + text.Commas(int64(c.InconsistentBase))
	}
	return result
}

// CipherNotes are the constructors' notes, "NAME: NOTE", a note that several constructors share
// once with all their names ("New, New128: NOTE"), at most most of them (untrusted text: the caller
// escapes).
func CipherNotes(df record.Differential, most int) []string {
	var order []string
	who := map[string][]string{}
	for _, c := range df.Ciphers {
		for _, n := range c.Notes {
			if _, ok := who[n]; !ok {
				order = append(order, n)
			}
			who[n] = append(who[n], Clip(record.Qualified(c.Package, c.Name), 100))
		}
	}
	var out []string
	for _, n := range order[:min(len(order), most)] {
		out = append(out, strings.Join(who[n], ", ")+": "+Clip(n, 200))
	}
	if len(order) > most {
		out = append(out, "… "+text.PluralCommas(len(order)-most, "more note"))
	}
	return out
}

// MismatchText lists mismatch examples as plain text, for a code block or the terminal.
func MismatchText(df record.Differential, most int) (string, int) {
	return exampleText(df, most, func(c record.Cipher) []record.Mismatch { return c.Examples }, writeMismatch)
}

// writeMismatch writes mismatch m of constructor c as lines of plain text.
func writeMismatch(b *strings.Builder, c record.Cipher, m record.Mismatch) {
	if m.Part != "" { // an AEAD, stream or hash message: say what differed
		fmt.Fprintf(b, "%s  key size %d  key %s  length %d  %s differs\n", text.Plain(Clip(record.Qualified(c.Package,
			c.Name), 100)), m.KeySize,
			text.Plain(Clip(m.Key.String(), 100)), m.Length, text.Plain(Clip(m.Part, 40)))
		b.WriteString(MessageDetails(m.Nonce, m.AD, m.Chunks))
		fmt.Fprintf(b, "  input %s\n  base  %s\n  head  %s\n", text.Plain(Clip(m.Input.String(), 200)),
			text.Plain(Clip(m.Base.String(), 200)), text.Plain(Clip(m.Head.String(), 200)))
	} else {
		fmt.Fprintf(b, "%s  key size %d  key %s  block %d  %s via %s\n  input %s\n  base  %s\n  head  %s\n",
			text.Plain(Clip(record.Qualified(c.Package, c.Name), 100)), m.KeySize, text.Plain(Clip(m.Key.String(), 100)), m.Block,
			text.Plain(Clip(m.Direction, 20)),
			text.Plain(Clip(m.Method, 40)), text.Plain(Clip(m.Input.String(), 200)), text.Plain(Clip(m.Base.String(), 200)),
			text.Plain(Clip(m.Head.String(), 200)))
	}
	if m.Note != "" { // a key one side accepts and the other rejects: the two outcomes
		fmt.Fprintf(b, "  note  %s\n", text.Plain(Clip(m.Note, 300)))
	}
}

// MessageDetails is the nonce, additional data and chunk sizes of a message, each when set, as
// indented lines.
func MessageDetails(nonce, ad record.Hex, chunks []int) string {
	var b strings.Builder
	if len(nonce) > 0 {
		fmt.Fprintf(&b, "  nonce %s\n", text.Plain(Clip(nonce.String(), 100)))
	}
	if len(ad) > 0 {
		fmt.Fprintf(&b, "  ad    %s\n", text.Plain(Clip(ad.String(), 200)))
	}
	if len(chunks) > 0 {
		fmt.Fprintf(&b, "  chunks %s\n", Clip(keySizes(chunks), 200))
	}
	return b.String()
}

// InconsistencyText lists the examples of a side disagreeing with itself as plain text: a batch
// method against the single-block method, or chunked writes, Open, Reset against the reference
// output.
func InconsistencyText(df record.Differential, most int) (string, int) {
	return exampleText(df, most, func(c record.Cipher) []record.Inconsistency { return c.Inconsistencies },
		writeInconsistency)
}

// writeInconsistency writes inconsistency in of constructor c as lines of plain text.
func writeInconsistency(b *strings.Builder, c record.Cipher, in record.Inconsistency) {
	if in.Part != "" {
		fmt.Fprintf(b, "%s  %s  key size %d  key %s  length %d  %s\n", text.Plain(Clip(record.Qualified(c.Package, c.Name),
			100)),
			text.Plain(string(in.Side)), in.KeySize, text.Plain(Clip(in.Key.String(), 100)), in.Length, text.Plain(Clip(in.Part, 40)))
		b.WriteString(MessageDetails(nil, nil, in.Chunks))
	} else {
		fmt.Fprintf(b, "%s  %s  key size %d  key %s  block %d  %s via %s\n", text.Plain(Clip(record.Qualified(c.Package,
			c.Name), 100)),
			text.Plain(string(in.Side)), in.KeySize, text.Plain(Clip(in.Key.String(), 100)), in.Block,
			text.Plain(Clip(in.Direction, 20)), text.Plain(Clip(in.Method, 40)))
	}
	fmt.Fprintf(b, "  input     %s\n  reference %s\n  other     %s\n", text.Plain(Clip(in.Input.String(), 200)),
		text.Plain(Clip(in.Single.String(), 200)), text.Plain(Clip(in.Batch.String(), 200)))
	if in.Note != "" {
		fmt.Fprintf(b, "  note  %s\n", text.Plain(Clip(in.Note, 300)))
	}
}

// exampleText writes the first most of the examples that of picks from each constructor of df with
// write, then how many more there are. It returns the text and the number of examples.
func exampleText[T any](df record.Differential, most int, of func(record.Cipher) []T,
	write func(*strings.Builder, record.Cipher, T)) (string, int) {
	var b strings.Builder
	n, total := 0, 0
	for _, c := range df.Ciphers {
		for _, x := range of(c) {
			total++
			if n == most {
				continue
			}
			n++
			write(&b, c, x)
		}
	}
	if total > n {
		fmt.Fprintf(&b, "… %d more examples\n", total-n)
	}
	return b.String(), total
}
