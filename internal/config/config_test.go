package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/differential"
	"github.com/perfgate/perfgate/record"
)

func TestDefaultConfigValidates(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v, want nil", err)
	}
}

// TestValidate changes one value of the defaults at a time: each invalid value must come back as a
// *ConfigError naming its key, the value and the accepted form; each valid boundary must pass.
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		key    string // "" when the configuration is valid
		value  string
		want   string // a part of ConfigError.Want: the accepted form
	}{
		{"package empty", func(c *Config) { c.Package = " " }, "package", " ", "package path"},
		{"bench bad regexp", func(c *Config) { c.Bench = "Encrypt(" }, "bench", "Encrypt(", "a regular expression"},
		{"bench empty matches all", func(c *Config) { c.Bench = "" }, "", "", ""},
		{"rounds 1", func(c *Config) { c.Rounds = 1 }, "rounds", "1", "from 2 to 100"},
		{"rounds 2", func(c *Config) { c.Rounds = 2 }, "", "", ""},
		{"rounds 100", func(c *Config) { c.Rounds = 100 }, "", "", ""},
		{"rounds 101", func(c *Config) { c.Rounds = 101 }, "rounds", "101", "from 2 to 100"},
		{"benchtime 0", func(c *Config) { c.BenchTime = For(0) }, "benchtime", "0s", "from 1ms to 1m"},
		{"benchtime 0x", func(c *Config) { c.BenchTime = Fixed(-1) }, "benchtime", "-1x", "such as 100x"},
		{"benchtime 100x", func(c *Config) { c.BenchTime = Fixed(100) }, "", "", ""},
		{"benchtime 1ms", func(c *Config) { c.BenchTime = For(time.Millisecond) }, "", "", ""},
		{"benchtime over a minute", func(c *Config) { c.BenchTime = For(61 * time.Second) }, "benchtime", "1m1s", "from 1ms to 1m"},
		{"cpu -1", func(c *Config) { c.CPU = -1 }, "", "", ""},
		{"cpu 0", func(c *Config) { c.CPU = 0 }, "", "", ""},
		{"pin-cpu -2", func(c *Config) { c.CPU = -2 }, "pin-cpu", "-2", "-1 for the last CPU"},
		{"threshold 0", func(c *Config) { c.Threshold = 0 }, "threshold", "0", "above 0 and below 100"},
		{"threshold 100", func(c *Config) { c.Threshold = 100 }, "threshold", "100", "above 0 and below 100"},
		{"threshold NaN", func(c *Config) { c.Threshold = math.NaN() }, "threshold", "NaN", "above 0 and below 100"},
		{"threshold 0.5", func(c *Config) { c.Threshold = 0.5 }, "", "", ""},
		{"metric instructions", func(c *Config) { c.Metric = record.MetricInstructions }, "", "", ""},
		{"metric cycles", func(c *Config) { c.Metric = "cycles" }, "metric", "cycles", "time, instructions, both or auto"},
		{"instructions-threshold 0", func(c *Config) { c.InstrThreshold = 0 }, "instructions-threshold", "0", "above 0 and below 100"},
		{"instructions-threshold 100", func(c *Config) { c.InstrThreshold = 100 }, "instructions-threshold", "100", "above 0 and below 100"},
		{"instructions-threshold 0.01", func(c *Config) { c.InstrThreshold = 0.01 }, "", "", ""},
		{"alpha 0", func(c *Config) { c.Alpha = 0 }, "alpha", "0", "from 0.001 to 0.2"},
		{"alpha 0.001", func(c *Config) { c.Alpha = 0.001 }, "", "", ""},
		{"alpha 0.0009", func(c *Config) { c.Alpha = 0.0009 }, "alpha", "0.0009", "from 0.001 to 0.2"},
		{"alpha 0.2", func(c *Config) { c.Alpha = 0.2 }, "", "", ""},
		{"alpha 0.21", func(c *Config) { c.Alpha = 0.21 }, "alpha", "0.21", "from 0.001 to 0.2"},
		{"alpha NaN", func(c *Config) { c.Alpha = math.NaN() }, "alpha", "NaN", "from 0.001 to 0.2"},
		{"timeout 0", func(c *Config) { c.Timeout = 0 }, "timeout", "0s", "from 1s to 1h"},
		{"timeout 1s", func(c *Config) { c.Timeout = time.Second }, "", "", ""},
		{"timeout 1h", func(c *Config) { c.Timeout = time.Hour }, "", "", ""},
		{"timeout over an hour", func(c *Config) { c.Timeout = time.Hour + time.Second }, "timeout", "1h0m1s", "from 1s to 1h"},
		{"keys 0", func(c *Config) { c.Keys = 0 }, "keys", "0", "from 1 to 65536"},
		{"keys 65537", func(c *Config) { c.Keys = 65537 }, "keys", "65537", "from 1 to 65536"},
		{"blocks 1024", func(c *Config) { c.Blocks = 1024 }, "", "", ""},
		{"blocks 2000", func(c *Config) { c.Blocks = 2000 }, "blocks", "2000", "from 1 to 1024"},
		{"blocks 0", func(c *Config) { c.Blocks = 0 }, "blocks", "0", "from 1 to 1024"},
		{"constructors lower", func(c *Config) { c.Constructors = []string{"NewCipher", "lower"} }, "constructors", "lower", "exported Go function names"},
		{"constructors dotted", func(c *Config) { c.Constructors = []string{"des.NewCipher"} }, "constructors", "des.NewCipher", "exported Go function names"},
		{"constructors empty name", func(c *Config) { c.Constructors = []string{""} }, "constructors", "", "exported Go function names"},
		{"constructors valid", func(c *Config) { c.Constructors = []string{"NewCipher", "NewTripleDES_3"} }, "", "", ""},
		{"thresholds bad regexp", func(c *Config) { c.Thresholds = map[string]float64{"Encrypt/[": 10} }, "thresholds", "Encrypt/[", "benchmark-name regular expressions"},
		{"thresholds 0%", func(c *Config) { c.Thresholds = map[string]float64{"Encrypt": 0} }, "thresholds", "Encrypt: 0", "percentages above 0 and below 100"},
		{"thresholds NaN", func(c *Config) { c.Thresholds = map[string]float64{"Encrypt": math.NaN()} }, "thresholds", "Encrypt: NaN", "percentages above 0"},
		{"thresholds 100%", func(c *Config) { c.Thresholds = map[string]float64{"Encrypt": 100} }, "thresholds", "Encrypt: 100", "below 100"},
		{"thresholds valid", func(c *Config) { c.Thresholds = map[string]float64{"Encrypt/.*": 10, "KeySetup": 99.5} }, "", "", ""},
		{"max-size-growth -1", func(c *Config) { c.MaxSizeGrowth = -1 }, "max-size-growth", "-1", "a whole number of bytes from 0 (no limit)"},
		{"max-size-growth 0", func(c *Config) { c.MaxSizeGrowth = 0 }, "", "", ""},
		{"tags with a comma", func(c *Config) { c.Tags = []string{"purego,foo"} }, "tags", "purego,foo", "without spaces or commas"},
		{"tags with a space", func(c *Config) { c.Tags = []string{"purego foo"} }, "tags", "purego foo", "without spaces or commas"},
		{"tags empty tag", func(c *Config) { c.Tags = []string{""} }, "tags", "", "without spaces or commas"},
		{"tags valid", func(c *Config) { c.Tags = []string{"purego", "netgo"} }, "", "", ""},
		{"output empty", func(c *Config) { c.Out = "" }, "output", "", "a directory path"},
		{"output blank", func(c *Config) { c.Out = "  " }, "output", "  ", "a directory path"},
		{"acknowledge-label empty", func(c *Config) { c.AcknowledgeLabel = "" }, "acknowledge-label", "", "1 to 50 characters"},
		{"acknowledge-label 51 characters", func(c *Config) { c.AcknowledgeLabel = strings.Repeat("é", 51) }, "acknowledge-label", strings.Repeat("é", 51), "1 to 50 characters"},
		{"acknowledge-label two lines", func(c *Config) { c.AcknowledgeLabel = "ok\nfine" }, "acknowledge-label", "ok\nfine", "on one line"},
		{"limits zero", func(c *Config) { c.Limits = map[string]map[string]float64{"X": {"sec/op": 0}} }, "limits", "X: sec/op: 0", "positive numbers"},
		{"limits bad pattern", func(c *Config) { c.Limits = map[string]map[string]float64{"(": {"sec/op": 1}} }, "limits", "(", "regular expressions"},
		{"on-inconclusive neither", func(c *Config) { c.OnInconclusive = "warn" }, "on-inconclusive", "warn", "fail or pass"},
		{"cycles without the instruction count", func(c *Config) { c.Metric, c.Cycles = record.MetricTime, true }, "cycles", "true", "needs a metric that counts instructions"},
		{"cycles under auto", func(c *Config) { c.Cycles = true }, "", "", ""},
		{"acknowledge-label 50 characters", func(c *Config) { c.AcknowledgeLabel = strings.Repeat("é", 50) }, "", "", ""},
		{"policy-from base", func(c *Config) { c.PolicyFrom = "base" }, "", "", ""},
		{"policy-from other", func(c *Config) { c.PolicyFrom = "main" }, "policy-from", "main", "base or head"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.change(&c)
			err := c.Validate()
			if tt.key == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Validate() = %v (%T), want a *ConfigError for %s", err, err, tt.key)
			}
			if ce.Key != tt.key || ce.Value != tt.value || !strings.Contains(ce.Want, tt.want) {
				t.Errorf("Validate() = %#v\nwant Key %q, Value %q, Want containing %q", ce, tt.key, tt.value, tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.key) || !strings.Contains(msg, tt.want) {
				t.Errorf("Error() = %q: does not name the key %q and the form %q", msg, tt.key, tt.want)
			}
		})
	}
}

