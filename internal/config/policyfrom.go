package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/record"
)

// The values of the policy-from key.
const (
	// the gate policy comes from base's configuration file, read from git at the base commit
	PolicyFromBase = "base"
	// the gate policy comes from the configuration file given (the working tree's)
	PolicyFromHead = "head"
)

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

// BasePolicy reports whether c's gate policy comes from base's configuration file, as
// c.PolicyFrom says. With PolicyFromHead (or "") the policy is head's file's, as c has it already:
// c.PolicyOrigin records so, and BasePolicy reports false. Any other value is an *Error. With
// PolicyFromBase the caller reads base's file from git (never from the work tree) and gives its
// bytes to PolicyFromFile.
func (c *Config) BasePolicy() (bool, error) {
	switch c.PolicyFrom {
	case "", PolicyFromHead:
		c.PolicyOrigin = record.PolicyOrigin{From: record.Head}
		return false, nil
	case PolicyFromBase:
		return true, nil
	}
	return false, &Error{Key: "policy-from", Value: c.PolicyFrom, Want: "base or head"}
}

// PolicyFromFile sets the gate policy of c from base's configuration file, data, for PolicyFromBase
// (BasePolicy), and records it in c.PolicyOrigin. c must already be resolved (Resolve) from head's
// configuration file and the settings given. data is the file at head's file's place in base's
// commit, which is commit (a full SHA); nil means base has no such file, which means the defaults.
// source names base's file in errors (".perfgate.yml at base abc1234": base's file is the project's
// own, but it may be older than this perfgate).
//
// Every policy key (Key.Policy) takes the value it has under base's configuration: the defaults,
// then data, then the settings. A setting therefore still wins over base's file: flags and Action
// inputs come from whoever runs perfgate, not from the pull request's configuration file. Every
// policy value of head's file that differs from base's is recorded in c.PolicyOrigin.Changes and
// not used. It reads nothing: the caller reads base's file.
func (c *Config) PolicyFromFile(data []byte, source, commit string, settings []Setting) error {
	base := Default()
	if data != nil {
		if err := base.loadFile(source, data, nil); err != nil {
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
				ce.Source = source
			}
			return err
		}
		changes = append(changes, k.changes(&base, c)...)
		dst, src := reflect.ValueOf(k.field(c)).Elem(), reflect.ValueOf(k.field(&base)).Elem()
		dst.Set(src)
	}
	c.PolicyOrigin = record.PolicyOrigin{From: record.Base, BaseCommit: commit, Changes: changes}
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
