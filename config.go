package perfgate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ConfigFile is the optional configuration file at the repository root. Flags win over it.
const ConfigFile = ".perfgate.yml"

// Config is everything a comparison can be told. Its zero value is not usable: start from DefaultConfig, which
// holds every default in one place, then apply a file (LoadFile) and flags.
type Config struct {
	// Dir is a directory inside the git work tree to compare; its module root is found from there. Default ".".
	Dir string
	// Base and Head are the revisions to compare. Base "" means the merge-base of HEAD with the default branch;
	// Head "" means the working tree, uncommitted changes included.
	Base, Head string

	// Package is the gated package, relative to the module root ("./cipher/des") or an import path. Key "package".
	Package string
	// Bench selects benchmarks by a regular expression over their full names ("Encrypt/des"). Key "bench".
	Bench string
	// Rounds is how many A–B–B–A rounds run; each side gets 2×Rounds samples. Key "rounds", 2..100.
	Rounds int
	// BenchTime is the calibration target: how long one run of one benchmark lasts. Key "benchtime".
	BenchTime time.Duration
	// CPU is the CPU children are pinned to; -1 picks the last CPU this process may use. Key "cpu".
	CPU int
	// NoPin runs children unpinned. Key "no-pin".
	NoPin bool
	// Threshold is the smallest change in percent that counts as slower or faster. Key "threshold", (0, 100).
	Threshold float64
	// Alpha is the significance level, after Holm correction across benchmarks. Key "alpha", (0, 0.5].
	Alpha float64
	// Timeout bounds one benchmark run, one test run and one harness run. Key "timeout".
	Timeout time.Duration
	// Tags are build tags used on both sides. Key "tags".
	Tags []string

	// Differential turns the differential check on or off. Key "differential".
	Differential bool
	// Constructors names the cipher constructors to check; empty discovers them. Key "constructors".
	Constructors []string
	// Keys and Blocks size the differential check per cipher and key size. Keys "keys" (1..65536), "blocks" (1..1024).
	Keys, Blocks int
	// Seed makes the differential inputs; it is printed so any run can be repeated. Key "seed".
	Seed uint64

	// Thresholds acknowledges slower benchmarks per name: a benchmark whose full name matches the regular expression
	// may be slower by up to the given percent without failing the gate. Key "thresholds".
	Thresholds map[string]float64
	// MaxSizeGrowth fails the gate when the package's symbols grow by more than this many bytes in total;
	// 0 means size never gates. Key "max-size-growth".
	MaxSizeGrowth int64
	// AcknowledgeLabel is the pull-request label that acknowledges slower benchmarks. Key "acknowledge-label".
	AcknowledgeLabel string
	// Acknowledged is set when the pull request carries AcknowledgeLabel: slower benchmarks do not fail the gate.
	Acknowledged bool

	// Out is the results directory. Key "output".
	Out string
	// Cache is the GOCACHE both sides build with; "" uses the user's cache.
	Cache string
	// Log receives progress and tool output for humans; nil discards it.
	Log io.Writer
}

// DefaultConfig returns the defaults, all of them.
func DefaultConfig() Config {
	return Config{
		Dir:              ".",
		Package:          ".",
		Bench:            ".",
		Rounds:           5,
		BenchTime:        100 * time.Millisecond,
		CPU:              -1,
		Threshold:        2,
		Alpha:            0.05,
		Timeout:          2 * time.Minute,
		Differential:     true,
		Keys:             1024,
		Blocks:           17,
		Seed:             0x5045524647415445, // "PERFGATE"
		AcknowledgeLabel: "perf-regression-ok",
		Out:              "perfgate-results",
	}
}

// ConfigError is an invalid configuration value. It names where it came from, the key and the accepted form.
type ConfigError struct {
	Source string // "flag" (Key is then the flag's name), "input", "config", or the file and line: ".perfgate.yml:3"
	Key    string // "" when the problem is the whole source (a file that is not YAML)
	Value  string
	Want   string
}

func (e *ConfigError) Error() string {
	where := e.Key
	switch {
	case e.Source == "flag":
		where = "-" + e.Key
	case e.Source != "" && e.Key != "":
		where = e.Source + ": " + e.Key
	case e.Source != "":
		where = e.Source
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: want %s", where, e.Want)
	}
	return fmt.Sprintf("%s: invalid value %q: want %s", where, e.Value, e.Want)
}

