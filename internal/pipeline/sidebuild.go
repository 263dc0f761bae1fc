package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/gobuild"
	"github.com/perfgate/perfgate/record"
)

// checkBuilds makes each side's build (config's base-toolchain, head-env, head-flags, …) ready and
// asks the go command whether it can build at all, before anything is exported or built: a -pgo
// profile named by a relative path is made absolute (relative to -C, where perfgate runs), the
// toolchain is fetched the first time, and a variable or flag the go command refuses is a
// configuration error (exit 2) naming the side, the key and the value; a toolchain that cannot be
// run is exit 3. Nothing it builds is kept. When the sides' builds are perfgate's default it does
// nothing.
func (p *pipeline) checkBuilds(ctx context.Context) error {
	for _, s := range []*side{&p.base, &p.head} {
		b, err := absPGO(p.cfg.Build(s.name), p.cfg.Dir)
		if err != nil {
			return err
		}
		if s.name == record.Base {
			p.cfg.BaseBuild = b
		} else {
			p.cfg.HeadBuild = b
		}
	}
	if p.cfg.BaseBuild.IsZero() && p.cfg.HeadBuild.IsZero() {
		return nil
	}
	for _, s := range []*side{&p.base, &p.head} {
		b := p.cfg.Build(s.name)
		if !b.IsZero() {
			p.logf("checking %s's build: %s", s.name, strings.Join(buildWords(b), " "))
		}
		version, err := gobuild.CheckBuild(ctx, s.name, p.cfg.Tags, b, p.cfg.Cache)
		var se *gobuild.SettingsError
		if errors.As(err, &se) {
			return &config.Error{Key: string(s.name) + "-" + se.What, Value: strings.Join(se.Values, " "),
				Why: "the go command refuses it: " + se.Problem, Want: wantOf[se.What]}
		}
		if err != nil {
			return err
		}
		b.Toolchain = version
		s.build = b
	}
	return nil
}

// wantOf is the accepted form of a side's settings the go command refused, by
// gobuild.SettingsError.What.
var wantOf = map[string]string{"env": "build-time variables the go command accepts",
	"flags": "go build flags the go command accepts"}

// absPGO returns b with a -pgo profile given by a relative path made absolute against dir: a side
// builds in its exported tree, where the path would name nothing. auto and off stay.
func absPGO(b record.Build, dir string) (record.Build, error) {
	flags := append([]string(nil), b.Flags...)
	for i, f := range flags {
		name, value, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name != "pgo" || value == "auto" || value == "off" || filepath.IsAbs(value) {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(dir, value))
		if err != nil {
			return b, err
		}
		flags[i] = "-pgo=" + abs
	}
	b.Flags = flags
	return b, nil
}

// buildWords are b's settings as words for the log: its toolchain, variables and flags.
func buildWords(b record.Build) []string {
	var w []string
	if b.Toolchain != "" {
		w = append(w, b.Toolchain)
	}
	return append(append(w, b.Env...), b.Flags...)
}

// sideBuilds sets r's sides' builds when they differ: each side's toolchain as the go command
// named it, its variables and flags. When both sides are built alike, nothing is said.
func (p *pipeline) sideBuilds(r *record.Result) {
	if p.base.build.Equal(p.head.build) {
		return
	}
	r.Base.Build, r.Head.Build = p.base.build, p.head.build
}

// buildKey is a side's build for the store's keys: what is built from the same tree differs with
// it.
func (p *pipeline) buildKey(s *side) string {
	b := p.cfg.Build(s.name)
	return strings.Join(append([]string{s.build.Toolchain}, append(b.Env, b.Flags...)...), "\x00")
}
