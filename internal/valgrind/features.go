package valgrind

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
	"sync"

	"github.com/perfgate/perfgate/internal/proc"
	// Linked so that every program with this package knows the golang.org/x/sys it can build the
	// probe with.
	_ "golang.org/x/sys/cpu"
)

// probeSysVersion is this module's golang.org/x/sys requirement (go.mod; TestProbeSysVersion keeps
// them equal), for programs whose build information does not say.
//
// What valgrind can run on this host.
//
// valgrind emulates the CPU, and its CPUID is its own. It hides features it cannot emulate
// (valgrind 3.19 has no SHA, VAES, VPCLMULQDQ, ADX or AVX-512): code that dispatches on them takes
// its fallback path under valgrind, so its instruction count is of code the host never runs. It may
// also report a feature the host lacks: valgrind 3.19 reports RDTSCP on every amd64 host, and on
// one without it cannot decode the instruction, so a program that executes it dies with SIGILL. The
// Go runtime does (runtime.cputicks, when a lock is contended), at random moments. Probe finds both
// kinds with cpuprobe/, built from this package's embedded copy, once natively and once under
// valgrind, and executes each reported-but-absent feature's instruction under valgrind to confirm
// it. Host.Env then turns those features off in Go code through GODEBUG=cpu.X=off, the switch of
// Go's runtime and of golang.org/x/sys/cpu, on both sides alike.
const probeSysVersion = "v0.50.0"

//go:embed cpuprobe/main.go cpuprobe/cpuid_amd64.go cpuprobe/cpuid_amd64.s cpuprobe/cpuid_other.go
var probeSource embed.FS

// goSwitches are the CPU features Go's runtime lets GODEBUG turn off on amd64 (internal/cpu's
// options, which golang.org/x/sys/cpu honours too), by the probe's name without its "x86." or
// "x86.cpuid." prefix.
var goSwitches = []string{"adx", "aes", "avx", "avx2", "avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl",
	"bmi1", "bmi2", "erms", "fma", "fsrm", "pclmulqdq", "popcnt", "rdtscp", "sha", "sse3", "sse41", "sse42",
	"ssse3", "vpclmulqdq"}

// Host is what Probe found about valgrind on this machine.
type Host struct {
	// Hidden are the features this machine has and valgrind hides, sorted, e.g. ["x86.adx",
	// "x86.cpuid.sha"]: code that dispatches on them takes another path under valgrind
	// (UsesFeatures says whether a binary can).
	Hidden []string
	// Phantom are the features valgrind reports and this machine lacks, sorted, e.g.
	// ["x86.cpuid.rdtscp"]: code that takes their path under valgrind dies there.
	Phantom []string
	// Off are the GODEBUG settings that keep Go code off the phantom features' paths, e.g.
	// ["cpu.rdtscp=off"]: Env adds them to every process valgrind runs.
	Off []string
	// Unswitched are the phantom features Go has no switch for: a binary that uses one
	// (UsesFeatures) cannot run under valgrind here.
	Unswitched []string
	// Diagnoses holds valgrind's own words on executing each phantom feature's instruction, by
	// feature, e.g. "valgrind cannot decode RDTSCP (0F 01 F9)"; a feature executed cleanly or not
	// tried has none.
	Diagnoses map[string]string
}

// Env returns env with h.Off added to its GODEBUG (or a GODEBUG of them): the environment of a Go
// program valgrind runs on this host.
func (h Host) Env(env []string) []string {
	return AddGODEBUG(env, h.Off...)
}

// AddGODEBUG returns env with settings appended to its GODEBUG, which it adds when env has none.
func AddGODEBUG(env []string, settings ...string) []string {
	if len(settings) == 0 {
		return env
	}
	out := slices.Clone(env)
	add := strings.Join(settings, ",")
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				add = v + "," + add
			}
			out[i] = "GODEBUG=" + add
			return out
		}
	}
	return append(out, "GODEBUG="+add)
}

// Method says in one line what valgrind hides and what it runs with here, for a report's method; ""
// when valgrind sees this machine's CPU as it is.
func (h Host) Method() string {
	var parts []string
	if len(h.Phantom) > 0 {
		parts = append(parts, fmt.Sprintf("reports %s, which this CPU lacks", strings.Join(h.Phantom, ", ")))
	}
	if len(h.Off) > 0 {
		parts = append(parts, "so Go code runs under it with GODEBUG="+strings.Join(h.Off, ",")+" on both sides")
	}
	if len(h.Unswitched) > 0 {
		parts = append(parts, fmt.Sprintf("no Go switch turns off %s", strings.Join(h.Unswitched, ", ")))
	}
	return strings.Join(parts, "; ")
}

var (
	probeMu sync.Mutex
	probed  = map[string]Host{} // by valgrind's path
)

