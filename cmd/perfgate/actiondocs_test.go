package main

// The Action's documentation holds what action.yml declares: every input in the key table of
// docs/configuration.md, every output and every value of the verdict output in the README, the
// comment action's inputs in docs/github.md, and each input's help with one "empty:" clause, not
// two that contradict each other.

import (
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/record"
	"go.yaml.in/yaml/v3"
)

// actionDescriptions is action.yml's inputs and outputs with their descriptions.
type actionDescriptions struct {
	Inputs  map[string]struct{ Description string } `yaml:"inputs"`
	Outputs map[string]struct{ Description string } `yaml:"outputs"`
}

func readActionDescriptions(t *testing.T, path string) actionDescriptions {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a actionDescriptions
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestActionDocumented(t *testing.T) {
	a := readActionDescriptions(t, "../../action.yml")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	keysDoc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range a.Inputs {
		if !strings.Contains(string(keysDoc), "| `"+name+"` |") {
			t.Errorf("input %s is not in docs/configuration.md's table of keys", name)
		}
		if n := strings.Count(in.Description, "empty:"); n > 1 {
			t.Errorf("input %s's description has %d \"empty:\" clauses: %q", name, n, in.Description)
		}
	}
	if len(a.Outputs) == 0 {
		t.Fatal("action.yml declares no outputs")
	}
	for name := range a.Outputs {
		if !strings.Contains(string(readme), "`"+name+"`") {
			t.Errorf("output %s is not in the README", name)
		}
	}
	// The verdict output takes every status the pipeline writes, and the README and action.yml say
	// so.
	verdict := a.Outputs["verdict"].Description
	_, sentence, _ := strings.Cut(string(readme), "`verdict` (")
	sentence, _, _ = strings.Cut(sentence, ")")
	for _, s := range []record.Status{record.StatusPass, record.StatusFail, record.StatusInconclusive, record.StatusError} {
		if !strings.Contains(verdict, string(s)) {
			t.Errorf("action.yml's verdict output does not name %s", s)
		}
		if !strings.Contains(sentence, "`"+string(s)+"`") {
			t.Errorf("the README's verdict output (%q) does not name %s", sentence, s)
		}
	}
	// The comment action's inputs are in the fork-safe workflows of docs/github.md, which the
	// README links to.
	github, err := os.ReadFile("../../docs/github.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/github.md)") {
		t.Errorf("the README does not link to docs/github.md")
	}
	c := readActionDescriptions(t, "../../comment/action.yml")
	for name := range c.Inputs {
		if !strings.Contains(string(github), name) {
			t.Errorf("comment/action.yml's input %s is not in docs/github.md", name)
		}
	}
}
