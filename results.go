package perfgate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/proc"
)

// writeResults writes result.json, env.json and what the phases left to write.
func (p *pipeline) writeResults() error {
	env := CollectEnv(context.Background(), p.res.Env.PinnedCPU)
	if !p.res.Env.Pinned {
		env.PinnedCPU, env.Pinned = -1, false
	}
	p.res.Env = env
	if err := os.MkdirAll(p.cfg.Out, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(p.cfg.Out, "env.json"), env); err != nil {
		return err
	}
	return writeJSON(filepath.Join(p.cfg.Out, "result.json"), p.res)
}

func (p *pipeline) writeFile(name string, data []byte) {
	data = proc.HeadTail(data, proc.MaxLog) // a log of the pull request's output: bounded, both ends kept
	if err := os.WriteFile(filepath.Join(p.cfg.Out, name), data, 0o644); err != nil {
		p.logf("warning: %v", err)
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadResult reads a result.json written by Compare.
func ReadResult(dir string) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "result.json"), err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%s: schema %d, this perfgate reads schema %d", filepath.Join(dir, "result.json"), r.Schema, Schema)
	}
	return &r, nil
}
