package consttime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/proc"
	"github.com/perfgate/perfgate/internal/sandbox"
	"github.com/perfgate/perfgate/internal/valgrind"
	"golang.org/x/sys/unix"
)

// build generates p's driver and builds it in the module at dir with go build -overlay, so that
// nothing is written into the tree: the source, the overlay and the binary go to work, named for
// the side.
func build(ctx context.Context, cfg *Config, dir, side string, p *pkgTargets) (string, error) {
	src, err := driverSource(p)
	if err != nil {
		return "", err
	}
	hdir := filepath.Join(p.Dir, "perfgate_consttime")
	for i := 0; ; i++ {
		if _, err := os.Stat(hdir); errors.Is(err, os.ErrNotExist) {
			break
		}
		hdir = filepath.Join(p.Dir, "perfgate_consttime"+strconv.Itoa(i))
	}
	srcPath := filepath.Join(cfg.WorkDir, side+"-driver.go")
	if err := os.WriteFile(srcPath, src, 0o644); err != nil {
		return "", fmt.Errorf("writing the driver: %w", err)
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(hdir, "main.go"): srcPath}})
	if err != nil {
		return "", err
	}
	ovPath := filepath.Join(cfg.WorkDir, side+"-overlay.json")
	if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
		return "", fmt.Errorf("writing the overlay: %w", err)
	}
	bin := filepath.Join(cfg.WorkDir, side+"-driver")
	argv := append([]string{"go", "build", "-overlay=" + ovPath}, cfg.BuildFlags(side)...)
	argv = append(argv, "-o", bin, hdir)
	_, stderr, err := proc.Run(proc.Command(ctx, dir, cfg.BuildEnv(side), argv...))
	if err != nil {
		return "", fmt.Errorf("building the %s driver: %w\n%s", side, err, proc.Tail(stderr, 8))
	}
	return bin, nil
}

// access is one memory access of the package's code: the index of its instruction in the run and
// what it did.
type access struct {
	pos  uint32
	kind byte // 'L', 'S' or 'M'
	addr uint64
}

// run is one traced call: the package's instructions in order, and their memory accesses.
type run struct {
	insns []uint64
	acc   []access
}

// segLine is one line of the driver's standard output about a traced call.
type segLine struct {
	Index               int
	Ctor, Op            string
	Run, KeySize, Input int
	Obj, ObjSize        uint64
	Err                 string
}

// traceDriver runs bin under lackey and returns the runs between the markers, in order, the
// driver's lines and the CPU time valgrind used. only, when not empty, names the constructors to
// trace (the driver's fifth argument).
//
// A run that valgrind itself failed (Diagnose names the cause, e.g. an instruction it cannot
// decode) is tried once more, since such failures can come at random; the error of the second says
// so.
func traceDriver(ctx context.Context, cfg *Config, b *binary, bin string, sealed sandbox.Binary, only []string) (
	[]*run, []string, time.Duration, error) {
	runs, lines, cpu, err := traceOnce(ctx, cfg, b, bin, sealed, only)
	var tf *toolFailure
	if errors.As(err, &tf) && ctx.Err() == nil {
		cfg.Logf("consttime: %s: %s: tracing again\n", filepath.Base(bin), tf.diagnosis)
		var again time.Duration
		runs, lines, again, err = traceOnce(ctx, cfg, b, bin, sealed, only)
		cpu += again
	}
	return runs, lines, cpu, err
}

// toolFailure is a traced run that valgrind, not the driver, failed: a failure of the check's tool,
// never a finding about the code.
type toolFailure struct {
	diagnosis string // valgrind.Diagnose's
	err       error
}

func (e *toolFailure) Error() string { return "valgrind failed tracing the driver: " + e.diagnosis }
func (e *toolFailure) Unwrap() error { return e.err }

