package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/perfgate/perfgate/internal/abba"
	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/hostenv"
	"github.com/perfgate/perfgate/internal/pipeline"
	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/text"
	"github.com/perfgate/perfgate/internal/valgrind"
	"github.com/perfgate/perfgate/record"
)

const doctorUsage = `Usage: perfgate doctor [-pkg P] [-budget D] [-format text|json]

Says what this machine can measure, before a pull request is gated on it: Go, valgrind and whether it can run
Go code here (the CPU features it hides, and those it reports but cannot decode, which perfgate turns off with
GODEBUG=cpu.X=off), CPU pinning, what a valgrind on the spare CPU does to a timed probe on the timed one (and so
whether perfgate runs the count lane and the constant-time trace beside the timing or before it), the sandbox
(Landlock, no_new_privs), the timer's resolution, what a first touch of a page costs (for benchmarks that
allocate), hardware counters and the load. With -pkg it also times the package's benchmarks against themselves (an A/A run of HEAD, for the
budget) and gives each one's noise and the smallest slowdown a run at the default budget can detect, with a
threshold to set where the default cannot be reached.

Examples:
  perfgate doctor
  perfgate doctor -pkg ./cipher/des
  perfgate doctor -format json -pkg ./... -budget 60s

Exit codes: 0 ready, 1 degraded (the lines marked so say what and what to do), 2 usage.

Flags:
`

// doctorCheck is one line of the doctor's report.
type doctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"` // "ok", "degraded" or "info"
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"` // what to do about a degraded check
}

// doctorBench is one benchmark's A/A result.
type doctorBench struct {
	Name     string  `json:"name"`
	Package  string  `json:"package,omitempty"`
	NoisePct float64 `json:"noise_pct"`
	// smallest detectable effect in the doctor's run
	MDEPct float64 `json:"mde_pct"`
	Rounds int     `json:"rounds"`          // rounds it was timed
	DefMDE float64 `json:"default_mde_pct"` // estimated at the default budget
	// a threshold reachable at the default budget; 0: the default is
	Suggest float64 `json:"suggest_pct,omitempty"`
}

// doctorReport is what doctor prints.
type doctorReport struct {
	Ready      bool          `json:"ready"`
	Checks     []doctorCheck `json:"checks"`
	Package    string        `json:"package,omitempty"`
	Threshold  float64       `json:"threshold_pct,omitempty"`
	Budget     string        `json:"budget,omitempty"` // of the A/A run
	Benchmarks []doctorBench `json:"benchmarks,omitempty"`
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("doctor", doctorUsage)
	pkg := fs.String("pkg", "", "also time this package's benchmarks against themselves (A/A) for their noise")
	budget := fs.Duration("budget", 30*time.Second, "time the A/A run may take, with -pkg")
	bench := fs.String("bench", "", "with -pkg: only the benchmarks this regular expression selects")
	format := fs.String("format", "text", "text or json")
	dir := fs.String("C", ".", "with -pkg: a directory of the repository")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 || (*format != "text" && *format != "json") || *budget <= 0 {
		return usageError(stderr, "doctor takes flags only: -pkg P, -budget D (above 0), -format text|json",
			"run 'perfgate doctor -h' for an example")
	}
	rep := doctorReport{Checks: hostChecks(ctx)}
	if *pkg != "" {
		fmt.Fprintf(stderr, "perfgate: doctor: timing %s against itself for %v (an A/A run of HEAD)\n", *pkg, *budget)
		if err := aaRun(ctx, &rep, *dir, *pkg, *bench, *budget, stderr); err != nil {
			rep.Checks = append(rep.Checks, doctorCheck{Name: "A/A run", Status: "degraded", Detail: err.Error(),
				Hint: "run perfgate compare -pkg " + *pkg + " HEAD HEAD -time-same-code to see the whole run"})
		}
	}
	rep.Ready = true
	for _, c := range rep.Checks {
		rep.Ready = rep.Ready && c.Status != "degraded"
	}
	for _, b := range rep.Benchmarks {
		rep.Ready = rep.Ready && b.Suggest == 0
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep) //nolint:errcheck // stdout
	} else {
		printDoctor(stdout, rep)
	}
	if !rep.Ready {
		return record.ExitFail
	}
	return record.ExitPass
}

