package workflowrun

// The stand-ins for the third-party actions the README's workflows use. The stand-in actions under
// testdata/standins run this test binary with PERFGATE_STANDIN set; TestMain dispatches to the
// functions here.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// standins are the stand-in actions' halves, by PERFGATE_STANDIN.
var standins = map[string]func() error{
	"checkout":      checkout,
	"upload":        upload,
	"download":      download,
	"cache-restore": cacheRestore,
	"cache-save":    cacheSave,
}

// runStandin runs the stand-in PERFGATE_STANDIN names and exits.
func runStandin(name string) {
	f := standins[name]
	if f == nil {
		fmt.Fprintf(os.Stderr, "stand-in: unknown %q\n", name)
		os.Exit(2)
	}
	if err := f(); err != nil {
		fmt.Fprintf(os.Stderr, "stand-in %s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// checkout clones the fixture repository (STANDIN_REPO) into the workspace, whole, and checks out
// the pull request's head or the merge queue entry's head_sha when the event has one, else main.
func checkout() error {
	ws := os.Getenv("GITHUB_WORKSPACE")
	if err := git("", "clone", "-q", "--no-local", os.Getenv("STANDIN_REPO"), ws); err != nil {
		return err
	}
	data, err := os.ReadFile(os.Getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return err
	}
	var ev struct {
		PullRequest struct{ Head struct{ SHA string } } `json:"pull_request"`
		MergeGroup  struct {
			HeadSHA string `json:"head_sha"`
		} `json:"merge_group"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("event: %w", err)
	}
	rev := "main"
	switch {
	case ev.PullRequest.Head.SHA != "":
		rev = ev.PullRequest.Head.SHA
	case ev.MergeGroup.HeadSHA != "":
		// the queue's merge commit, as actions/checkout checks out GITHUB_SHA
		rev = ev.MergeGroup.HeadSHA
	}
	return git(ws, "checkout", "-q", rev)
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// The artifact service of act's artifact server (GitHub's v4 protocol, JSON over Twirp).
const artifactService = "twirp/github.actions.results.api.v1.ArtifactService/"

// twirp calls method of the artifact service with req and decodes the answer into resp.
func twirp(method string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	url := strings.TrimSuffix(os.Getenv("ACTIONS_RESULTS_URL"), "/") + "/" + artifactService + method
	r, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s %v", method, r.Status, data, err)
	}
	return json.Unmarshal(data, resp)
}

// upload zips INPUT_PATH and uploads it as the artifact INPUT_NAME of this run.
func upload() error {
	name, dir := os.Getenv("INPUT_NAME"), os.Getenv("INPUT_PATH")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("INPUT_IF_NO_FILES_FOUND") == "ignore" {
			fmt.Fprintf(os.Stderr, "no files at %q: nothing uploaded\n", dir)
			return nil
		}
		return fmt.Errorf("no files at %q: %w", dir, err)
	}
	archive, err := zipDir(dir)
	if err != nil {
		return err
	}
	run := os.Getenv("GITHUB_RUN_ID")
	ids := map[string]any{"workflow_run_backend_id": run, "workflow_job_run_backend_id": run, "name": name}
	var created struct{ SignedUploadURL string }
	if err := twirp("CreateArtifact", merge(ids, map[string]any{"version": 4}), &created); err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPut, created.SignedUploadURL+"&comp=block", bytes.NewReader(archive))
	if err != nil {
		return err
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	r.Body.Close()
	if r.StatusCode != http.StatusCreated {
		return fmt.Errorf("uploading: %s", r.Status)
	}
	var done struct{ Ok bool }
	if err := twirp("FinalizeArtifact", merge(ids, map[string]any{"size": fmt.Sprint(len(archive))}), &done); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "uploaded artifact %s of run %s (%d bytes)\n", name, run, len(archive))
	return nil
}

func merge(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// download fetches the artifacts of run INPUT_RUN_ID (default this run) named INPUT_NAME, or
// matching INPUT_PATTERN, into INPUT_PATH: a named one into the path itself, each matched one into
// a directory of its name.
func download() error {
	run := os.Getenv("INPUT_RUN_ID")
	if run == "" {
		run = os.Getenv("GITHUB_RUN_ID")
	}
	name, pattern, dest := os.Getenv("INPUT_NAME"), os.Getenv("INPUT_PATTERN"), os.Getenv("INPUT_PATH")
	var list struct{ Artifacts []struct{ Name string } }
	if err := twirp("ListArtifacts", map[string]any{"workflow_run_backend_id": run}, &list); err != nil {
		return err
	}
	n := 0
	for _, a := range list.Artifacts {
		into := dest
		if name != "" && a.Name != name {
			continue
		}
		if name == "" {
			if ok, _ := path.Match(pattern, a.Name); !ok {
				continue
			}
			into = filepath.Join(dest, a.Name)
		}
		var signed struct{ SignedURL string }
		req := map[string]any{"workflow_run_backend_id": run, "workflow_job_run_backend_id": run, "name": a.Name}
		if err := twirp("GetSignedArtifactURL", req, &signed); err != nil {
			return err
		}
		if err := fetchZip(signed.SignedURL, into); err != nil {
			return fmt.Errorf("artifact %s: %w", a.Name, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("run %s has no artifact %q (pattern %q) among %v", run, name, pattern, list.Artifacts)
	}
	fmt.Fprintf(os.Stderr, "downloaded %d artifact(s) of run %s\n", n, run)
	return nil
}

func fetchZip(url, dest string) error {
	r, err := http.Get(url)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		p := filepath.Join(dest, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// zipDir zips the files under dir, named relative to it.
func zipDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cacheDir is where the cache stand-in keeps the entry of INPUT_KEY.
func cacheDir() string {
	return filepath.Join(os.Getenv("STANDIN_CACHE"), strings.ReplaceAll(os.Getenv("INPUT_KEY"), "/", "_"))
}

// cacheRestore copies the entry of INPUT_KEY to INPUT_PATH and sets the output cache-hit.
func cacheRestore() error {
	hit := "false"
	if _, err := os.Stat(cacheDir()); err == nil {
		if err := os.MkdirAll(os.Getenv("INPUT_PATH"), 0o755); err != nil {
			return err
		}
		if err := exec.Command("cp", "-a", cacheDir()+"/.", os.Getenv("INPUT_PATH")).Run(); err != nil {
			return fmt.Errorf("restoring: %w", err)
		}
		hit = "true"
	}
	fmt.Fprintf(os.Stderr, "cache %s: hit %s\n", os.Getenv("INPUT_KEY"), hit)
	f, err := os.OpenFile(os.Getenv("GITHUB_OUTPUT"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "cache-hit=%s\n", hit)
	return err
}

// cacheSave stores INPUT_PATH as the entry of INPUT_KEY unless there is one.
func cacheSave() error {
	if _, err := os.Stat(cacheDir()); err == nil {
		return nil
	}
	if _, err := os.Stat(os.Getenv("INPUT_PATH")); err != nil {
		return nil // nothing to save, as the real action warns
	}
	if err := exec.Command("cp", "-a", os.Getenv("INPUT_PATH"), cacheDir()).Run(); err != nil {
		return fmt.Errorf("saving: %w", err)
	}
	fmt.Fprintf(os.Stderr, "cache %s: saved\n", os.Getenv("INPUT_KEY"))
	return nil
}