func traceOnce(ctx context.Context, cfg *Config, b *binary, bin string, sealed sandbox.Binary, only []string) (
	[]*run, []string, time.Duration, error) {
	if err := sealed.Verify(); err != nil {
		return nil, nil, 0, err
	}
	scratch, remove, err := cfg.Sandbox.Scratch()
	if err != nil {
		return nil, nil, 0, err
	}
	defer remove()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, 0, err
	}
	defer pr.Close()
	// A large pipe that is read in large gulps (see lazyReader): lackey writes every line with a
	// system call of its own, and a reader woken for each would double the cost.
	//nolint:errcheck // a smaller pipe only costs time
	unix.FcntlInt(pw.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	argv := []string{cfg.Valgrind, "--tool=lackey", "--trace-mem=yes", "--log-fd=3",
		bin, strconv.Itoa(cfg.Secrets), strconv.Itoa(cfg.BatchSecrets), strconv.Itoa(cfg.BatchBlocks),
		strconv.FormatUint(cfg.Seed, 10)}
	if len(only) > 0 {
		argv = append(argv, strings.Join(only, ","))
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := proc.Command(rctx, scratch, valgrind.AddGODEBUG([]string{"GOGC=off", "GOMAXPROCS=1"}, cfg.godebug...), argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = []*os.File{pw}
	if err := proc.Start(cmd, func() error { return cfg.Sandbox.Start(cmd, scratch, nil) }); err != nil {
		pw.Close()
		return nil, nil, 0, fmt.Errorf("starting valgrind: %w", err)
	}
	pw.Close()
	type parsed struct {
		runs []*run
		log  []string
		err  error
	}
	done := make(chan parsed, 1)
	go func() {
		runs, log, err := parseTrace(lazyReader{pr}, b)
		io.Copy(io.Discard, pr)
		done <- parsed{runs, log, err}
	}()
	werr := proc.Wait(cmd)
	p := <-done
	var cpu time.Duration
	if st := cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
		cfg.Logf("consttime: %s: valgrind used %v of CPU (user %v, system %v)\n", filepath.Base(bin),
			(st.UserTime() + st.SystemTime()).Round(time.Millisecond), st.UserTime().Round(time.Millisecond),
			st.SystemTime().Round(time.Millisecond))
	}
	if werr != nil {
		if d := valgrind.Diagnose(append(stderr.Bytes(), strings.Join(p.log, "\n")...)); d != "" && ctx.Err() == nil {
			return nil, nil, cpu, &toolFailure{diagnosis: d, err: werr}
		}
		msg := proc.Tail(stderr.Bytes(), 6)
		if msg == "" {
			msg = strings.Join(p.log, "\n")
		}
		return nil, nil, cpu, fmt.Errorf("the driver failed under valgrind: %w\n%s", werr, msg)
	}
	if p.err != nil {
		return nil, nil, cpu, p.err
	}
	return p.runs, strings.Split(strings.TrimSpace(stdout.String()), "\n"), cpu, nil
}

// lazyReader reads r and, after a short read, sleeps for a millisecond, so that the writer fills
// the pipe without waking the reader at every write.
type lazyReader struct{ r io.Reader }

func (l lazyReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err == nil && n < len(p)/2 {
		time.Sleep(time.Millisecond)
	}
	return n, err
}

// parseTrace reads lackey's output: "I ADDR,SIZE" per instruction, " L ADDR,SIZE" (S, M) per data
// access, and "==PID== …" lines of valgrind's own. It keeps, between each call of perfgateBegin and
// of perfgateEnd, the package's instructions and their accesses; it returns valgrind's own lines
// too, for errors.
func parseTrace(r io.Reader, b *binary) ([]*run, []string, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var runs []*run
	var log []string
	var cur *run
	own := false
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 3 {
			switch {
			case line[0] == 'I':
				a := hexAddr(line[3:])
				switch {
				case a == b.begin:
					cur = &run{}
					runs = append(runs, cur)
				case a == b.end:
					cur = nil
				case cur != nil:
					own = b.isOwn(a)
					if own {
						cur.insns = append(cur.insns, a)
					}
				}
			case line[0] == ' ' && cur != nil && own && len(cur.insns) > 0:
				cur.acc = append(cur.acc, access{uint32(len(cur.insns) - 1), line[1], hexAddr(line[3:])})
			case line[0] == '=' && len(log) < 200:
				log = append(log, strings.TrimSpace(string(line)))
			}
		}
		if err == io.EOF {
			return runs, log, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return nil, log, fmt.Errorf("reading the trace: %w", err)
		}
	}
}

// hexAddr parses the hexadecimal address at the start of s, up to the comma.
func hexAddr(s []byte) uint64 {
	var a uint64
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			a = a<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			a = a<<4 | uint64(c-'a'+10)
		default:
			return a
		}
	}
	return a
}

// parseSegLines reads the driver's lines (see driverTmpl): the traced calls, and the targets it
// skipped or that failed, with the reason.
func parseSegLines(lines []string) (segs []segLine, skipped map[string]string, err error) {
	skipped = map[string]string{}
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 10 && f[0] == "seg":
			var s segLine
			_, err := fmt.Sscanf(l, "seg %d %s %s %d %d %d %d %d %q", &s.Index, &s.Ctor, &s.Op, &s.Run, &s.KeySize,
				&s.Input, &s.Obj, &s.ObjSize, &s.Err)
			if err != nil {
				return nil, nil, fmt.Errorf("the driver printed a bad line %q: %w", l, err)
			}
			segs = append(segs, s)
		case len(f) >= 3 && (f[0] == "skip" || f[0] == "fail"):
			msg, _ := strconv.Unquote(strings.Join(f[2:], " "))
			skipped[f[1]] = msg
		case l == "":
		default:
			return nil, nil, fmt.Errorf("the driver printed an unexpected line %q", l)
		}
	}
	return segs, skipped, nil
}
