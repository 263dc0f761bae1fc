package config

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// sandboxModes are the values of the key "sandbox" (those of internal/sandbox's modes, and "" for
// the default).
var sandboxModes = []string{"", "required", "auto", "off"}

// Key is one configuration setting, declared once: its name in .perfgate.yml, its flag, its GitHub
// Action input, its built-in default, how its text is read and checked, and one line of
// documentation. The flags of perfgate compare and demo, the file, the Action's inputs, perfgate
// compare -h and the README's table all come from the table of keys (ConfigKeys) or are tested
// against it.
//
// Adding a setting is the Config field it sets and one entry in the table below; the flag, the file
// key, the input, parsing, bounds, error messages and -h follow. The tests then ask for two more
// lines: the key in config_test.go's fullYAML, and the regenerated README table and action.yml
// inputs (go test ./cmd/perfgate -run TestGeneratedFromKeys -update).
type Key struct {
	File    string // the key in .perfgate.yml; "" when the file cannot set it
	Flag    string // the flag of perfgate compare and demo; "" for none
	Input   string // the input of the GitHub Action; "" for none
	Default string // the built-in default, written as a flag takes it; "" for none (the zero value)
	// what the flag takes, for -h: "int", "duration", "string", "list", …; "" for a boolean
	Type string
	Form string // the accepted form, as an error states it: "a whole number from 2 to 100"
	Doc  string // one line for -h, the README and action.yml
	// Only says why the key is not all three of a file key, a flag and an input (the README
	// promises each setting in every place unless the table says why not); "" for a key that is.
	Only string
	// Policy marks a key of the gate policy: what is checked and how strictly. Where the policy
	// comes from base (policy-from base, the Action's default), the file's value of such a key is
	// read from base's configuration file, not from head's, and head's differences are reported
	// (Config.PolicyFromFile).
	Policy bool

	// reads text (a flag, an input, a scalar in the file) into c
	set func(c *Config, text string) error
	// reads a YAML sequence into c; nil when the file takes a scalar
	list func(c *Config, items []string) error
	// reads a YAML mapping into c; nil when the file takes none
	pairs func(c *Config, m map[string]string) error
	// nested reads a YAML mapping of mappings into c; nil when the file takes none.
	nested func(c *Config, m map[string]map[string]string) error
	// reports c's value as text when it is out of bounds
	check func(c *Config) (bad string, ok bool)
	// reason says why a bad value (check's) is refused, for the error; nil when the form says it
	reason func(bad string) string
	// repeat marks a key whose flag may be given several times (and whose input takes one item a
	// line): each adds an item (Resolve joins them)
	repeat bool
	field  func(c *Config) any // a pointer to the field of c the key sets
}

// Name is the key's name in messages: its file key, else its flag, else its input.
func (k *Key) Name() string {
	switch {
	case k.File != "":
		return k.File
	case k.Flag != "":
		return k.Flag
	}
	return k.Input
}

// Repeats reports whether the key's flag may be given several times, each adding an item.
func (k *Key) Repeats() bool { return k.repeat }

// IsBool reports whether the key is a boolean: a flag given without a value sets it to true.
func (k *Key) IsBool() bool { return k.Type == "" && k.set != nil }

// Keys returns the table of configuration keys, in the order the README lists them.
func Keys() []*Key { return append([]*Key(nil), keys...) }

// FlagKey returns the key that flag -name sets, or nil.
func FlagKey(name string) *Key {
	for _, k := range keys {
		if k.Flag == name && name != "" {
			return k
		}
	}
	return nil
}

// InputKey returns the key that the Action input name sets, or nil.
func InputKey(name string) *Key {
	for _, k := range keys {
		if k.Input == name && name != "" {
			return k
		}
	}
	return nil
}

// Check parses text as the key's value into a scratch configuration and reports whether it has the
// key's form (bounds are checked later, by Validate or Resolve, once every source has been
// applied).
func (k *Key) Check(text string) error {
	var c Config
	return k.set(&c, text)
}