// hostChecks are the checks of the machine itself, in the order they print.
func hostChecks(ctx context.Context) []doctorCheck {
	var out []doctorCheck
	add := func(c doctorCheck) { out = append(out, c) }

	if v, _, err := proc.Run(proc.Command(ctx, "", nil, "go", "version")); err != nil {
		add(doctorCheck{Name: "go", Status: "degraded", Detail: "no go command: perfgate builds both sides with it",
			Hint: "install Go 1.26 or later and put it in PATH"})
	} else {
		add(doctorCheck{Name: "go", Status: "ok", Detail: strings.TrimSpace(string(v))})
	}

	out = append(out, valgrindChecks(ctx)...)

	switch p, err := abba.Choose(-1, false); {
	case err != nil:
		add(doctorCheck{Name: "pinning", Status: "degraded", Detail: err.Error()})
	case !p.Pinned:
		add(doctorCheck{Name: "pinning", Status: "degraded", Detail: "benchmarks would run unpinned: " + p.Reason,
			Hint: "perfgate pins on Linux; elsewhere the comparison is noisier"})
	default:
		add(doctorCheck{Name: "pinning", Status: "ok", Detail: fmt.Sprintf("benchmarks pinned to CPU %d (allowed: %s)",
			p.CPU, p.Allowed)})
	}

	if c, ok := neighbourCheck(ctx); ok {
		add(c)
	}

	if sb, err := sandbox.New(sandbox.Config{Mode: sandbox.ModeAuto, Scratch: os.TempDir()}); err != nil {
		add(doctorCheck{Name: "sandbox", Status: "degraded", Detail: err.Error()})
	} else if g := sb.Guarantee(); g.Guarded {
		add(doctorCheck{Name: "sandbox", Status: "ok", Detail: g.String()})
	} else {
		add(doctorCheck{Name: "sandbox", Status: "degraded", Detail: g.String(),
			Hint: "repository code would run unguarded: a Linux kernel with Landlock (5.13 or later) guards it"})
	}

	res := timerResolution()
	c := doctorCheck{Name: "timer", Status: "ok", Detail: fmt.Sprintf("time.Now advances in steps of %v", res)}
	if res > time.Microsecond {
		c.Status, c.Hint = "degraded", "a coarse clock: perfgate lengthens runs, but short benchmarks lose precision"
	}
	add(c)

	if pc, err := measurePages(2 * time.Second); err != nil {
		add(doctorCheck{Name: "memory", Status: "info", Detail: "first touch of a page not measured: " + err.Error()})
	} else {
		add(memoryCheck(pc))
	}

	add(perfCounters())

	env := hostenv.Collect(ctx, -1)
	c = doctorCheck{Name: "machine", Status: "info", Detail: fmt.Sprintf("%s · %d CPUs · %s/%s · kernel %s · load %.2f",
		env.CPU, env.CPUs, env.GOOS, env.GOARCH, orNone(env.Kernel), env.Load1)}
	if env.SMT != "" || env.Governor != "" || env.Turbo != "" {
		c.Detail += fmt.Sprintf(" · SMT %s · governor %s · turbo %s", orNone(env.SMT), orNone(env.Governor),
			orNone(env.Turbo))
	}
	if env.Load1 > float64(env.CPUs)/2 {
		c.Hint = "the machine is busy now: timing is noisier than it will be when it is quiet"
	}
	add(c)
	return out
}

