package differential

import (
	"fmt"
	"go/format"

	"github.com/perfgate/perfgate/internal/differential/harness"
)

// harnessFiles returns the main package that exercises the constructors of one side, file by file:
// main.go, which imports the gated package and holds the table of entries, and one file per family
// (family.harness). It is compiled inside that side's module (see build). It has two modes:
//
//	harness -probe   prints, as JSON, the key (and nonce) sizes each entry accepts (probeResult)
//	harness          reads jobs from stdin (encodeJobs) and writes each job's outputs,
//	                 as its family lays them out
//
// The harness draws no random numbers: every input comes from perfgate, so both sides see the same
// bytes.
//
// The harness is compiled as part of the gated module, at the module's language version: the go
// line of its go.mod, or go 1.16 when there is none. So the generated code is written in the Go
// that go 1.12 accepts: no generics, any, clear, min, max, range over an int, and nothing that
// depends on per-iteration loop variables (go 1.22). TestOldLanguageVersions builds it at go 1.12,
// 1.16 and 1.20.
func harnessFiles(info *pkgInfo) (map[string][]byte, error) {
	var entries []string
	for _, c := range append(append([]ctor(nil), info.Ctors...), info.Oracles...) {
		for _, f := range familyTable {
			entries = append(entries, f.entries(c)...)
		}
	}
	main, err := harness.Main(info.ImportPath, info.Imports, entries)
	if err != nil {
		return nil, fmt.Errorf("generating harness: %w", err)
	}
	files := map[string][]byte{"main.go": main, "messages.go": []byte(harness.Header + harness.Messages)}
	for _, f := range familyTable {
		files[string(f.kind())+".go"] = []byte(harness.Header + f.harness())
	}
	for name, src := range files {
		out, err := format.Source(src)
		if err != nil {
			return nil, fmt.Errorf("generating harness %s: %w", name, err)
		}
		files[name] = out
	}
	return files, nil
}

// wrapEntry returns the harness entry name of constructor c for a message family:
// messageEntry(maker(func(key, nonce []byte) (typ, error) {…})), a function that calls c with args
// and returns ret, with %s the result ("%s, nil").
func wrapEntry(c ctor, name string, keyLo, keyHi, nonceHi int, maker, typ, args, ret string) string {
	stmts, value := ctorCall(c, args, "nil, ")
	return harness.Entry(name, keyLo, keyHi, nonceHi, fmt.Sprintf("messageEntry(%s(func(key, nonce []byte) (%s, "+
		"error) {\n%s\nreturn %s\n}))", maker, typ, stmts, fmt.Sprintf(ret, value)))
}

// ownInstance is the instance of a constructor of family f, when both sides' is one; else none.
func ownInstance(f family, b, h *ctor) []instance {
	if h.Family != f.kind() {
		return nil
	}
	return []instance{{name: h.Name, family: f, typ: h.Type, ctors: [2]*ctor{b, h}}}
}

// ctorCall returns the Go statements that call the gated constructor c with args ("key", "key,
// nonce") into c, returning nils ("nil, nil, " for three results) and the error when it fails;
// value is then the expression of the result the family uses.
func ctorCall(c ctor, args, nils string) (stmts, value string) {
	call := c.call() + "(" + args + ")"
	value = "c"
	if c.Addr {
		value = "&c"
	}
	if c.Err {
		return "c, err := " + call + "\nif err != nil {\nreturn " + nils + "err\n}\n", value
	}
	return "c := " + call + "\n", value
}
