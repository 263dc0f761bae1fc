package main

// The table of keys in docs/configuration.md and action.yml's inputs are generated from perfgate's
// key table (and commandKeys): the tests fail when either disagrees, and -update rewrites them.

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/config"
)

var update = flag.Bool("update", false,
	"rewrite the parts of docs/configuration.md and action.yml generated from the key table")

// A generated section of a file: the lines strictly between the line holding begin and the line
// holding end.
type section struct {
	file, begin, end string
	render           func() string
}

var sections = []section{
	{"../../docs/configuration.md", "<!-- keys: begin", "<!-- keys: end", readmeKeys},
	{"../../action.yml", "# inputs: begin", "# inputs: end", actionInputsYAML},
	{"../../action.yml", "# env: begin", "# env: end", actionEnvYAML},
}

// readmeKeys is docs/configuration.md's table: every key with its file key, flag, input, default
// and meaning.
func readmeKeys() string {
	var b strings.Builder
	b.WriteString("| `.perfgate.yml` | flag | Action input | default | meaning |\n| --- | --- | --- | --- | --- |\n")
	code := func(prefix, s string) string {
		if s == "" {
			return ""
		}
		return "`" + prefix + s + "`"
	}
	for _, k := range allKeys() {
		doc := k.Doc
		if k.Only != "" {
			doc += " — _" + k.Only + "_"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", code("", k.File), code("-", k.Flag), code("", k.Input),
			code("", k.Default), strings.ReplaceAll(doc, "|", `\|`))
	}
	return b.String()
}

// actionInputsYAML declares every input. An input that the configuration file can also set has no
// default: an empty input is not set, so the file's value applies.
func actionInputsYAML() string {
	var b strings.Builder
	for _, k := range allKeys() {
		if k.Input == "" {
			continue
		}
		desc, def := k.Doc, k.Default
		if k.File != "" {
			desc = fmt.Sprintf("%s; empty: %s from .perfgate.yml", k.Doc, k.File)
			if k.Default != "" {
				desc += ", else `" + k.Default + "`"
			}
			def = ""
		}
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    required: false\n    default: %s\n", k.Input, yamlQuote(desc), yamlQuote(def))
	}
	return b.String()
}

// actionEnvYAML passes every input to the program through env:, never through ${{ }} inside run:.
func actionEnvYAML() string {
	var b strings.Builder
	for _, k := range allKeys() {
		switch {
		case k.Input == "github-token":
			// Code under test can read whatever its job holds: the token reaches the step only when
			// it comments or creates a check run.
			fmt.Fprintf(&b, "        %s: ${{ (inputs.comment == 'true' || inputs.comment == 'on-alert' || inputs.check-run == 'true') && inputs.%s || '' }}\n", inputEnv(k.Input), k.Input)
		case k.Input != "":
			fmt.Fprintf(&b, "        %s: ${{ inputs.%s }}\n", inputEnv(k.Input), k.Input)
		}
	}
	return b.String()
}

func inputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestGeneratedFromKeys: docs/configuration.md's table of keys and action.yml's inputs are those of
// the key table.
func TestGeneratedFromKeys(t *testing.T) {
	for _, s := range sections {
		data, err := os.ReadFile(s.file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		i := strings.Index(text, s.begin)
		j := strings.Index(text, s.end)
		if i < 0 || j < i {
			t.Errorf("%s: no section between %q and %q", s.file, s.begin, s.end)
			continue
		}
		i += strings.Index(text[i:], "\n") + 1
		j = strings.LastIndex(text[:j], "\n") + 1
		want := s.render()
		if text[i:j] == want {
			continue
		}
		if *update {
			if err := os.WriteFile(s.file, []byte(text[:i]+want+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s disagrees with the key table (go test ./cmd/perfgate -run TestGeneratedFromKeys -update rewrites it):\n--- has\n%s--- want\n%s",
			s.file, text[i:j], want)
	}
}

// TestKeyTable checks the table's declarations: names unique per place, every key documented,
// defaults that parse and validate, and every input and flag the command reads declared.
func TestKeyTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range allKeys() {
		for _, name := range []string{"file " + k.File, "flag " + k.Flag, "input " + k.Input} {
			if strings.HasSuffix(name, " ") {
				continue
			}
			if seen[name] {
				t.Errorf("%s is declared twice", name)
			}
			seen[name] = true
		}
		if k.Doc == "" || k.Form == "" {
			t.Errorf("key %s lacks its Doc or Form", k.Name())
		}
		if k.File == "" && k.Flag == "" && k.Input == "" {
			t.Errorf("key %+v can be set nowhere", k)
		}
		// Every setting is a file key, a flag and an input, or the table says why not
		// (docs/configuration.md shows the reason in the key's row).
		everywhere := k.File != "" && k.Flag != "" && k.Input != ""
		if !everywhere && k.Only == "" {
			t.Errorf("key %s is not a file key, a flag and an input, and Only does not say why", k.Name())
		}
		if everywhere && k.Only != "" {
			t.Errorf("key %s is everywhere, but Only says %q", k.Name(), k.Only)
		}
	}
	for _, k := range config.Keys() {
		if k.Default != "" {
			if err := k.Check(k.Default); err != nil {
				t.Errorf("key %s: default %q does not parse: %v", k.Name(), k.Default, err)
			}
		}
	}
}

// TestCompareHelp: perfgate compare -h lists every flag of the table with its type, doc and
// default.
func TestCompareHelp(t *testing.T) {
	inv := invoke(t, "compare", "-h")
	if inv.code != 0 {
		t.Fatalf("compare -h: exit %d", inv.code)
	}
	for _, k := range allKeys() {
		if k.Flag == "" {
			continue
		}
		want := "  -" + k.Flag
		if k.Type != "" {
			want += " " + k.Type
		}
		want += "\n    \t" + k.Doc
		if k.Default != "" {
			want += " (default " + k.Default + ")"
		}
		if !strings.Contains(inv.stdout, want+"\n") {
			t.Errorf("compare -h does not list -%s as\n%s", k.Flag, want)
		}
	}
}

// TestDemoHelp: perfgate demo -h shows demo's own defaults where they differ from compare's.
func TestDemoHelp(t *testing.T) {
	inv := invoke(t, "demo", "-h")
	for name, def := range demoDefaults {
		k := config.FlagKey(name)
		want := fmt.Sprintf("  -%s %s\n    \t%s (default %s)\n", name, k.Type, k.Doc, def)
		if inv.code != 0 || !strings.Contains(inv.stdout, want) {
			t.Errorf("demo -h: exit %d, does not list\n%s", inv.code, want)
		}
	}
}

// TestSubcommandHelp: each subcommand's -h prints on stdout, exit 0, its own flags only and its
// exit codes.
func TestSubcommandHelp(t *testing.T) {
	for _, tc := range []struct {
		cmd       string
		want, not []string
	}{
		{"compare", []string{"Exit codes:", "  -shard i/n", "  -on-inconclusive string", "  -pin-cpu int",
			"text, markdown or json"}, []string{"  -cpu "}},
		{"bisect", []string{"Exit codes:", "  -check string", "  -tries int", "text or json"},
			[]string{"  -shard ", "  -shard-costs ", "  -on-inconclusive ", "markdown"}},
		{"demo", []string{"  -broken", "  -rounds int", "  -on-inconclusive "}, []string{"  -shard "}},
		{"doctor", []string{"Usage: perfgate doctor", "  -pkg string"}, []string{"  -rounds "}},
	} {
		inv := invoke(t, tc.cmd, "-h")
		if inv.code != 0 || inv.stderr != "" {
			t.Errorf("%s -h: exit %d, stderr %q; want 0 and the help on stdout", tc.cmd, inv.code, inv.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(inv.stdout, w) {
				t.Errorf("%s -h does not say %q", tc.cmd, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(inv.stdout, n) {
				t.Errorf("%s -h says %q, which is not %s's", tc.cmd, n, tc.cmd)
			}
		}
	}
}

// TestGoTestFlagHints: go test's habits get perfgate's spelling: -count is -rounds, and -cpu (a
// GOMAXPROCS list in go test) is not taken as the CPU to pin to.
func TestGoTestFlagHints(t *testing.T) {
	for _, tc := range []struct{ args, hint string }{
		{"compare -count 10", "did you mean -rounds?"},
		{"compare -cpu 1,2", "did you mean -pin-cpu?"},
		{"bisect -count=3 a b", "did you mean -rounds?"},
	} {
		inv := invoke(t, strings.Fields(tc.args)...)
		if inv.code != 2 || !strings.Contains(inv.stderr, "perfgate: hint: ") || !strings.Contains(inv.stderr, tc.hint) {
			t.Errorf("perfgate %s: exit %d, stderr %q; want 2 and a hint %q", tc.args, inv.code, inv.stderr, tc.hint)
		}
	}
}