// setText reads text from source ("flag", "input" or a file and line) into c, or returns a
// *ConfigError.
func (k *Key) setText(c *Config, text, source string) error {
	if err := k.set(c, text); err != nil {
		name := k.File
		switch source {
		case "flag":
			name = k.Flag
		case "input":
			name = k.Input
		}
		return &Error{Source: source, Key: name, Value: text, Want: k.Form}
	}
	return nil
}

// validate checks c's value of k; the error names the key and has no source.
func (k *Key) validate(c *Config) error {
	if k.check == nil {
		return nil
	}
	if bad, ok := k.check(c); !ok {
		e := &Error{Key: k.Name(), Value: bad, Want: k.Form}
		if k.reason != nil {
			e.Why = k.reason(bad)
		}
		return e
	}
	return nil
}

// The constructors below bind a key to the field of Config that field returns and give it its
// parser and checker.

func stringKey(k Key, field func(*Config) *string, valid func(string) bool) *Key {
	k.Type = "string"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error { *field(c) = s; return nil }
	if valid != nil {
		k.check = func(c *Config) (string, bool) { return *field(c), valid(*field(c)) }
	}
	return &k
}

func intKey[T int | int64](k Key, field func(*Config) *T, lo, hi T) *Key {
	k.Type = "int"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n != int64(T(n)) {
			return fmt.Errorf("not a whole number")
		}
		*field(c) = T(n)
		return nil
	}
	k.check = func(c *Config) (string, bool) {
		v := *field(c)
		return strconv.FormatInt(int64(v), 10), v >= lo && v <= hi
	}
	return &k
}

// floatKey takes a number, with an optional % sign for percentages: "2" and "2%" are the same.
func floatKey(k Key, field func(*Config) *float64, valid func(float64) bool) *Key {
	k.Type = "float"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error {
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
		if err != nil {
			return err
		}
		*field(c) = f
		return nil
	}
	k.check = func(c *Config) (string, bool) { return fmtFloat(*field(c)), valid(*field(c)) }
	return &k
}

func durationKey(k Key, field func(*Config) *time.Duration, lo, hi time.Duration) *Key {
	k.Type = "duration"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		*field(c) = d
		return nil
	}
	k.check = func(c *Config) (string, bool) { v := *field(c); return v.String(), v >= lo && v <= hi }
	return &k
}

func boolKey(k Key, field func(*Config) *bool) *Key {
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		*field(c) = b
		return nil
	}
	return &k
}

// withCheck gives k a check of its value against the rest of the configuration.
func withCheck(k *Key, check func(c *Config) (bad string, ok bool)) *Key {
	k.check = check
	return k
}

// listKey takes a comma-separated list from a flag or an input, and a YAML sequence from the file.
func listKey(k Key, field func(*Config) *[]string, valid func(string) bool) *Key {
	k.Type = "list"
	k.field = func(c *Config) any { return field(c) }
	k.set = func(c *Config, s string) error { *field(c) = splitList(s); return nil }
	k.list = func(c *Config, items []string) error { *field(c) = items; return nil }
	k.check = func(c *Config) (string, bool) {
		for _, item := range *field(c) {
			if !valid(item) {
				return item, false
			}
		}
		return "", true
	}
	return &k
}

