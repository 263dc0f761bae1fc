package main

// Tests of action.yml and the workflows: how inputs reach the program, and least privilege.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/perfgate/perfgate/internal/config"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// actionYAML is the part of action.yml the tests read.
type actionYAML struct {
	Inputs  map[string]struct{ Default *string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }    `yaml:"outputs"`
	Runs    struct {
		Using string
		Steps []struct {
			ID  string
			Run string
			Env map[string]string
		}
	}
}

// TestActionYAML: inputs reach the program only through env: (a ${{ }} inside run: would let an
// input's value become shell code), every input the program reads is declared and mapped to its
// INPUT_ variable, and the outputs are the ones the program sets.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	var declared, read []string
	for name, in := range a.Inputs {
		declared = append(declared, name)
		// An input the file can also set must not have a default, or it would override the file.
		if k := config.InputKey(name); k != nil && k.File != "" && in.Default != nil && *in.Default != "" {
			t.Errorf("input %s has default %q: it would override %s in .perfgate.yml", name, *in.Default, k.File)
		}
	}
	for _, k := range allKeys() {
		if k.Input != "" {
			read = append(read, k.Input)
		}
	}
	if diff := cmp.Diff(read, declared, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("inputs: the program reads (-) and action.yml declares (+):\n%s", diff)
	}
	var runStep map[string]string
	for i, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %d: run: contains ${{ }}:\n%s", i, s.Run)
		}
		if s.ID == "perfgate" {
			runStep = s.Env
		}
	}
	if runStep == nil {
		t.Fatal("no step with id perfgate")
	}
	want := map[string]string{}
	for name := range a.Inputs {
		want["INPUT_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))] = "${{ inputs." + name + " }}"
	}
	// The token reaches the step only when it comments or creates a check run: code under test
	// reads what its job holds.
	want["INPUT_GITHUB_TOKEN"] = "${{ (inputs.comment == 'true' || inputs.comment == 'on-alert' || inputs.check-run == 'true') && inputs.github-token || '' }}"
	if run := a.Runs.Steps[len(a.Runs.Steps)-1].Run; !strings.HasPrefix(run, "exec ") {
		t.Errorf("the perfgate step runs %q: without exec, bash stays perfgate's parent with the token in its environment", run)
	}
	got := map[string]string{}
	for k, v := range runStep {
		if strings.HasPrefix(k, "INPUT_") {
			got[k] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the perfgate step's INPUT_ variables (-want +got):\n%s", diff)
	}
	for _, name := range []string{"verdict", "report", "results-dir", "comment-url"} {
		if v := a.Outputs[name].Value; v != "${{ steps.perfgate.outputs."+name+" }}" {
			t.Errorf("output %s = %q", name, v)
		}
	}
}

// TestWorkflows checks the repository's workflows against the fork-safe design: no ${{ }} inside
// run:, a least-privilege token everywhere, the job that runs the pull request's code (uses: ./)
// has no write permission and a full history, and the job that may write runs only on workflow_run
// and never checks out or runs the pull request's code.
func TestWorkflows(t *testing.T) {
	files, err := filepath.Glob("../../.github/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var w struct {
			On          map[string]any    `yaml:"on"`
			Permissions map[string]string `yaml:"permissions"`
			Concurrency struct {
				Group            string `yaml:"group"`
				CancelInProgress bool   `yaml:"cancel-in-progress"`
			} `yaml:"concurrency"`
			Jobs map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
				Steps       []struct {
					Uses string
					Run  string
					With map[string]any
				}
			}
		}
		if err := yaml.Unmarshal(data, &w); err != nil {
			t.Fatalf("%s: %v (permissions must be a map, not write-all)", file, err)
		}
		name := filepath.Base(file)
		if w.Permissions == nil {
			t.Errorf("%s: no top-level permissions: the token gets the repository's default", name)
		}
		if _, ok := w.On["pull_request_target"]; ok {
			t.Errorf("%s: runs on pull_request_target", name)
		}
		writes, releases := false, false
		for k, v := range w.Permissions {
			switch {
			case v != "write":
			case k == "pull-requests":
				writes = true
			case k == "contents" && onlyTagPushes(w.On):
				// the release workflow: a tag pushed by a maintainer, never a pull request
				releases = true
			default:
				t.Errorf("%s: permission %s: write", name, k)
			}
		}
		if releases && writes {
			t.Errorf("%s: a release workflow writes contents and pull requests", name)
		}
		for job, j := range w.Jobs {
			if j.Permissions != nil {
				t.Errorf("%s: job %s overrides the permissions", name, job)
			}
			for i, s := range j.Steps {
				where := fmt.Sprintf("%s: job %s step %d", name, job, i)
				if strings.Contains(s.Run, "${{") {
					t.Errorf("%s: run: contains ${{ }}:\n%s", where, s.Run)
				}
				if strings.HasPrefix(s.Uses, "actions/checkout@") {
					if s.With["persist-credentials"] != false {
						t.Errorf("%s: checkout keeps the token in .git/config (persist-credentials)", where)
					}
					if writes && s.With["ref"] != nil {
						t.Errorf("%s: a job with write permission checks out %v", where, s.With["ref"])
					}
				}
				// A local action in a job that may write is the default branch's (its checkout
				// names no ref); in the job that runs the pull request's code it must be base's,
				// not the pull request's.
				local := strings.HasPrefix(s.Uses, "./")
				switch {
				case s.Uses == "./" && writes:
					t.Errorf("%s: runs the pull request's action with write permission", where)
				case s.Uses == "./" && name == "perfgate.yml":
					t.Errorf("%s: uses: ./ runs the pull request's own perfgate; check out the base commit and "+
						"use that", where)
				case local && !writes && s.Uses != "./" && !checksOutBase(j.Steps, s.Uses):
					t.Errorf("%s: uses %s, which no step checks out at the pull request's base commit", where, s.Uses)
				}
				if local && !writes && !fetchesAll(j.Steps) {
					t.Errorf("%s: perfgate needs the base commit: check out with fetch-depth: 0", where)
				}
			}
		}
		if writes {
			if len(w.On) != 1 || w.On["workflow_run"] == nil {
				t.Errorf("%s: may write, so it must run only on workflow_run, not %v", name, w.On)
			}
			// Two runs at once could both find no sticky comment and both create one.
			if g := w.Concurrency.Group; !strings.Contains(g, "workflow_run.head_branch") || w.Concurrency.CancelInProgress {
				t.Errorf("%s: concurrency %+v, want a queue per pull request branch", name, w.Concurrency)
			}
		}
	}
}