// Validate checks every value and returns the first problem as a *ConfigError.
func (c *Config) Validate() error {
	bad := func(key, value, want string) error { return &ConfigError{Key: key, Value: value, Want: want} }
	if strings.TrimSpace(c.Package) == "" {
		return bad("package", c.Package, "a package path such as ./cipher/des")
	}
	if _, err := regexp.Compile(c.Bench); err != nil {
		return bad("bench", c.Bench, "a regular expression ("+err.Error()+")")
	}
	if c.Rounds < 2 || c.Rounds > 100 {
		return bad("rounds", strconv.Itoa(c.Rounds), "a whole number from 2 to 100")
	}
	if c.BenchTime < time.Millisecond || c.BenchTime > time.Minute {
		return bad("benchtime", c.BenchTime.String(), "a duration from 1ms to 1m, such as 100ms")
	}
	if c.CPU < -1 {
		return bad("cpu", strconv.Itoa(c.CPU), "a CPU number, or -1 for the last CPU this process may use")
	}
	if !(c.Threshold > 0 && c.Threshold < 100) {
		return bad("threshold", fmtFloat(c.Threshold), "a percentage above 0 and below 100, such as 2")
	}
	if !(c.Alpha > 0 && c.Alpha <= 0.5) {
		return bad("alpha", fmtFloat(c.Alpha), "a probability above 0 and at most 0.5, such as 0.05")
	}
	if c.Timeout < time.Second {
		return bad("timeout", c.Timeout.String(), "a duration of at least 1s, such as 2m")
	}
	if c.Keys < 1 || c.Keys > 65536 {
		return bad("keys", strconv.Itoa(c.Keys), "a whole number from 1 to 65536")
	}
	if c.Blocks < 1 || c.Blocks > 1024 {
		return bad("blocks", strconv.Itoa(c.Blocks), "a whole number from 1 to 1024")
	}
	for _, name := range c.Constructors {
		if !isIdent(name) {
			return bad("constructors", name, "exported Go function names such as NewCipher")
		}
	}
	for _, pat := range sortedKeys(c.Thresholds) {
		if _, err := regexp.Compile(pat); err != nil {
			return bad("thresholds", pat, "a regular expression over benchmark names ("+err.Error()+")")
		}
		if v := c.Thresholds[pat]; !(v > 0 && v < 1000) {
			return bad("thresholds", pat+": "+fmtFloat(v), "a percentage above 0 and below 1000, such as 10")
		}
	}
	if c.MaxSizeGrowth < 0 {
		return bad("max-size-growth", strconv.FormatInt(c.MaxSizeGrowth, 10), "a number of bytes, 0 for no limit")
	}
	for _, tag := range c.Tags {
		if tag == "" || strings.ContainsAny(tag, " ,\t\n") {
			return bad("tags", tag, "build tags without spaces or commas")
		}
	}
	if strings.TrimSpace(c.Out) == "" {
		return bad("output", c.Out, "a directory path")
	}
	return nil
}

func isIdent(s string) bool {
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fileConfig is the on-disk form of .perfgate.yml. Every field is a pointer so that an absent key keeps the
// default; durations are fileDurations so that a bad one is reported, like any value, at its line.
type fileConfig struct {
	Package          *string            `yaml:"package"`
	Bench            *string            `yaml:"bench"`
	Rounds           *int               `yaml:"rounds"`
	BenchTime        *fileDuration      `yaml:"benchtime"`
	CPU              *int               `yaml:"cpu"`
	NoPin            *bool              `yaml:"no-pin"`
	Threshold        *float64           `yaml:"threshold"`
	Alpha            *float64           `yaml:"alpha"`
	Timeout          *fileDuration      `yaml:"timeout"`
	Tags             []string           `yaml:"tags"`
	Differential     *bool              `yaml:"differential"`
	Constructors     []string           `yaml:"constructors"`
	Keys             *int               `yaml:"keys"`
	Blocks           *int               `yaml:"blocks"`
	Seed             *uint64            `yaml:"seed"`
	Thresholds       map[string]float64 `yaml:"thresholds"`
	MaxSizeGrowth    *int64             `yaml:"max-size-growth"`
	AcknowledgeLabel *string            `yaml:"acknowledge-label"`
	Output           *string            `yaml:"output"`
}

// LoadFile applies the YAML configuration in data (read from name, used in messages) on top of c. Unknown keys,
// repeated keys and values of the wrong type are *ConfigError values naming the file, the line and the key. It does
// not validate ranges: call Validate after flags.
func (c *Config) LoadFile(name string, data []byte) error {
	f, err := decodeFileConfig(name, data)
	if err != nil || f == nil {
		return err
	}
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&c.Package, f.Package)
	set(&c.Bench, f.Bench)
	set(&c.AcknowledgeLabel, f.AcknowledgeLabel)
	set(&c.Out, f.Output)
	if f.Rounds != nil {
		c.Rounds = *f.Rounds
	}
	if f.CPU != nil {
		c.CPU = *f.CPU
	}
	if f.NoPin != nil {
		c.NoPin = *f.NoPin
	}
	if f.Threshold != nil {
		c.Threshold = *f.Threshold
	}
	if f.Alpha != nil {
		c.Alpha = *f.Alpha
	}
	if f.Differential != nil {
		c.Differential = *f.Differential
	}
	if f.Keys != nil {
		c.Keys = *f.Keys
	}
	if f.Blocks != nil {
		c.Blocks = *f.Blocks
	}
	if f.Seed != nil {
		c.Seed = *f.Seed
	}
	if f.MaxSizeGrowth != nil {
		c.MaxSizeGrowth = *f.MaxSizeGrowth
	}
	if f.Tags != nil {
		c.Tags = f.Tags
	}
	if f.Constructors != nil {
		c.Constructors = f.Constructors
	}
	if f.Thresholds != nil {
		c.Thresholds = f.Thresholds
	}
	if f.BenchTime != nil {
		c.BenchTime = time.Duration(*f.BenchTime)
	}
	if f.Timeout != nil {
		c.Timeout = time.Duration(*f.Timeout)
	}
	return nil
}