// keys is the table. Bounds: alpha 0.001–0.2, thresholds in percent above 0 and below 100.
var keys = []*Key{
	stringKey(Key{Flag: "C", Default: ".", Form: "a directory",
		Only: "flag only: the Action runs in the workspace, and a file cannot move its own repository",
		Doc:  "run as if started in this directory (inside the git work tree)"},
		func(c *Config) *string { return &c.Dir }, nil),
	stringKey(Key{File: "package", Flag: "pkg", Input: "package", Default: ".",
		Form: "a package path such as ./cipher/des, several comma-separated, or a pattern such as ./cipher/...",
		Doc: "the packages to gate: a directory relative to -C (the Action: the repository root), in any module of the " +
			"repository, or an import path; several comma-separated, or patterns such as ./cipher/..."},
		func(c *Config) *string { return &c.Package }, func(s string) bool { return strings.TrimSpace(s) != "" }),
	stringKey(Key{File: "bench", Flag: "bench", Policy: true, Input: "bench", Default: ".",
		Form: "a regular expression per level of the benchmark names, as go test's -bench, such as Encrypt/des",
		Doc: "benchmarks to compare, as go test's -bench selects them: one regular expression per '/'-separated level of " +
			"the name (^Sum256$ selects every sub-benchmark of Sum256; Encrypt/des selects Encrypt/des/single)"},
		func(c *Config) *string { return &c.Bench }, func(s string) bool {
			_, err := bench.NewMatcher(s)
			return err == nil
		}),
	intKey(Key{File: "rounds", Flag: "rounds", Policy: true, Input: "rounds", Default: "5",
		Form: "a whole number from 2 to 100",
		Doc:  "A–B–B–A rounds; each side gets 2×rounds samples"},
		func(c *Config) *int { return &c.Rounds }, 2, 100),
	benchTimeKey(Key{File: "benchtime", Flag: "benchtime", Policy: true, Input: "benchtime", Default: "100ms",
		Form: "a duration from 1ms to 1m, such as 100ms, or a count of iterations such as 100x",
		Doc: "one benchmark run, as go test's -benchtime: a duration (calibrated once on base, then the same " +
			"iteration count on both sides; with a budget, the default, runs last 10ms instead, or benchtime when it " +
			"is shorter) or Nx, exactly N iterations a run on both sides, without calibration"},
		func(c *Config) *BenchTime { return &c.BenchTime }, time.Millisecond, time.Minute),
	intKey(Key{File: "pin-cpu", Flag: "pin-cpu", Input: "pin-cpu", Default: "-1",
		Form: "a CPU number, or -1 for the last CPU this process may use",
		Doc: "CPU to pin benchmarks to (-1: the last one this process may use); not go test's -cpu: every run " +
			"is GOMAXPROCS=1"},
		func(c *Config) *int { return &c.CPU }, -1, math.MaxInt32),
	boolKey(Key{File: "no-pin", Flag: "no-pin", Input: "no-pin", Form: "true or false",
		Doc: "do not pin benchmarks to one CPU"},
		func(c *Config) *bool { return &c.NoPin }),
	boolKey(Key{File: "time-same-code", Flag: "time-same-code", Input: "time-same-code", Form: "true or false",
		Doc: "time benchmarks whose machine code is the same on both sides too " +
			"(by default they are unchanged without timing)"},
		func(c *Config) *bool { return &c.TimeSameCode }),
	floatKey(Key{File: "threshold", Flag: "threshold", Policy: true, Input: "threshold", Default: "2",
		Form: "a percentage above 0 and below 100, such as 2",
		Doc:  "smallest change, in percent, called slower or faster"},
		func(c *Config) *float64 { return &c.Threshold }, isPercent),
	stringKey(Key{File: "metric", Flag: "metric", Policy: true, Input: "metric", Default: record.MetricAuto,
		Form: "time, instructions, both or auto",
		Doc: "what gates: time (sec/op), instructions (instructions/op under valgrind), both (each gates), " +
			"or auto (both lanes, one class per benchmark: equal counts settle what time leaves open)"},
		func(c *Config) *string { return &c.Metric }, func(s string) bool { return slices.Contains(metrics, s) }),
	withCheck(boolKey(Key{File: "cycles", Flag: "cycles", Input: "cycles",
		Form: "true or false; true needs a metric that counts instructions (auto, instructions or both)",
		Doc: "with the instruction-count lane, also estimate cycles per op (est-cycles/op, and est-cycles/B where " +
			"the benchmark sets bytes) from callgrind's cache simulation; the lane takes about 1.5 times as long"},
		func(c *Config) *bool { return &c.Cycles }),
		func(c *Config) (string, bool) {
			return strconv.FormatBool(c.Cycles), !c.Cycles || c.CountsInstructions()
		}),
	floatKey(Key{File: "instructions-threshold", Flag: "instructions-threshold", Input: "instructions-threshold",
		Policy: true, Default: "0.5", Form: "a percentage above 0 and below 100, such as 0.5",
		Doc: "smallest change of instructions/op, in percent, called slower or faster"},
		func(c *Config) *float64 { return &c.InstrThreshold }, isPercent),
	floatKey(Key{File: "alpha", Flag: "alpha", Input: "alpha", Policy: true, Default: "0.05",
		Form: "a probability from 0.001 to 0.2, such as 0.05",
		Doc:  "significance level, after Holm correction across benchmarks"},
		func(c *Config) *float64 { return &c.Alpha }, func(f float64) bool { return f >= 0.001 && f <= 0.2 }),
	durationKey(Key{File: "budget", Flag: "budget", Policy: true, Input: "budget", Default: "100s",
		Form: "a duration from 0s (no budget: exactly rounds rounds) to 1h, such as 100s",
		Doc:  "time the timing phase may take; settled benchmarks stop early, the rest get more rounds (0: exactly rounds)"},
		func(c *Config) *time.Duration { return &c.Budget }, 0, time.Hour),
	listKey(Key{File: "gate-units", Flag: "gate-units", Policy: true, Input: "gate-units", Default: "sec/op,allocs/op",
		Form: "units the benchmarks report, such as sec/op,allocs/op",
		Doc:  "units whose increase fails the gate (comma-separated); allocs/op is exact, so any increase counts"},
		func(c *Config) *[]string { return &c.GateUnits }, isUnit),
	durationKey(Key{File: "timeout", Flag: "timeout", Input: "timeout", Default: "2m",
		Form: "a duration from 1s to 1h, such as 2m",
		Doc:  "limit for one benchmark, test or harness run; a hung one is killed and reported"},
		func(c *Config) *time.Duration { return &c.Timeout }, time.Second, time.Hour),
	listKey(Key{File: "tags", Flag: "tags", Input: "tags", Form: "build tags without spaces or commas",
		Doc: "build tags for both sides (comma-separated)"},
		func(c *Config) *[]string { return &c.Tags }, func(s string) bool {
			return s != "" && !strings.ContainsAny(s,
				" ,\t\n")
		}),
	stringKey(Key{File: "sandbox", Flag: "sandbox", Input: "sandbox", Policy: true, Form: "required, auto or off",
		Doc: "confine the processes that run the repository's code (Landlock, no_new_privs); by default auto, " +
			"required in the Action on Linux"},
		func(c *Config) *string { return &c.Sandbox }, func(s string) bool { return slices.Contains(sandboxModes, s) }),
	boolKey(Key{File: "allow-network", Flag: "allow-network", Input: "allow-network", Policy: true, Default: "false",
		Form: "true or false", Doc: "let the sandboxed tests and benchmarks use TCP"},
		func(c *Config) *bool { return &c.AllowNetwork }),
	boolKey(Key{File: "differential", Flag: "differential", Input: "differential", Policy: true, Default: "true", Form: "true or false",
		Doc: "run the differential check"},
		func(c *Config) *bool { return &c.Differential }),
	stringKey(Key{File: "constant-time", Flag: "constant-time", Policy: true, Input: "constant-time",
		Form: "report, fail-new or off",
		Doc: "trace key setup, encryption, decryption and keyed hashing under valgrind for secret-dependent " +
			"branches and loads: report them, also fail on a site head adds or a lookup that touches more cache " +
			"lines (fail-new), or do not trace (off); by default report where valgrind is installed, off elsewhere. " +
			"Constructors whose machine code is the same on both sides are not traced"},
		func(c *Config) *string { return &c.ConstantTime },
		func(s string) bool { return s == "" || record.ConstantTimeMode(s).Valid() }),
	durationKey(Key{File: "constant-time-budget", Flag: "constant-time-budget", Input: "constant-time-budget", Policy: true, Default: "30s",
		Form: "a duration from 0s (no budget) to 1h, such as 30s",
		Doc: "CPU time per side (valgrind's) the constant-time check may spend tracing; the constructors it did " +
			"not reach are named in the report"},
		func(c *Config) *time.Duration { return &c.ConstantTimeBudget }, 0, time.Hour),
	intKey(Key{File: "constant-time-blocks", Flag: "constant-time-blocks", Input: "constant-time-blocks", Policy: true, Default: "64",
		Form: "a whole number from 1 to 1024",
		Doc: "constant-time check: blocks per traced batch call (64 fill a bitsliced engine of 64 lanes; " +
			"fewer trace a slow table engine faster)"},
		func(c *Config) *int { return &c.ConstantTimeBlocks }, 1, 1024),
	listKey(Key{File: "constructors", Flag: "constructors", Input: "constructors", Policy: true,
		Form: "exported Go function names such as NewCipher",
		Doc:  "differential check: constructor names (comma-separated; default: discover)"},
		func(c *Config) *[]string { return &c.Constructors }, isExported),
	intKey(Key{File: "keys", Flag: "keys", Input: "keys", Policy: true, Default: "1024", Form: "a whole number from 1 to 65536",
		Doc: "differential check: keys per cipher and key size"},
		func(c *Config) *int { return &c.Keys }, 1, 65536),
	intKey(Key{File: "blocks", Flag: "blocks", Input: "blocks", Policy: true, Default: "17", Form: "a whole number from 1 to 1024",
		Doc: "differential check: blocks per key and direction"},
		func(c *Config) *int { return &c.Blocks }, 1, 1024),
	intKey(Key{File: "message-keys", Flag: "message-keys", Input: "message-keys", Policy: true, Default: "1024",
		Form: "a whole number from 1 to 4096",
		Doc: "differential check: AEAD, stream cipher, hash and one-shot keys per key size (structured keys first: " +
			"all zero, all 0xff, each byte at its extremes)"},
		func(c *Config) *int { return &c.MessageKeys }, 1, 4096),
	intKey(Key{File: "message-blocks", Flag: "message-blocks", Input: "message-blocks", Policy: true, Default: "8",
		Form: "a whole number from 2 to 256",
		Doc:  "differential check: AEAD, stream cipher and hash messages go up to this many blocks"},
		func(c *Config) *int { return &c.MessageBlocks }, 2, 256),
	seedKey,
	boolKey(Key{File: "changed", Flag: "changed", Input: "changed", Form: "true or false",
		Doc: "gate only the packages whose files, or whose dependencies' files inside the module, differ between base and " +
			"head"},
		func(c *Config) *bool { return &c.Changed }),
	shardKey,
	stringKey(Key{Flag: "shard-costs", Input: "shard-costs", Form: "a results directory or its result.json",
		Only: "no file key: an earlier run's results are the job's, not the repository's",
		Doc: "an earlier run's results: shards split the work by the sub-benchmarks each benchmark had there (default: one " +
			"per benchmark)"},
		func(c *Config) *string { return &c.ShardCosts }, nil),
	thresholdsKey,
	oracleKey,
	limitsKey,
	intKey(Key{File: "max-size-growth", Flag: "max-size-growth", Input: "max-size-growth", Policy: true, Form: "a whole number of bytes from 0 (no limit) to 1073741824",
		Doc: "fail when the package's symbols grow by more bytes than this; 0: size never gates"},
		func(c *Config) *int64 { return &c.MaxSizeGrowth }, 0, 1<<30),
	stringKey(Key{File: "on-inconclusive", Flag: "on-inconclusive", Input: "on-inconclusive", Policy: true, Default: gate.OnInconclusiveFail,
		Form: "fail or pass",
		Doc: "what benchmarks that stay inconclusive do to the merge: fail (exit 4) or pass (exit 0); " +
			"status inconclusive either way"},
		func(c *Config) *string { return &c.OnInconclusive }, func(s string) bool {
			return s == gate.OnInconclusiveFail || s == gate.OnInconclusivePass
		}),
	stringKey(Key{File: "acknowledge-label", Policy: true, Input: "acknowledge-label", Default: "perf-regression-ok",
		Only: "no flag: only the Action sees a pull request's labels",
		Form: "a pull-request label of 1 to 50 characters on one line",
		Doc:  "pull-request label that lets slower benchmarks pass the gate"},
		func(c *Config) *string { return &c.AcknowledgeLabel }, func(s string) bool {
			return strings.TrimSpace(s) != "" && utf8.RuneCountInString(s) <= 50 && !strings.ContainsAny(s, "\r\n")
		}),
	stringKey(Key{File: "output", Flag: "o", Default: DefaultOutput, Form: "a directory path",
		Only: "no input: the Action writes to $RUNNER_TEMP/perfgate-results (or the file's output) and names it in its " +
			"results-dir output",
		Doc: "results directory (the default one ignores itself in git; the Action's default is " +
			"$RUNNER_TEMP/perfgate-results)"},
		func(c *Config) *string { return &c.Out }, func(s string) bool { return strings.TrimSpace(s) != "" }),
	stringKey(Key{Flag: "cache", Input: "cache", Form: "a directory path, or off",
		Only: "no file key: where a machine keeps its cache is the machine's, not the repository's",
		Doc: "the store of artifacts kept between runs (builds' outputs, tests, differential outputs, traces; never " +
			"timings), every entry verified when read; empty: the user's cache directory; off: none"},
		func(c *Config) *string { return &c.Store }, func(s string) bool { return s == "" || strings.TrimSpace(s) != "" }),
	stringKey(Key{Flag: "policy-from", Input: "policy-from", Form: "base or head",
		Only: "no file key: a file cannot say whose file sets the policy",
		Doc: "whose .perfgate.yml sets the gate policy (thresholds, alpha, …): base's at the base commit, or head's; " +
			"default head for compare, base in the Action"},
		func(c *Config) *string { return &c.PolicyFrom }, func(s string) bool {
			return s == "" || s == PolicyFromBase ||
				s == PolicyFromHead
		}),
	stringKey(Key{Input: "base", Form: "a revision", Only: revisionOnly,
		Doc: "base revision; default the pull request's base (or the push's before)"},
		func(c *Config) *string { return &c.Base }, nil),
	stringKey(Key{Input: "head", Form: "a revision", Only: revisionOnly,
		Doc: "head revision; default the pull request's head (or the push's after)"},
		func(c *Config) *string { return &c.Head }, nil),
}