// Probe builds the probe in a directory of its own under dir (removed when done) and returns what
// valgrind (the program at path valgrind) can run on this host. An answer is kept for the life of
// the process, since the CPU and valgrind do not change under it; an error is not.
func Probe(ctx context.Context, valgrind, dir string) (Host, error) {
	probeMu.Lock()
	defer probeMu.Unlock()
	if h, ok := probed[valgrind]; ok {
		return h, nil
	}
	h, err := probe(ctx, valgrind, dir)
	if err == nil {
		probed[valgrind] = h
	}
	return h, err
}

func probe(ctx context.Context, valgrind, dir string) (Host, error) {
	dir, err := os.MkdirTemp(dir, "cpuprobe-")
	if err != nil {
		return Host{}, fmt.Errorf("probing CPU features: %w", err)
	}
	defer os.RemoveAll(dir)
	bin, err := buildProbe(ctx, dir)
	if err != nil {
		return Host{}, fmt.Errorf("probing CPU features: %w", err)
	}
	native, err := features(ctx, dir, nil, bin)
	if err != nil {
		return Host{}, fmt.Errorf("probing CPU features natively: %w", err)
	}
	// The probe is a Go program too: the runtime in it may execute RDTSCP under valgrind before
	// anything is known, so this one run has it off (x/sys/cpu, whose features it prints, has no
	// such switch to turn).
	vgEnv := []string{"GODEBUG=cpu.rdtscp=off"}
	var emulated map[string]bool
	for try := 0; ; try++ {
		emulated, err = features(ctx, dir, vgEnv, valgrind, "--tool=none", "-q", bin)
		if err == nil || try == 1 {
			break
		}
	}
	if err != nil {
		return Host{}, fmt.Errorf("probing CPU features under valgrind: %w", err)
	}
	h := Host{Diagnoses: map[string]string{}}
	for name, on := range native {
		if on && !emulated[name] {
			h.Hidden = append(h.Hidden, name)
		}
	}
	for name, on := range emulated {
		if on && !native[name] {
			h.Phantom = append(h.Phantom, name)
		}
	}
	slices.Sort(h.Hidden)
	slices.Sort(h.Phantom)
	for _, f := range h.Phantom {
		// not -q: it keeps the decoder quiet
		cmd := proc.Command(ctx, dir, vgEnv, valgrind, "--tool=none", bin, "exec", f)
		if stdout, stderr, err := proc.Run(cmd); err != nil && !bytes.Contains(stdout, []byte("executed")) {
			if d := Diagnose(stderr); d != "" {
				h.Diagnoses[f] = d
			} else if !bytes.Contains(stderr, []byte("no instruction of")) {
				h.Diagnoses[f] = fmt.Sprintf("valgrind failed to execute it: %v", err)
			}
		}
		name := strings.TrimPrefix(strings.TrimPrefix(f, "x86.cpuid."), "x86.")
		if slices.Contains(goSwitches, name) {
			h.Off = append(h.Off, "cpu."+name+"=off")
		} else {
			h.Unswitched = append(h.Unswitched, f)
		}
	}
	return h, nil
}

// buildProbe writes the probe's module into dir and builds it, requiring the golang.org/x/sys this
// program was built with.
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

// features runs argv and reads its "name true|false" lines.
func features(ctx context.Context, dir string, env []string, argv ...string) (map[string]bool, error) {
	stdout, _, err := proc.Run(proc.Command(ctx, dir, env, argv...))
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

// featureInstructions are the Go assembler mnemonics (as go tool objdump prints them) of code that
// needs each feature Probe can report, as a pattern over an objdump line. AVX-512 is recognised by
// its Z and K registers.
var featureInstructions = map[string]string{
	"x86.adx":              `\b(ADCX|ADOX)[LQ]?\b`,
	"x86.cpuid.sha":        `\bSHA(1|256)[A-Z0-9]*\b`,
	"x86.cpuid.vaes":       `\bVAES[A-Z]*\b.*\b[YZ]\d+\b`,
	"x86.cpuid.vpclmulqdq": `\bVPCLMULQDQ\b.*\b[YZ]\d+\b`,
	"x86.cpuid.gfni":       `\bV?GF2P8[A-Z]*\b`,
	"x86.cpuid.avx512f":    `\bZ([12]?\d|3[01])\b`,
	"x86.cpuid.rdtscp":     `\bRDTSCP\b`,
	// AVX-VNNI and AVX-IFMA are VEX-encoded forms of AVX-512 instructions: by their mnemonics on X
	// and Y registers (the EVEX forms use Z registers, or are AVX-512's).
	"x86.avxvnni": `\bVPDP(BUSDS?|WSSDS?)\b`,
	"x86.avxifma": `\bVPMADD52[LH]UQ\b`,
}

// UsesFeatures returns the features of hidden whose instructions the disassembly of a binary (go
// tool objdump's output) contains. A feature it has no pattern for counts as used; every AVX-512
// extension is recognised by the Z and K registers as AVX-512F is.
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
