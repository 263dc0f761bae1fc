package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestHistoryWorkflow: the workflow of docs/history.md is YAML; the job that runs main's code (the
// Action) has a read-only token and no persisted credentials, the job that can push runs no
// repository code, opening an issue is off by default, and every perfgate flag its steps use
// exists. (.ci/run lints it with actionlint too.)
func TestHistoryWorkflow(t *testing.T) {
	doc, err := os.ReadFile("../../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```yaml\n# .github/workflows/perfgate-history.yml")
	if !ok {
		t.Fatal("docs/history.md has no workflow example")
	}
	_, block, _ = strings.Cut(block, "\n") // the rest of the comment line
	block, _, _ = strings.Cut(block, "```")
	type step struct {
		Uses string
		Run  string
		With map[string]string
		Env  map[string]string
	}
	var wf struct {
		On struct {
			Push struct{ Branches []string }
		}
		Permissions map[string]string
		Jobs        map[string]struct {
			Permissions map[string]string
			Env         map[string]string
			Steps       []step
		}
	}
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
		t.Fatalf("docs/history.md workflow: %v", err)
	}
	if len(wf.On.Push.Branches) != 1 || wf.On.Push.Branches[0] != "main" || wf.Permissions["contents"] != "read" {
		t.Errorf("on %v, permissions %v: want pushes to main, contents read", wf.On.Push.Branches, wf.Permissions)
	}
	runsAction, records := false, false
	for name, job := range wf.Jobs {
		writes := job.Permissions["contents"] == "write"
		for _, st := range job.Steps {
			if strings.HasPrefix(st.Uses, "perfgate/perfgate@") {
				runsAction = true
				if writes {
					t.Errorf("job %s runs the repository's code with a token that can push", name)
				}
			}
			if strings.HasPrefix(st.Uses, "actions/checkout@") && !writes && st.With["persist-credentials"] != "false" {
				t.Errorf("job %s keeps checkout's credentials while it runs the repository's code", name)
			}
			for _, line := range strings.Split(st.Run, "\n") {
				m := regexp.MustCompile(`perfgate" (record|history) (.*)`).FindStringSubmatch(line)
				if m == nil {
					continue
				}
				if m[1] == "record" {
					records = true
					if !writes {
						t.Errorf("job %s records without permission to push the ref", name)
					}
				}
				var usage bytes.Buffer
				run(t.Context(), []string{m[1], "-h"}, &usage, &usage)
				for _, f := range regexp.MustCompile(`(?:^| )(-[a-z]+)`).FindAllStringSubmatch(m[2], -1) {
					if !regexp.MustCompile(`(?m)^  ` + f[1] + `( |$)`).MatchString(usage.String()) {
						t.Errorf("job %s: perfgate %s has no flag %s", name, m[1], f[1])
					}
				}
			}
		}
		if v, ok := job.Env["OPEN_ISSUE"]; ok && v != "false" {
			t.Errorf("job %s: OPEN_ISSUE is %q by default, want 'false'", name, v)
		}
	}
	if !runsAction || !records {
		t.Errorf("the workflow runs the Action: %v, records: %v", runsAction, records)
	}
}
