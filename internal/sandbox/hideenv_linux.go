package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HideEnvironment makes this process non-dumpable, so that /proc/PID/environ is readable by root
// only, not by the benchmark processes that run as the same user; and it blanks the values of the
// variables secrets (a token) in that environment block, which the kernel keeps as it was passed to
// exec. Go copied the environment at start-up (os.Getenv still answers), so only what other
// processes can read changes; this also holds where the benchmarks run as root, for whom
// non-dumpable is no obstacle. The children's scrubbed environment keeps the token out of their own
// environment.
func HideEnvironment(secrets []string) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("could not hide perfgate's environment from its children: %w", err)
	}
	if err := blankEnviron(secrets); err != nil {
		return fmt.Errorf("could not blank the token in /proc/self/environ: %w", err)
	}
	return nil
}

// blankEnviron overwrites, in this process's original environment block (what /proc/self/environ
// shows), the value of every variable in names with asterisks.
func blankEnviron(names []string) error {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	// Fields after the command name, which may hold spaces: state is field 3, env_start 50 and
	// env_end 51.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 49 {
		return fmt.Errorf("/proc/self/stat has %d fields, want env_start and env_end", len(f)+2)
	}
	start, err1 := strconv.ParseInt(f[47], 10, 64)
	end, err2 := strconv.ParseInt(f[48], 10, 64)
	if err1 != nil || err2 != nil || end <= start {
		return fmt.Errorf("/proc/self/stat: env_start %q, env_end %q", f[47], f[48])
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return err
	}
	changed := false
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		entry := block[off : off+n]
		if name, _, ok := bytes.Cut(entry, []byte("=")); ok {
			for _, s := range names {
				if string(name) == s {
					for i := len(name) + 1; i < len(entry); i++ {
						entry[i] = '*'
					}
					changed = true
				}
			}
		}
		off += n + 1
	}
	if !changed {
		return nil
	}
	_, err = mem.WriteAt(block, start)
	return err
}