// The keys of the sides' builds follow the key tags, the build setting both sides share.
func init() {
	i := slices.IndexFunc(keys, func(k *Key) bool { return k.File == "tags" })
	keys = slices.Insert(keys, i+1, buildKeys()...)
}

// Reasons shared by several keys for not being everywhere (Key.Only).
const (
	mapOnly      = "file only: a mapping, which a flag or an input would need a syntax of its own for"
	revisionOnly = "input only: perfgate compare takes the revisions as arguments, BASE HEAD; a file names no commit"
)

// seedKey takes decimal or 0x-prefixed hexadecimal.
// "PERFGATE"
var seedKey = &Key{File: "seed", Flag: "seed", Input: "seed", Default: "0x5045524647415445",
	Type: "uint", Form: "an unsigned whole number such as 42 or 0x2a", Doc: "differential check: input seed",
	field: func(c *Config) any { return &c.Seed },
	set: func(c *Config, s string) error {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64)
		if err != nil {
			return err
		}
		c.Seed = n
		return nil
	},
}

// shardKey takes "i/n": run part i of n of the comparison (perfgate merge combines the parts). The
// file cannot set it: every shard of a matrix reads the same file.
var shardKey = &Key{Flag: "shard", Input: "shard", Type: "i/n",
	Only: "no file key: every shard of a matrix reads the same file",
	Form: "i/n with 1 <= i <= n <= 256, such as 2/4",
	Doc:  "run part i of n of the comparison, for a job matrix; perfgate merge combines the parts' results directories",
	set: func(c *Config, s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			c.Shard = Shard{}
			return nil
		}
		i, n, ok := strings.Cut(s, "/")
		a, err1 := strconv.Atoi(strings.TrimSpace(i))
		b, err2 := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("not i/n")
		}
		c.Shard = Shard{Index: a, Count: b}
		return nil
	},
	check: func(c *Config) (string, bool) {
		s := c.Shard
		return s.String(), !s.Sharded() || s.Index >= 1 && s.Index <= s.Count && s.Count <= 256
	},
}

