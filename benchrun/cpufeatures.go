package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/proc"
	// Linked so that every program with this package knows the golang.org/x/sys it can build the probe with.
	_ "golang.org/x/sys/cpu"
)

// CPU features valgrind hides.
//
// valgrind emulates the CPU, and its CPUID reports only the features it can emulate: valgrind 3.19 on this
// project's VM (AMD EPYC with SHA, VAES and VPCLMULQDQ) reports none of SHA, VAES, VPCLMULQDQ and ADX, and it has no
// AVX-512 at all. Code that dispatches on such a feature (crypto/sha256 on SHA, math/big on ADX, an assembly
// AES-GCM on VAES) takes its fallback path under callgrind, so its instruction count is of code the host never
// runs. HiddenFeatures finds them with a probe (cpuprobe/, built from this package's embedded copy): it prints what
// golang.org/x/sys/cpu sees, and the features of CPUID leaf 7 that x/sys/cpu does not report, once natively and
// once under valgrind. UsesFeatures then says whether a test binary contains any instruction of them at all: a
// binary without one cannot take another path under valgrind, and its counts stay trusted.

// probeSysVersion is this module's golang.org/x/sys requirement (go.mod; TestProbeSysVersion keeps them equal),
// for programs whose build information does not say.
const probeSysVersion = "v0.50.0"

//go:embed cpuprobe/main.go cpuprobe/cpuid_amd64.go cpuprobe/cpuid_amd64.s cpuprobe/cpuid_other.go
var probeSource embed.FS

// HiddenFeatures builds the probe in dir and returns the CPU features that this machine has and valgrind (the
// valgrind executable at path) hides, sorted, e.g. ["x86.adx", "x86.cpuid.sha"].
func HiddenFeatures(ctx context.Context, valgrind, dir string) ([]string, error) {
	bin, err := buildProbe(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("probing CPU features: %w", err)
	}
	native, err := probe(ctx, dir, bin)
	if err != nil {
		return nil, fmt.Errorf("probing CPU features natively: %w", err)
	}
	emulated, err := probe(ctx, dir, valgrind, "--tool=none", "-q", bin)
	if err != nil {
		return nil, fmt.Errorf("probing CPU features under valgrind: %w", err)
	}
	var hidden []string
	for name, on := range native {
		if on && !emulated[name] {
			hidden = append(hidden, name)
		}
	}
	slices.Sort(hidden)
	return hidden, nil
}

// buildProbe writes the probe's module into dir and builds it, requiring the golang.org/x/sys this program was
// built with.
func buildProbe(ctx context.Context, dir string) (string, error) {
	version := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "golang.org/x/sys" {
				version = d.Version
			}
		}
	}
	if version == "" {
		version = probeSysVersion // a test binary's build information lists no dependencies
	}
	src := filepath.Join(dir, "cpuprobe")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	gomod := "module perfgate.cpuprobe\n\ngo 1.22\n\nrequire golang.org/x/sys " + version + "\n"
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	entries, _ := probeSource.ReadDir("cpuprobe")
	for _, e := range entries {
		b, err := probeSource.ReadFile("cpuprobe/" + e.Name())
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(src, e.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(dir, "cpuprobe.bin")
	env := []string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod", "GONOSUMDB=golang.org/x/sys"}
	cmd := proc.Command(ctx, src, env, "go", "build", "-trimpath", "-o", out, ".")
	if _, _, err := proc.Run(cmd); err != nil {
		return "", err
	}
	return out, nil
}

// probe runs argv and reads its "name true|false" lines.
func probe(ctx context.Context, dir string, argv ...string) (map[string]bool, error) {
	stdout, _, err := proc.Run(proc.Command(ctx, dir, nil, argv...))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	s := bufio.NewScanner(bytes.NewReader(stdout))
	for s.Scan() {
		if name, v, ok := strings.Cut(s.Text(), " "); ok {
			out[name] = v == "true"
		}
	}
	return out, nil
}

// featureInstructions are the Go assembler mnemonics (as go tool objdump prints them) of code that needs each
// feature HiddenFeatures can report, as a pattern over an objdump line. AVX-512 is recognised by its Z and K
// registers.
var featureInstructions = map[string]string{
	"x86.adx":              `\b(ADCX|ADOX)[LQ]?\b`,
	"x86.cpuid.sha":        `\bSHA(1|256)[A-Z0-9]*\b`,
	"x86.cpuid.vaes":       `\bVAES[A-Z]*\b.*\b[YZ]\d+\b`,
	"x86.cpuid.vpclmulqdq": `\bVPCLMULQDQ\b.*\b[YZ]\d+\b`,
	"x86.cpuid.gfni":       `\bV?GF2P8[A-Z]*\b`,
	"x86.cpuid.avx512f":    `\bZ([12]?\d|3[01])\b`,
}

// UsesFeatures returns the features of hidden whose instructions the disassembly of a binary (go tool objdump's
// output) contains. A feature it has no pattern for counts as used; every AVX-512 extension is recognised by the Z
// and K registers as AVX-512F is.
func UsesFeatures(disassembly []byte, hidden []string) []string {
	var used []string
	for _, f := range hidden {
		pat, ok := featureInstructions[f]
		if strings.HasPrefix(f, "x86.avx512") {
			pat, ok = featureInstructions["x86.cpuid.avx512f"], true
		}
		if !ok || regexp.MustCompile(pat).Match(disassembly) {
			used = append(used, f)
		}
	}
	return used
}
