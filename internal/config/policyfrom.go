package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/gitsrc"
	"github.com/perfgate/perfgate/record"
)

// The values of the policy-from key.
const (
	// the gate policy comes from base's configuration file, read from git at the base commit
	PolicyFromBase = "base"
	// the gate policy comes from the configuration file given (the working tree's)
	PolicyFromHead = "head"
)

// maxConfigBytes bounds a configuration file read from git.
const maxConfigBytes = 1 << 20

// PolicyKeys returns the keys of the gate policy: those that decide what is checked and how
// strictly.
func PolicyKeys() []*Key {
	var out []*Key
	for _, k := range keys {
		if k.Policy {
			out = append(out, k)
		}
	}
	return out
}

// TakePolicy sets the gate policy of c as c.PolicyFrom says, and records it in c.PolicyOrigin. c
// must already be resolved (Resolve) from head's configuration file at headPath and the settings
// given.
//
// With PolicyFromHead (or "") c is left as it is. With PolicyFromBase every policy key
// (ConfigKey.Policy) takes the value it has under base's configuration: the defaults, then the file
// at headPath's place in base's commit (read from git, never from the work tree; a base without the
// file means the defaults), then the settings. A setting therefore still wins over base's file:
// flags and Action inputs come from whoever runs perfgate, not from the pull request's
// configuration file. Every policy value of head's file that differs from base's is recorded in
// c.PolicyOrigin.Changes and not used.
func (c *Config) TakePolicy(headPath string, settings []Setting) error {
	switch c.PolicyFrom {
	case "", PolicyFromHead:
		c.PolicyOrigin = record.PolicyOrigin{From: record.Head}
		return nil
	case PolicyFromBase:
	default:
		return &Error{Key: "policy-from", Value: c.PolicyFrom, Want: "base or head"}
	}
	repo, err := gitsrc.Open(c.Dir)
	if err != nil {
		return fmt.Errorf("reading base's configuration: %w", err)
	}
	abs, err := filepath.Abs(headPath)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(repo.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &Error{Key: "policy-from", Value: PolicyFromBase,
			Want: "a configuration file inside the repository (base's is read from git at the same path), or policy-from head"}
	}
	rel = filepath.ToSlash(rel)
	var commit *gitsrc.Commit
	if c.Base == "" {
		commit, _, err = repo.DefaultBase()
	} else {
		commit, err = repo.Resolve(c.Base)
	}
	if err != nil {
		return err
	}
	data, err := repo.ReadFile(commit, rel, maxConfigBytes)
	if err != nil && !errors.Is(err, gitsrc.ErrNoFile) {
		return fmt.Errorf("reading base's configuration: %w", err)
	}
	base := Default()
	if data != nil {
		// Base's file is the project's own, but it may be older than this perfgate: its errors name
		// it as base's.
		if err := base.loadFile(fmt.Sprintf("%s at base %s", rel, commit.Short()), data, nil); err != nil {
			return err
		}
	}
	for _, s := range settings {
		if s.Key.Policy {
			if err := s.Key.setText(&base, s.Text, s.Source); err != nil {
				return err
			}
		}
	}
	var changes []record.PolicyChange
	for _, k := range PolicyKeys() {
		if err := k.validate(&base); err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				ce.Source = fmt.Sprintf("%s at base %s", rel, commit.Short())
			}
			return err
		}
		changes = append(changes, k.changes(&base, c)...)
		dst, src := reflect.ValueOf(k.field(c)).Elem(), reflect.ValueOf(k.field(&base)).Elem()
		dst.Set(src)
	}
	c.PolicyOrigin = record.PolicyOrigin{From: record.Base, BaseCommit: commit.SHA, Changes: changes}
	return nil
}

// changes lists how head's value of k differs from base's: one change for a scalar or a list, one
// per item for a mapping.
func (k *Key) changes(base, head *Config) []record.PolicyChange {
	b, h := k.field(base), k.field(head)
	if reflect.DeepEqual(reflect.ValueOf(b).Elem().Interface(), reflect.ValueOf(h).Elem().Interface()) {
		return nil
	}
	pct := strings.Contains(k.Form, "percentage")
	if bm, ok := b.(*map[string]float64); ok {
		hm := *h.(*map[string]float64)
		var out []record.PolicyChange
		for _, item := range SortedKeys(union(*bm, hm)) {
			bv, inBase := (*bm)[item]
			hv, inHead := hm[item]
			if inBase == inHead && bv == hv {
				continue
			}
			ch := record.PolicyChange{Key: k.File, Item: item}
			if inBase {
				ch.Base = formatValue(&bv, pct)
			}
			if inHead {
				ch.Head = formatValue(&hv, pct)
			}
			out = append(out, ch)
		}
		return out
	}
	return []record.PolicyChange{{Key: k.Name(), Base: formatValue(b, pct), Head: formatValue(h, pct)}}
}

func union(a, b map[string]float64) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// formatValue writes the value p points to as the file would.
func formatValue(p any, pct bool) string {
	switch v := p.(type) {
	case *string:
		return *v
	case *bool:
		return strconv.FormatBool(*v)
	case *int:
		return strconv.Itoa(*v)
	case *int64:
		return strconv.FormatInt(*v, 10)
	case *uint64:
		return strconv.FormatUint(*v, 10)
	case *float64:
		if pct {
			return fmtFloat(*v) + "%"
		}
		return fmtFloat(*v)
	case *time.Duration:
		return v.String()
	case *[]string:
		return strings.Join(*v, ",")
	}
	return fmt.Sprint(reflect.ValueOf(p).Elem().Interface())
}