// checksOutBase reports whether a checkout step puts the pull request's base commit at the local
// action path uses.
func checksOutBase(steps []struct {
	Uses string
	Run  string
	With map[string]any
}, uses string) bool {
	for _, s := range steps {
		ref, _ := s.With["ref"].(string)
		if strings.HasPrefix(s.Uses, "actions/checkout@") && "./"+fmt.Sprint(s.With["path"]) == uses &&
			strings.Contains(ref, "github.event.pull_request.base.sha") {
			return true
		}
	}
	return false
}

// onlyTagPushes reports whether a workflow runs only on pushes of tags.
func onlyTagPushes(on map[string]any) bool {
	push, ok := on["push"].(map[string]any)
	if len(on) != 1 || !ok {
		return false
	}
	_, branches := push["branches"]
	_, tags := push["tags"]
	return tags && !branches
}

// fetchesAll reports whether the steps check out the whole history.
func fetchesAll(steps []struct {
	Uses string
	Run  string
	With map[string]any
}) bool {
	for _, s := range steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["fetch-depth"] == 0 {
			return true
		}
	}
	return false
}

// TestREADMEShardWorkflow: the sharded workflow of docs/sharding.md is YAML, runs a matrix of four
// shards that each pass shard: i/4, and merges with the merge input; every input it gives perfgate
// is one that action.yml declares. (.ci/run lints it with actionlint too, after extracting it the
// same way.)
func TestREADMEShardWorkflow(t *testing.T) {
	readme, err := os.ReadFile("../../docs/sharding.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "# .github/workflows/perfgate.yml — four shards"
	_, block, ok := strings.Cut(string(readme), start)
	if !ok {
		t.Fatal("docs/sharding.md has no sharded workflow example")
	}
	_, block, _ = strings.Cut(block, "\n") // the rest of the comment line
	block, _, _ = strings.Cut(block, "```")
	var wf struct {
		Jobs map[string]struct {
			Needs    any
			Strategy struct {
				Matrix map[string][]int
			}
			Steps []struct {
				Uses string
				With map[string]string
			}
		}
	}
	if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
		t.Fatalf("docs/sharding.md workflow: %v", err)
	}
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	var shardInput, mergeInput string
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			if !strings.HasPrefix(st.Uses, "perfgate/perfgate@") {
				continue
			}
			for in, v := range st.With {
				if _, ok := a.Inputs[in]; !ok {
					t.Errorf("job %s gives perfgate input %s, which action.yml does not declare", name, in)
				}
				switch in {
				case "shard":
					shardInput = v
					if diff := cmp.Diff([]int{1, 2, 3, 4}, job.Strategy.Matrix["shard"]); diff != "" {
						t.Errorf("job %s: matrix shard (-want +got):\n%s", name, diff)
					}
				case "merge":
					mergeInput = v
				}
			}
		}
	}
	if shardInput != "${{ matrix.shard }}/4" || mergeInput == "" {
		t.Errorf("shard input %q, merge input %q: want ${{ matrix.shard }}/4 and a glob", shardInput, mergeInput)
	}
	if err := config.InputKey("shard").Check("3/4"); err != nil {
		t.Errorf("the shard input does not take 3/4: %v", err)
	}
}

// TestCommentActionYAML: the comment sub-action (perfgate/perfgate/comment) takes its inputs
// through env: only, builds perfgate from the action's own source with the same script as
// action.yml, and execs perfgate comment.
func TestCommentActionYAML(t *testing.T) {
	data, err := os.ReadFile("../../comment/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionYAML
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) == 0 {
		t.Fatalf("runs: %+v", a.Runs)
	}
	builds := 0
	for i, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %d: run: contains ${{ }}:\n%s", i, s.Run)
		}
		if strings.Contains(s.Run, "perfgate-build.sh") && s.Env["PERFGATE_SRC"] == "${{ github.action_path }}/.." {
			builds++
		}
	}
	if builds != 2 {
		t.Errorf("%d steps locate and build perfgate from the action's source (PERFGATE_SRC = the action "+
			"path's parent), want 2", builds)
	}
	last := a.Runs.Steps[len(a.Runs.Steps)-1]
	if last.ID != "comment" || !strings.HasPrefix(last.Run, `exec "$PERFGATE_BIN" comment `) {
		t.Errorf("the last step %q runs %q, want id comment and exec perfgate comment", last.ID, last.Run)
	}
	if v := a.Outputs["comment-url"].Value; v != "${{ steps.comment.outputs.comment-url }}" {
		t.Errorf("output comment-url = %q", v)
	}
}
