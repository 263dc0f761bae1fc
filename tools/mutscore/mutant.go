package main

import (
	"fmt"
	"strings"
)

// Kind is the class of bug a mutant plants: the kinds of bug that slip past a package's own tests.
type Kind string

// The kinds of mutant.
const (
	KindKeyByte Kind = "key-byte" // wrong only for one value of one key byte
	// wrong only for messages of one length class (len ≡ 7 mod 16, …)
	KindLength   Kind = "length-class"
	KindPartial  Kind = "partial-block" // the last, partial block
	KindAlias    Kind = "aliasing"      // wrong only in place (dst and src the same memory)
	KindChunk    Kind = "chunk-boundary"
	KindCounter  Kind = "counter-wrap"
	KindNonce    Kind = "nonce"
	KindReset    Kind = "reset" // the state a hash keeps across Sum and Reset
	KindTag      Kind = "tag"   // a truncated or forgeable authentication tag
	KindWeakKey  Kind = "weak-key"
	KindKeySize  Kind = "key-size" // wrong only for one key length
	kindsInOrder      = "key-byte key-size length-class partial-block aliasing chunk-boundary counter-wrap nonce reset " +
		"tag weak-key"
)

// kinds returns every kind, in the order the report lists them.
func kinds() []Kind {
	var ks []Kind
	for _, k := range strings.Fields(kindsInOrder) {
		ks = append(ks, Kind(k))
	}
	return ks
}

// A Mutant is one single-point change to a subject's source, written as an explicit patch: in File,
// the text Old (which must occur exactly once) becomes New.
type Mutant struct {
	Name    string // unique, "<package>/<what>", e.g. "blake2b/key-byte-a7"
	Subject string // the module it patches: a subject's name
	Pkg     string // the package it patches, a key of the subject's packages
	File    string // slash-separated, relative to the subject's module root
	Old     string
	New     string
	Kind    Kind
	Desc    string // one line: what is wrong and when it shows
}

// Package returns the package name the score groups the mutant under: the last element of Pkg, or
// the subject's name for its root package.
func (m *Mutant) Package() string {
	if m.Pkg == "." {
		return m.Subject
	}
	return m.Pkg[strings.LastIndex(m.Pkg, "/")+1:]
}

// apply returns src with m's patch applied, or an error when Old does not occur exactly once.
func (m *Mutant) apply(src []byte) ([]byte, error) {
	switch n := strings.Count(string(src), m.Old); n {
	case 1:
		return []byte(strings.Replace(string(src), m.Old, m.New, 1)), nil
	case 0:
		return nil, fmt.Errorf("mutant %s: its old text is not in %s", m.Name, m.File)
	default:
		return nil, fmt.Errorf("mutant %s: its old text occurs %d times in %s, want once", m.Name, n, m.File)
	}
}

// allMutants returns every mutant, in the order the tables list them.
func allMutants() []Mutant {
	tables := []struct {
		subject, pkg string // defaults of the table's mutants
		ms           []Mutant
	}{
		{"des", "./cipher/des", desMutants},
		{"minides", "./minides", minidesMutants},
		{"xcrypto", "./chacha20", chachaMutants},
		{"xcrypto", "", polyMutants},
		{"xcrypto", "./blake2b", blakeMutants},
		{"siphash", ".", sipMutants},
	}
	var ms []Mutant
	for _, t := range tables {
		for _, m := range t.ms {
			if m.Subject == "" {
				m.Subject = t.subject
			}
			if m.Pkg == "" {
				m.Pkg = t.pkg
			}
			ms = append(ms, m)
		}
	}
	return ms
}