func TestConfigErrorMessage(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Source: "flag", Key: "rounds", Value: "1", Want: "a whole number from 2 to 100"},
			`-rounds: invalid value "1": want a whole number from 2 to 100`},
		{Error{Source: ".perfgate.yml:3", Key: "round", Want: `a known key (did you mean "rounds"?)`},
			`.perfgate.yml:3: round: want a known key (did you mean "rounds"?)`},
		{Error{Source: ".perfgate.yml", Want: "valid YAML"}, `.perfgate.yml: want valid YAML`},
		{Error{Key: "alpha", Value: "0.6", Want: "at most 0.5"}, `alpha: invalid value "0.6": want at most 0.5`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// fullYAML sets every key the file knows, each to a value other than its default.
const fullYAML = `# every key
package: ./cipher/des
bench: Encrypt/.*
rounds: 7
benchtime: 30ms
pin-cpu: 0
no-pin: true
time-same-code: true
threshold: 3.5
metric: both
cycles: true
instructions-threshold: 0.25
alpha: 0.01
timeout: 90s
budget: 45s
gate-units: [sec/op]
tags: [purego, netgo]
base-toolchain: go1.25.5
base-env: [GOAMD64=v3]
base-flags: "-gcflags=all=-N -l"
head-toolchain: local
head-env:
  - GOEXPERIMENT=nocoverageredesign
  - CGO_ENABLED=0
head-flags: [-tags=purego, -pgo=off]
sandbox: "off"
allow-network: true
differential: false
constant-time: fail-new
constant-time-budget: 90s
constant-time-blocks: 8
constructors:
  - NewCipher
  - NewTripleDESCipher
keys: 16
blocks: 4
message-keys: 3
message-blocks: 5
seed: 0x2a
thresholds:
  "KeySetup": 50
  "Encrypt/3des.*": 7.5
oracle:
  NewTripleEDE3: crypto/des.NewTripleDESCipher
max-size-growth: 4096
acknowledge-label: slow-ok
on-inconclusive: pass
limits:
  "Encrypt/.*": {instructions/op: 150000, allocs/op: 2}
changed: true
output: out/results
`

func TestLoadFileSetsEveryKey(t *testing.T) {
	got := Default()
	if err := got.LoadFile(".perfgate.yml", []byte(fullYAML)); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Package, want.Bench, want.Rounds, want.BenchTime = "./cipher/des", "Encrypt/.*", 7, For(30*time.Millisecond)
	want.CPU, want.NoPin, want.Threshold, want.Alpha, want.Timeout = 0, true, 3.5, 0.01, 90*time.Second
	want.TimeSameCode, want.Cycles = true, true
	want.Budget, want.GateUnits = 45*time.Second, []string{"sec/op"}
	want.Tags, want.Differential = []string{"purego", "netgo"}, false
	want.BaseBuild = record.Build{Toolchain: "go1.25.5", Env: []string{"GOAMD64=v3"}, Flags: []string{"-gcflags=all=-N -l"}}
	want.HeadBuild = record.Build{Toolchain: "local", Env: []string{"GOEXPERIMENT=nocoverageredesign", "CGO_ENABLED=0"},
		Flags: []string{"-tags=purego", "-pgo=off"}}
	want.ConstantTime, want.ConstantTimeBlocks = string(record.CTFailNew), 8
	want.ConstantTimeBudget = 90 * time.Second
	want.Constructors = []string{"NewCipher", "NewTripleDESCipher"}
	want.Keys, want.Blocks, want.Seed = 16, 4, 42
	want.MessageKeys, want.MessageBlocks = 3, 5
	want.Thresholds = map[string]float64{"KeySetup": 50, "Encrypt/3des.*": 7.5}
	want.Oracles = map[string]string{"NewTripleEDE3": "crypto/des.NewTripleDESCipher"}
	want.MaxSizeGrowth, want.AcknowledgeLabel, want.Out = 4096, "slow-ok", "out/results"
	want.Metric, want.InstrThreshold = record.MetricBoth, 0.25
	want.Changed, want.OnInconclusive = true, "pass"
	want.Sandbox, want.AllowNetwork = "off", true
	want.Limits = map[string]map[string]float64{"Encrypt/.*": {"instructions/op": 150000, "allocs/op": 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadFile (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Validate after LoadFile: %v", err)
	}

	// A key added to the table must be added to fullYAML too, or this test would not cover it.
	for _, key := range fileKeys() {
		if !strings.Contains(fullYAML, "\n"+key+":") {
			t.Errorf("key %q is not in fullYAML", key)
		}
	}
}

// fileKeys returns the keys of .perfgate.yml, from the table.
func fileKeys() []string {
	var names []string
	for _, k := range keys {
		if k.File != "" {
			names = append(names, k.File)
		}
	}
	sort.Strings(names)
	return names
}

func TestLoadFileKeepsDefaults(t *testing.T) {
	for _, src := range []string{"", "\n\n", "# only a comment\n", "---\n"} {
		got := Default()
		if err := got.LoadFile(".perfgate.yml", []byte(src)); err != nil {
			t.Errorf("LoadFile(%q) = %v, want nil", src, err)
			continue
		}
		if diff := cmp.Diff(Default(), got); diff != "" {
			t.Errorf("LoadFile(%q) changed the defaults (-want +got):\n%s", src, diff)
		}
	}
	// Keys that are absent keep their values; present ones replace them.
	got := Default()
	if err := got.LoadFile(".perfgate.yml", []byte("rounds: 9\n")); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Rounds = 9
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadFile(rounds: 9) (-want +got):\n%s", diff)
	}
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name, src string
		source    string // ConfigError.Source: the file and the line
		key       string
		value     string
		want      string // a part of ConfigError.Want
	}{
		{"unknown key, near one", "rounds: 5\nround: 3\n", "p.yml:2", "round", "", `did you mean "rounds"?`},
		{"unknown key, near none", "colour: blue\n", "p.yml:1", "colour", "", "a known key: acknowledge-label, allow-network, alpha, base-env"},
		{"duplicate key", "rounds: 5\nalpha: 0.1\nrounds: 6\n", "p.yml:3", "rounds", "", "each key once"},
		{"int as word", "rounds: two\n", "p.yml:1", "rounds", "two", "a whole number from 2 to 100"},
		{"int with fraction", "# the rounds\nrounds: 2.5\n", "p.yml:2", "rounds", "2.5", "a whole number"},
		{"int64 with fraction", "max-size-growth: 1.5\n", "p.yml:1", "max-size-growth", "1.5", "a whole number"},
		{"uint negative", "seed: -1\n", "p.yml:1", "seed", "-1", "an unsigned whole number"},
		{"float as word", "threshold: two\n", "p.yml:1", "threshold", "two", "a percentage"},
		{"value missing", "bench:\n", "p.yml:1", "bench", "", "a regular expression"},
		{"bool as word", "no-pin: maybe\n", "p.yml:1", "no-pin", "maybe", "true or false"},
		{"list as mapping", "constructors:\n  a: b\n", "p.yml:2", "constructors", "", "exported Go function names"},
		{"list of lists", "tags: [[a]]\n", "p.yml:1", "tags", "", "build tags"},
		{"map as list", "thresholds: [Encrypt]\n", "p.yml:1", "thresholds", "", "a mapping of benchmark-name regular expressions"},
		{"map value as word", "thresholds:\n  Encrypt: ten\n", "p.yml:2", "thresholds", "", "a mapping of benchmark-name regular expressions"},
		{"limits not nested", "limits:\n  Encrypt: 5\n", "p.yml:2", "limits", "", "mappings of units to positive numbers"},
		{"string as list", "package: [a]\n", "p.yml:1", "package", "", "a package path"},
		{"bad duration", "rounds: 5\nbenchtime: 100\n", "p.yml:2", "benchtime", "100", "a duration from 1ms to 1m"},
		{"bad duration word", "\n\ntimeout: soon\n", "p.yml:3", "timeout", "soon", "a duration from 1s to 1h"},
		{"not a mapping", "- rounds\n", "p.yml:1", "", "", "a mapping of keys to values"},
		{"not YAML", "rounds: [5\n", "p.yml", "", "", "valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			err := c.LoadFile("p.yml", []byte(tt.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("LoadFile(%q) = %v (%T), want a *ConfigError", tt.src, err, err)
			}
			if ce.Source != tt.source || ce.Key != tt.key || ce.Value != tt.value || !strings.Contains(ce.Want, tt.want) {
				t.Errorf("LoadFile(%q) = %#v\nwant Source %q, Key %q, Value %q, Want containing %q",
					tt.src, ce, tt.source, tt.key, tt.value, tt.want)
			}
			if diff := cmp.Diff(Default(), c); diff != "" {
				t.Errorf("a failed LoadFile changed the configuration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadConfigFile(t *testing.T) {
	dir := t.TempDir()
	c := Default()
	if err := c.LoadConfigFile(filepath.Join(dir, FileName)); err != nil {
		t.Errorf("a missing file: %v, want nil", err)
	}
	if diff := cmp.Diff(Default(), c); diff != "" {
		t.Errorf("a missing file changed the configuration (-want +got):\n%s", diff)
	}

	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("alpha: 0.1\nblocks: 3\nroundz: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := c.LoadConfigFile(path)
	var ce *Error
	if !errors.As(err, &ce) || ce.Source != path+":3" || ce.Key != "roundz" {
		t.Fatalf("LoadConfigFile = %#v, want a *ConfigError at %s:3 naming roundz", err, path)
	}
	if want := path + `:3: roundz: want a known key (did you mean "rounds"?)`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}

	if err := os.WriteFile(path, []byte("alpha: 0.1\nblocks: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.LoadConfigFile(path); err != nil {
		t.Fatal(err)
	}
	if c.Alpha != 0.1 || c.Blocks != 3 {
		t.Errorf("after LoadConfigFile: alpha %v blocks %d, want 0.1 and 3", c.Alpha, c.Blocks)
	}

	// A directory is neither missing nor readable.
	if err := c.LoadConfigFile(dir); err == nil {
		t.Error("LoadConfigFile(a directory) = nil, want an error")
	}
}

// TestListInFile: a list is a YAML sequence or one comma-separated string, as on the command line.
func TestListInFile(t *testing.T) {
	for _, src := range []string{"tags: [purego, netgo]\n", "tags: purego,netgo\n", "tags:\n  - purego\n  - netgo\n"} {
		c := Default()
		if err := c.LoadFile("p.yml", []byte(src)); err != nil {
			t.Fatalf("LoadFile(%q): %v", src, err)
		}
		if diff := cmp.Diff([]string{"purego", "netgo"}, c.Tags); diff != "" {
			t.Errorf("LoadFile(%q): tags (-want +got):\n%s", src, diff)
		}
	}
}

// TestResolvePrecedence: a setting (flag or input) wins over the file, the file over the default; a
// key that neither sets keeps its default.
func TestResolvePrecedence(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("bench: KeySetup\nrounds: 7\nthreshold: 4%\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Default()
	err := got.Resolve(path, []Setting{
		{Key: FlagKey("rounds"), Text: "3", Source: "flag"},
		{Key: InputKey("benchtime"), Text: "20ms", Source: "input"},
		// the last one given wins, as with flags
		{Key: FlagKey("rounds"), Text: "4", Source: "flag"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Bench, want.Rounds, want.Threshold, want.BenchTime = "KeySetup", 4, 4, For(20*time.Millisecond)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve (-want +got):\n%s", diff)
	}

	// No file at all: the settings over the defaults.
	got = Default()
	if err := got.Resolve(filepath.Join(t.TempDir(), FileName), nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), got); diff != "" {
		t.Errorf("Resolve without a file changed the defaults (-want +got):\n%s", diff)
	}
}

// TestResolveNamesTheSource: a bad value is reported where it was written: the flag, the input, or
// the file and its line; a value out of bounds that a setting overrides is no error.
func TestResolveNamesTheSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("# gate\nrounds: 1\nalpha: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		settings []Setting
		want     string
	}{
		{"file", []Setting{{Key: FlagKey("rounds"), Text: "3", Source: "flag"}},
			path + `:3: alpha: invalid value "0.5": want a probability from 0.001 to 0.2, such as 0.05`},
		{"file, first bad key in table order", nil,
			path + `:2: rounds: invalid value "1": want a whole number from 2 to 100`},
		{"flag out of bounds", []Setting{{Key: FlagKey("alpha"), Text: "0.3", Source: "flag"}, {Key: FlagKey("rounds"), Text: "3", Source: "flag"}},
			`-alpha: invalid value "0.3": want a probability from 0.001 to 0.2, such as 0.05`},
		{"flag of the wrong form", []Setting{{Key: FlagKey("pkg"), Text: "./x", Source: "flag"}, {Key: FlagKey("seed"), Text: "nope", Source: "flag"}},
			`-seed: invalid value "nope": want an unsigned whole number such as 42 or 0x2a`},
		{"input", []Setting{{Key: InputKey("rounds"), Text: "101", Source: "input"}},
			`input: rounds: invalid value "101": want a whole number from 2 to 100`},
		{"input with the flag's name elsewhere", []Setting{{Key: InputKey("package"), Text: " ", Source: "input"}, {Key: InputKey("rounds"), Text: "3", Source: "input"}},
			`input: package: invalid value " ": want a package path such as ./cipher/des, several comma-separated, or a pattern such as ./cipher/...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			err := c.Resolve(path, tt.settings)
			var ce *Error
			if !errors.As(err, &ce) || err.Error() != tt.want {
				t.Errorf("Resolve = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestLibraryDefaultsAgree: the packages keep zero-value defaults for library use; the user-visible
// defaults are the table's, and the two must not drift apart.
func TestLibraryDefaultsAgree(t *testing.T) {
	c := Default()
	got := []any{c.Rounds, c.BenchTime, c.Keys, c.Blocks, c.Seed, c.Timeout, c.Alpha, c.Threshold}
	want := []any{bench.DefaultRounds, For(bench.DefaultBenchTime), differential.DefaultKeys, differential.DefaultBlocks,
		uint64(differential.DefaultSeed), differential.DefaultTimeout, bench.DefaultStatsOptions.Alpha,
		bench.DefaultStatsOptions.ThresholdPct}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("library defaults (-) and the key table's (+):\n%s", diff)
	}
}