// thresholdsKey is a mapping in the file only: benchmark-name regular expression → allowed percent.
var thresholdsKey = &Key{File: "thresholds", Type: "map", Policy: true, Only: mapOnly,
	Form: "a mapping of benchmark-name regular expressions to percentages above 0 and below 100, such as " +
		"{\"Encrypt/.*\": 10}",
	Doc:   "acknowledged slowdowns per benchmark: regular expression → allowed percent",
	field: func(c *Config) any { return &c.Thresholds },
	pairs: func(c *Config, m map[string]string) error {
		out := make(map[string]float64, len(m))
		for pat, v := range m {
			f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
			if err != nil {
				return err
			}
			out[pat] = f
		}
		c.Thresholds = out
		return nil
	},
	check: func(c *Config) (string, bool) {
		for _, pat := range SortedKeys(c.Thresholds) {
			if _, err := regexp.Compile(pat); err != nil {
				return pat, false
			}
			if v := c.Thresholds[pat]; !isPercent(v) {
				return pat + ": " + fmtFloat(v), false
			}
		}
		return "", true
	},
}

// limitsKey is a mapping of mappings in the file only: benchmark-name regular expression → unit →
// the largest value head may have.
var limitsKey = &Key{File: "limits", Type: "map", Policy: true, Only: mapOnly,
	Form: "a mapping of benchmark-name regular expressions to mappings of units to positive numbers, such as " +
		"{\"Encrypt/.*\": {\"instructions/op\": 150000}}",
	Doc:   "absolute limits on head: regular expression → unit → the largest value head may have",
	field: func(c *Config) any { return &c.Limits },
	nested: func(c *Config, m map[string]map[string]string) error {
		out := make(map[string]map[string]float64, len(m))
		for pat, units := range m {
			out[pat] = map[string]float64{}
			for unit, v := range units {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					return err
				}
				out[pat][unit] = f
			}
		}
		c.Limits = out
		return nil
	},
	check: func(c *Config) (string, bool) {
		for _, pat := range SortedKeys(c.Limits) {
			if _, err := regexp.Compile(pat); err != nil {
				return pat, false
			}
			for _, unit := range SortedKeys(c.Limits[pat]) {
				if v := c.Limits[pat][unit]; !isUnit(unit) || !(v > 0) || math.IsInf(v, 0) {
					return pat + ": " + unit + ": " + fmtFloat(v), false
				}
			}
		}
		return "", true
	},
}

