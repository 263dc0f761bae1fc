package main

// The flags of compare and demo and the inputs of action, bound to perfgate's table of
// configuration keys.

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/config"
	"github.com/perfgate/perfgate/internal/ghaction"
	"github.com/perfgate/perfgate/internal/gitsrc"
)

// commandKeys are the settings of the command itself rather than of a comparison: no file can set
// them. They are declared like the table's keys so that -h, the README and action.yml are checked
// against one list.
var commandKeys = []*config.Key{
	{Flag: "format", Default: "text", Type: "string", Form: "text, markdown or json",
		Only: "flag only: the Action writes every format (report.md, result.json, the job summary)",
		Doc:  "output format on stdout: text, markdown or json"},
	{Flag: "config", Input: "config", Type: "string", Form: "an existing YAML file",
		Only: "no file key: it names the file",
		Doc:  "configuration file; default .perfgate.yml at the repository root"},
	{Input: "github-token", Default: "${{ github.token }}", Form: "a token", Only: actionOnly,
		Doc: "token that keeps the sticky pull-request comment and creates the check run; the step gets it only when " +
			"it comments or creates a check run, benchmark processes never"},
	{Input: "merge", Type: "string", Form: "a glob of results directories in the workspace, such as shards/*",
		Only: "input only: the command is perfgate merge",
		Doc: "merge mode: combine the shards' results directories this glob matches (perfgate merge) and gate on them, " +
			"instead of comparing"},
	{Input: "comment", Default: "true", Form: "true, false or on-alert", Only: actionOnly,
		Doc: "keep a sticky comment on the pull request (fork pull requests use perfgate comment instead); " +
			"on-alert: post only when the verdict is not PASS, and update an earlier comment whatever the verdict"},
	{Input: "check-run", Form: "true or false", Only: "input only: the Action's check run on the compared head",
		Doc: "create a check run named perfgate on the compared head (pull requests and merge queues) with the " +
			"verdict, the report and annotations on the lines it names; needs checks: write (without it: a note, " +
			"nothing else changes); default: when comment is not false"},
}

// actionOnly is why the Action's own settings are inputs only.
const actionOnly = "input only: the Action's pull-request comment; perfgate comment posts one from a results directory"

// allKeys is the table followed by the command's own settings.
func allKeys() []*config.Key { return append(config.Keys(), commandKeys...) }

// commandKey returns the command setting with the given flag or input name.
func commandKey(flagName, input string) *config.Key {
	for _, k := range commandKeys {
		if flagName != "" && k.Flag == flagName || input != "" && k.Input == input {
			return k
		}
	}
	// a programmer error
	panic(fmt.Sprintf("perfgate: no command key -%s / input %s", flagName, input))
}

// compareFlags holds the flags shared by compare and demo. The table's flags are recorded as given
// and applied by perfgate.Config.Resolve after the configuration file, so that a flag wins over the
// file.
type compareFlags struct {
	fs       *flag.FlagSet
	cfg      *config.Config
	format   string
	config   string
	settings []config.Setting
}

// keyFlag is the flag.Value of one key of the table.
type keyFlag struct {
	key *config.Key
	f   *compareFlags
}

func (v *keyFlag) String() string {
	if v == nil || v.key == nil {
		return ""
	}
	return v.key.Default
}

func (v *keyFlag) Set(s string) error {
	v.f.settings = append(v.f.settings, config.Setting{Key: v.key, Text: s, Source: "flag"})
	return nil
}

func (v *keyFlag) IsBoolFlag() bool { return v.key.IsBool() }

// compareOnly are the flags of the table that only compare takes: the parts of a job matrix and
// what an inconclusive benchmark does to the exit code. bisect and demo run whole comparisons of
// their own.
var compareOnly = []string{"shard", "shard-costs", "on-inconclusive"}

// newCompareFlags declares the table's flags, except those named in skip, and -format and -config.
func newCompareFlags(name string, cfg *config.Config, skip ...string) *compareFlags {
	f := &compareFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), cfg: cfg}
	for _, k := range config.Keys() {
		if k.Flag != "" && !slices.Contains(skip, k.Flag) {
			f.fs.Var(&keyFlag{k, f}, k.Flag, k.Doc)
		}
	}
	for _, k := range commandKeys {
		if slices.Contains(skip, k.Flag) {
			continue
		}
		switch k.Flag {
		case "format":
			f.fs.StringVar(&f.format, k.Flag, k.Default, k.Doc)
		case "config":
			f.fs.StringVar(&f.config, k.Flag, k.Default, k.Doc)
		}
	}
	return f
}

// given reports whether the flag name was given.
func (f *compareFlags) given(name string) bool {
	for _, s := range f.settings {
		if s.Key.Flag == name {
			return true
		}
	}
	return false
}

// printFlags lists the flags of fs with the types, documentation and defaults of their keys;
// defaults, by flag name, replaces the table's default where a command has its own.
func printFlags(w io.Writer, fs *flag.FlagSet, defaults map[string]string) {
	fs.VisitAll(func(fl *flag.Flag) {
		var typ, doc string
		def := fl.DefValue
		// not a command's own flag of that name
		if k := flagKey(fl.Name); k != nil && k.Doc == fl.Usage {
			typ, doc, def = k.Type, k.Doc, k.Default
			if d, ok := defaults[fl.Name]; ok {
				def = d
			}
		} else {
			typ, doc = flag.UnquoteUsage(fl)
			if def == "false" {
				def = ""
			}
		}
		line := "  -" + fl.Name
		if typ != "" {
			line += " " + typ
		}
		if def != "" {
			doc += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, doc)
	})
}

// flagKey returns the key of the table or of the command that flag name sets, or nil.
func flagKey(name string) *config.Key {
	for _, k := range allKeys() {
		if k.Flag == name {
			return k
		}
	}
	return nil
}

// apply resolves the configuration: the defaults in cfg, then the configuration file (-config, else
// .perfgate.yml at the root of the repository that dir is in; none when noFile), then the flags
// given.
func (f *compareFlags) apply(dir string, noFile bool) error {
	for _, s := range f.settings {
		if s.Key.Flag == "C" {
			dir = s.Text // -C names where the repository is, before the file is looked for
		}
	}
	path := f.config
	switch {
	case noFile:
		path = ""
	case path == "":
		root := dir
		if repo, err := gitsrc.Open(dir); err == nil {
			root = repo.Root()
		}
		path = filepath.Join(root, config.FileName)
	default:
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			return &config.Error{Source: "flag", Key: "config", Value: path, Want: commandKey("config", "").Form}
		}
	}
	if err := f.cfg.Resolve(path, f.settings); err != nil {
		return err
	}
	if path != "" {
		if err := takePolicy(f.cfg, path, f.settings); err != nil {
			return err
		}
	}
	switch f.format {
	case "text", "markdown", "json":
	default:
		return &config.Error{Source: "flag", Key: "format", Value: f.format, Want: commandKey("format", "").Form}
	}
	return nil
}

// inputSettings returns the Action inputs of the table's keys that the workflow set. An empty input
// is not set: the file's value, or else the default, stays.
func inputSettings(r *ghaction.Runner) []config.Setting {
	var out []config.Setting
	for _, k := range config.Keys() {
		if k.Input == "" {
			continue
		}
		if v := r.Input(k.Input); strings.TrimSpace(v) != "" {
			out = append(out, config.Setting{Key: k, Text: v, Source: "input"})
		}
	}
	return out
}