// fileDuration is a duration in the file, written as time.ParseDuration reads it: "100ms", "2m".
type fileDuration time.Duration

func (d *fileDuration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = fileDuration(v)
	return nil
}

// LoadConfigFile reads path into c when it exists. A missing file is not an error.
func (c *Config) LoadConfigFile(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.LoadFile(path, data)
}

// decodeFileConfig parses data key by key, so that every error names its key: an unknown key (with the closest
// known one as a suggestion), a repeated key, or a value of the wrong type. It returns nil for an empty file.
func decodeFileConfig(name string, data []byte) (*fileConfig, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &ConfigError{Source: name, Want: "valid YAML (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")"}
	}
	if len(doc.Content) == 0 {
		return nil, nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return nil, nil // only comments
		}
		return nil, &ConfigError{Source: fmt.Sprintf("%s:%d", name, root.Line), Want: "a mapping of keys to values, such as \"rounds: 5\""}
	}
	var f fileConfig
	fv := reflect.ValueOf(&f).Elem()
	fields := map[string]int{}
	for i := 0; i < fv.NumField(); i++ {
		fields[fv.Type().Field(i).Tag.Get("yaml")] = i
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		where := fmt.Sprintf("%s:%d", name, k.Line)
		idx, ok := fields[k.Value]
		if !ok {
			want := "a known key: " + strings.Join(sortedKeys(fields), ", ")
			if near := closest(k.Value, sortedKeys(fields)); near != "" {
				want = fmt.Sprintf("a known key (did you mean %q?)", near)
			}
			return nil, &ConfigError{Source: where, Key: k.Value, Value: "", Want: want}
		}
		if seen[k.Value] {
			return nil, &ConfigError{Source: where, Key: k.Value, Want: "each key once (it is already set above)"}
		}
		seen[k.Value] = true
		field := fv.Field(idx)
		// yaml.v3 truncates a number such as 2.5 into an integer field; a whole number is wanted.
		truncated := v.Kind == yaml.ScalarNode && v.ShortTag() == "!!float" && isWhole(field.Type())
		if err := v.Decode(field.Addr().Interface()); err != nil || truncated {
			value := v.Value
			if v.Kind != yaml.ScalarNode {
				value = ""
			}
			return nil, &ConfigError{Source: fmt.Sprintf("%s:%d", name, v.Line), Key: k.Value, Value: value, Want: wantFor(field.Type())}
		}
	}
	return &f, nil
}

// isWhole reports whether a fileConfig field holds a whole number.
func isWhole(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return t != reflect.TypeFor[fileDuration]()
	}
	return false
}

// wantFor describes the accepted form of a fileConfig field's type.
func wantFor(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[fileDuration]() {
		return "a duration such as 100ms or 2m"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of strings, such as [a, b]"
	case reflect.Map:
		return "a mapping of benchmark-name regular expressions to percentages, such as {\"Encrypt/.*\": 10}"
	}
	return "a value of type " + t.String()
}

// closest returns the name in names nearest to s by edit distance, if it is close enough to be a likely typo.
func closest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
