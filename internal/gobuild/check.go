package gobuild

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/record"
)

// ToolchainError is a side's toolchain that the go command could not run: a release that does not
// exist, or one it could not fetch (no network, GOPROXY=off).
type ToolchainError struct {
	Side      record.Side
	Toolchain string
	Problem   string // what the go command said, on one line
}

func (e *ToolchainError) Error() string {
	return fmt.Sprintf("%s's toolchain %s cannot be run: %s", e.Side, e.Toolchain, e.Problem)
}

// SettingsError is a side's build-time variables or go build flags that the go command refuses on
// a program that does nothing, so the refusal is the settings', never the code's.
type SettingsError struct {
	Side record.Side
	// "env" or "flags": which of the side's settings the go command refused
	What    string
	Values  []string // the settings refused: the side's Env, or its Flags
	Problem string   // what the go command said, on one line
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("%s's build %s %s: the go command refuses them: %s", e.Side, e.What,
		strings.Join(e.Values, " "), e.Problem)
}

// CheckBuild asks the go command, before anything of the side's tree is built, whether side's build
// b can build at all, and returns the toolchain's version ("go1.25.5"). It runs go env GOVERSION
// under b's toolchain (fetching it the first time: a *ToolchainError when it cannot), then, when b
// sets variables or flags, builds a program that does nothing in a temporary module with b's
// variables alone and then with its flags too (a *SettingsError naming what the go command
// refused). Nothing it builds is kept. cache is the GOCACHE of the sides' builds ("" inherits).
func CheckBuild(ctx context.Context, side record.Side, tags []string, b record.Build, cache string) (string, error) {
	dir, err := os.MkdirTemp("", "perfgate-buildcheck-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, proc.MinBuildLimit)
	defer cancel()
	env := append([]string{"GOFLAGS=-trimpath", "GOWORK=off"}, SideEnv(record.Build{Toolchain: b.Toolchain})...)
	if cache != "" {
		env = append(env, "GOCACHE="+cache)
	}
	out, stderr, err := proc.Run(proc.Command(ctx, dir, env, "go", "env", "GOVERSION"))
	version := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(version, "go") {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		tc := b.Toolchain
		if tc == "" {
			tc = "local"
		}
		return "", &ToolchainError{Side: side, Toolchain: tc, Problem: oneLine(stderr, err)}
	}
	if len(b.Env) == 0 && len(b.Flags) == 0 {
		return version, nil
	}
	// go 1.16: a go line every toolchain a side may name accepts.
	files := map[string]string{"go.mod": "module perfgate.invalid/buildcheck\n\ngo 1.16\n",
		"main.go": "package main\n\nfunc main() {}\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	env = append(env, b.Env...)
	try := func(what string, values, flags []string) error {
		argv := append([]string{"go", "build", "-trimpath", "-o", filepath.Join(dir, "buildcheck")}, flags...)
		argv = append(argv, ".")
		_, stderr, err := proc.Run(proc.Command(ctx, dir, env, argv...))
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &SettingsError{Side: side, What: what, Values: values, Problem: oneLine(stderr, err)}
	}
	if len(b.Env) > 0 {
		if err := try("env", b.Env, SideFlags(tags, record.Build{})); err != nil {
			return "", err
		}
	}
	if len(b.Flags) > 0 {
		if err := try("flags", b.Flags, SideFlags(tags, b)); err != nil {
			return "", err
		}
	}
	return version, nil
}

// oneLine is what a failed go command said, its first two lines of substance (the compiler's
// complaint comes before its usage text) joined on one line; err's text when it said nothing.
func oneLine(stderr []byte, err error) string {
	var parts []string
	for _, line := range strings.Split(string(stderr), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "usage:") {
			break // the compiler's usage text, after its complaint
		}
		// not the package header or a download's progress
		if line != "" && !strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "go: downloading ") {
			parts = append(parts, line)
		}
		if len(parts) == 2 {
			break
		}
	}
	if len(parts) == 0 && err != nil {
		return err.Error()
	}
	return strings.Join(parts, "; ")
}