// valgrindChecks says whether valgrind is there and what it can run on this CPU.
func valgrindChecks(ctx context.Context) []doctorCheck {
	vg, err := valgrind.Find(ctx, "", "the instruction-count lane and the constant-time check need it")
	if err != nil {
		return []doctorCheck{{Name: "valgrind", Status: "degraded", Detail: "not installed: metric auto times only " +
			"and the constant-time check is off", Hint: valgrind.InstallCommand + " (the Action installs it itself)"}}
	}
	out := []doctorCheck{{Name: "valgrind", Status: "ok", Detail: vg.Version + " at " + vg.Path}}
	dir, err := os.MkdirTemp("", "perfgate-doctor-")
	if err != nil {
		return append(out, doctorCheck{Name: "valgrind cpu", Status: "degraded", Detail: err.Error()})
	}
	defer os.RemoveAll(dir)
	h, err := valgrind.Probe(ctx, vg.Path, dir)
	if err != nil {
		return append(out, doctorCheck{Name: "valgrind cpu", Status: "degraded", Detail: "the CPU probe failed: " +
			err.Error(), Hint: "the instruction counts settle nothing until the probe runs"})
	}
	if len(h.Hidden) > 0 {
		out = append(out, doctorCheck{Name: "valgrind hides", Status: "info", Detail: fmt.Sprintf("%s: code that "+
			"dispatches on them takes another path under valgrind, and its counts settle nothing (wall time judges it)",
			strings.Join(h.Hidden, ", "))})
	}
	for _, f := range h.Phantom {
		d := h.Diagnoses[f]
		if d == "" {
			d = "valgrind executed it"
		}
		c := doctorCheck{Name: "valgrind decodes", Status: "ok", Detail: fmt.Sprintf("valgrind reports %s, which "+
			"this CPU lacks (%s): perfgate runs Go code under valgrind with GODEBUG=%s", f, d, strings.Join(h.Off, ","))}
		for _, u := range h.Unswitched {
			if u == f {
				c.Status, c.Detail = "degraded", fmt.Sprintf("valgrind reports %s, which this CPU lacks (%s), and Go has "+
					"no switch for it: a binary that uses it cannot be counted here", f, d)
				c.Hint = "such binaries are judged by wall time alone"
			}
		}
		out = append(out, c)
	}
	if len(h.Phantom) == 0 {
		out = append(out, doctorCheck{Name: "valgrind decodes", Status: "ok", Detail: "every feature valgrind " +
			"reports, this CPU has"})
	}
	return out
}

// neighbourCheck runs the scheduler's probe (pipeline.ProbeNeighbour): what a valgrind on the spare
// CPU does to a timed probe on the timed one, and so whether perfgate runs the count lane and the
// constant-time trace beside the timing here or before it. No check without valgrind or a second
// CPU: then nothing runs beside the timing.
func neighbourCheck(ctx context.Context) (doctorCheck, bool) {
	vg, err := valgrind.Find(ctx, "", "")
	if err != nil {
		return doctorCheck{}, false
	}
	timed, spare, ok := pipeline.NeighbourCPUs()
	if !ok {
		return doctorCheck{}, false
	}
	n, err := pipeline.ProbeNeighbour(ctx, vg.Path, timed, spare)
	if err != nil {
		return doctorCheck{Name: "neighbour", Status: "info", Detail: "what a valgrind beside the timed CPU does to " +
			"it could not be measured (" + err.Error() + "): perfgate runs the lanes before the timing on this host"}, true
	}
	th := config.Default().Threshold
	where := "beside the timing"
	if !n.Harmless(th) {
		where = "before the timing"
	}
	var kinds []string
	for _, k := range n.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %+.1f%%", k.Name, 100*(k.Ratio-1)))
	}
	return doctorCheck{Name: "neighbour", Status: "info", Detail: fmt.Sprintf("a valgrind beside the timed CPU "+
		"moves a timed probe by %+.1f%% ±%.1f%% (alone 1.00, beside %.3f; %s; CPU %d beside CPU %d): perfgate runs "+
		"the lanes %s on this host (harmless: within a quarter of the ±%g%% threshold, the probe's noise included)",
		n.Pct(), n.UncertaintyPct(), n.Beside, strings.Join(kinds, ", "), spare, timed, where, th)}, true
}

// timerResolution is the smallest step of time.Now observed in a short loop.
func timerResolution() time.Duration {
	best := time.Duration(math.MaxInt64)
	for i := 0; i < 1000; i++ {
		t0 := time.Now()
		t1 := time.Now()
		for t1 == t0 {
			t1 = time.Now()
		}
		best = min(best, t1.Sub(t0))
	}
	return best
}

// perfCounters says whether hardware performance counters can be read (perf_event_open): perfgate
// does not need them, since callgrind counts instructions, but a team may want to know.
func perfCounters() doctorCheck {
	if runtime.GOOS != "linux" {
		return doctorCheck{Name: "perf counters", Status: "info", Detail: "not on " + runtime.GOOS}
	}
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_HARDWARE, Config: unix.PERF_COUNT_HW_INSTRUCTIONS,
		Bits: unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return doctorCheck{Name: "perf counters", Status: "info", Detail: "perf_event_open: " + err.Error() +
			" (not needed: the instruction-count lane counts under valgrind)"}
	}
	unix.Close(fd)
	return doctorCheck{Name: "perf counters", Status: "info", Detail: "hardware instruction counter readable " +
		"(not needed: the instruction-count lane counts under valgrind)"}
}