// oracleKey is a mapping in the file only: constructor name → reference constructor,
// "importpath.Func".
var oracleKey = &Key{File: "oracle", Type: "map", Policy: true, Only: mapOnly,
	Form: "a mapping of constructor names to reference constructors, such as " +
		"{NewTripleEDE3: crypto/des.NewTripleDESCipher}",
	Doc:   "differential check: reference constructors head is checked against on the same vectors, both directions",
	field: func(c *Config) any { return &c.Oracles },
	pairs: func(c *Config, m map[string]string) error {
		c.Oracles = make(map[string]string, len(m))
		for name, ref := range m {
			c.Oracles[name] = strings.TrimSpace(ref)
		}
		return nil
	},
	check: func(c *Config) (string, bool) {
		for _, name := range SortedKeys(c.Oracles) {
			ref := c.Oracles[name]
			dot := strings.LastIndex(ref, ".")
			if !isExported(name) || dot <= 0 || !isExported(ref[dot+1:]) || strings.HasSuffix(ref[:dot], "/") {
				return name + ": " + ref, false
			}
		}
		return "", true
	},
}

// isUnit accepts a benchmark unit as Go benchmarks print it: no spaces, such as sec/op or
// allocs/op.
func isUnit(s string) bool { return s != "" && !strings.ContainsAny(s, " ,\t\n") }

func isPercent(f float64) bool { return f > 0 && f < 100 }

func isExported(s string) bool {
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
