package workflowrun

// The repository's own workflows (.github/workflows/perfgate.yml and perfgate-comment.yml) run like
// the README's: under act against the fake GitHub, the gate uploading its results directory and the
// comment workflow posting it. Two steps cannot run on the fixture, which is the demo history and
// not perfgate's source: the gate runs base's perfgate from a second checkout (uses:
// ./.perfgate-base) and the comment workflow the default branch's (uses: ./comment). The test puts
// the actions under test in their place, perfgate/perfgate@v1 and perfgate/perfgate/comment@v1
// (this work tree, as for the README's workflows), and fails when a rewrite finds nothing to
// rewrite, so a change of the workflows' shape cannot slip past it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/testing/testenv"
)

// ownWorkflow reads .github/workflows/name and applies the rewrites, old → new, each of which must
// match.
func ownWorkflow(t *testing.T, name string, rewrites ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i+1 < len(rewrites); i += 2 {
		if !strings.Contains(s, rewrites[i]) {
			t.Fatalf("%s has no %q to rewrite: update own_test.go with the workflow", name, rewrites[i])
		}
		s = strings.Replace(s, rewrites[i], rewrites[i+1], 1)
	}
	return s
}

// ownGate is the repository's gate workflow with its base checkout left out and its action the one
// under test.
func ownGate(t *testing.T) string {
	return ownWorkflow(t, "perfgate.yml",
		`      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.base.sha || github.event.merge_group.base_sha }}
          path: .perfgate-base
          persist-credentials: false
`, "",
		"uses: ./.perfgate-base", "uses: perfgate/perfgate@v1",
		// act reads no changed files from the fake event: the paths filter would skip the run.
		`    paths:
      - 'cipher/des/**'
      - '.perfgate.yml'
`, "")
}

func ownComment(t *testing.T) string {
	return ownWorkflow(t, "perfgate-comment.yml", "uses: ./comment", "uses: perfgate/perfgate/comment@v1")
}

// TestOwnWorkflows: a pull request with a faster head gets a PASS comment through the repository's
// own workflows, which needs the gate's upload to find the results directory the Action wrote.
func TestOwnWorkflows(t *testing.T) {
	gateYAML, commentYAML := ownGate(t), ownComment(t) // the rewrites are checked without act too
	testenv.NeedTool(t, "node", "apt-get install nodejs")
	testenv.NeedTool(t, "valgrind", "apt-get install valgrind")
	testenv.Long(t)
	fix := newFixture(t)
	r := newRunner(t, fix)
	p := pr{number: 5, base: fix.base, head: fix.folded, headRepo: ownRepo}
	g := r.gate(gateYAML, commentYAML, p, 51, "opened")
	if !g.ok {
		t.Fatalf("the repository's gate failed on a faster head:\n%s", tailLines(g.log, 80))
	}
	if body := r.comment(5); !strings.Contains(body, "PASS") {
		t.Errorf("the comment does not say PASS:\n%s", body)
	}
}

// TestUploadsResultsDir: every workflow that uploads the perfgate-results artifact, the README's
// and the repository's own, uploads the directory the Action names in its results-dir output; the
// Action writes to $RUNNER_TEMP/perfgate-results, not to the workspace, so a fixed path in the
// workspace uploads nothing.
func TestUploadsResultsDir(t *testing.T) {
	workflows := readmeWorkflows(t)
	for _, name := range []string{"perfgate.yml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", ".github", "workflows", name))
		if err != nil {
			t.Fatal(err)
		}
		workflows[".github/workflows/"+name] = string(data)
	}
	n := 0
	for name, body := range workflows {
		for _, step := range strings.Split(body, "\n      - ")[1:] {
			if !strings.Contains(step, "actions/upload-artifact@") || !strings.Contains(step, "name: perfgate-results") {
				continue
			}
			n++
			if !strings.Contains(step, "path: ${{ steps.perfgate.outputs.results-dir }}") {
				t.Errorf("%s uploads perfgate-results from elsewhere than the results-dir output:\n%s", name, step)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d steps that upload perfgate-results, want the README's and the repository's", n)
	}
}