// aaRun times pkg's benchmarks at HEAD against themselves within budget and adds each one's noise
// and smallest detectable effect to rep, with a threshold a run at the default budget can reach
// where the default cannot.
func aaRun(ctx context.Context, rep *doctorReport, dir, pkg, benchRE string, budget time.Duration, stderr io.Writer) error {
	cfg := config.Default()
	defBudget := cfg.Budget
	cfg.Dir, cfg.Package, cfg.Bench = dir, pkg, benchRE
	cfg.Base, cfg.Head = "HEAD", "HEAD"
	cfg.TimeSameCode = true
	cfg.Metric = record.MetricTime
	cfg.ConstantTime = string(record.CTOff)
	cfg.Differential = false
	cfg.Budget = budget
	cfg.Log = &linePrefix{w: stderr}
	out, err := os.MkdirTemp("", "perfgate-doctor-aa-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	cfg.Out = out
	res, err := pipeline.Run(ctx, cfg)
	if res == nil {
		return err
	}
	rep.Package, rep.Threshold, rep.Budget = pkg, cfg.Threshold, budget.String()
	timed := res.Method.TimedPhase
	for _, b := range res.Benchmarks {
		if b.Unit != record.UnitTime || b.Paired == nil || b.Paired.Rounds == 0 {
			continue
		}
		db := doctorBench{Name: b.Name, Package: b.Package, NoisePct: b.NoisePct, MDEPct: b.MDEPct, Rounds: b.Paired.Rounds}
		// The interval narrows as the square root of the rounds: at the default budget, about
		// defBudget/timed as many rounds fit as fitted here.
		db.DefMDE = b.MDEPct
		if timed > 0 && defBudget > timed {
			db.DefMDE = b.MDEPct * math.Sqrt(float64(timed)/float64(defBudget))
		}
		if db.DefMDE > cfg.Threshold {
			// to the next half percent, with a tenth to spare
			db.Suggest = math.Ceil(db.DefMDE*1.1*2) / 2
		}
		rep.Benchmarks = append(rep.Benchmarks, db)
	}
	if len(rep.Benchmarks) == 0 {
		return fmt.Errorf("no benchmark of %s was timed: %s", pkg, strings.Join(res.Verdict.Reasons, "; "))
	}
	return err
}

// linePrefix prefixes the A/A run's progress so that it reads as the doctor's.
type linePrefix struct{ w io.Writer }

func (l *linePrefix) Write(p []byte) (int, error) {
	s := strings.ReplaceAll(strings.TrimSuffix(string(p), "\n"), "\n", "\n  ")
	fmt.Fprintf(l.w, "  %s\n", s)
	return len(p), nil
}

func printDoctor(w io.Writer, rep doctorReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range rep.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Status, text.Plain(c.Detail))
		if c.Hint != "" {
			fmt.Fprintf(tw, "\t\thint: %s\n", text.Plain(c.Hint))
		}
	}
	tw.Flush()
	if len(rep.Benchmarks) > 0 {
		fmt.Fprintf(w, "\n%s, A/A at HEAD within %s (threshold ±%g%%):\n", text.Plain(rep.Package), rep.Budget, rep.Threshold)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "benchmark\tnoise\tdetectable here\trounds\tat the default budget\tsuggested threshold\t\n")
		for _, b := range rep.Benchmarks {
			s := "default"
			if b.Suggest > 0 {
				s = fmt.Sprintf("%g%%", b.Suggest)
			}
			fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%d\t%.1f%%\t%s\t\n", text.Plain(b.Name), b.NoisePct, b.MDEPct, b.Rounds,
				b.DefMDE, s)
		}
		tw.Flush()
		var open []string
		for _, b := range rep.Benchmarks {
			if b.Suggest > 0 {
				open = append(open, fmt.Sprintf("'^%s$': %g", regexp.QuoteMeta(b.Name), b.Suggest))
			}
		}
		if len(open) > 0 {
			fmt.Fprintf(w, "\n%d benchmarks cannot reach ±%g%% at the default budget on this machine; in .perfgate.yml:\n"+
				"thresholds: {%s}\n", len(open), rep.Threshold, text.Plain(strings.Join(open, ", ")))
		}
	}
	if rep.Ready {
		fmt.Fprintln(w, "\nready: this machine can measure what perfgate measures")
	} else {
		fmt.Fprintln(w, "\ndegraded: see the lines above")
	}
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
