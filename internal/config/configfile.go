package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/internal/suggest"
	"go.yaml.in/yaml/v3"
)

// loadFile applies the YAML in data (read from name) on top of c, key by key, so that every error
// names the line and the key: an unknown key (with the closest known one as a suggestion), a
// repeated key, or a value of the wrong form. Nothing is applied unless the whole file reads.
// origin, when not nil, receives "name:line" for every key set.
func (c *Config) loadFile(name string, data []byte, origin map[*Key]string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &Error{Source: name, Want: "valid YAML (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")"}
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return nil // only comments
		}
		return &Error{Source: fmt.Sprintf("%s:%d", name, root.Line),
			Want: "a mapping of keys to values, such as \"rounds: 5\""}
	}
	byName := map[string]*Key{}
	for _, k := range keys {
		if k.File != "" {
			byName[k.File] = k
		}
	}
	next := *c
	set := map[*Key]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		where := fmt.Sprintf("%s:%d", name, kn.Line)
		k, ok := byName[kn.Value]
		if !ok {
			names := SortedKeys(byName)
			want := "a known key: " + strings.Join(names, ", ")
			if near := suggest.Closest(kn.Value, names); near != "" {
				want = fmt.Sprintf("a known key (did you mean %q?)", near)
			}
			return &Error{Source: where, Key: kn.Value, Want: want}
		}
		if _, dup := set[k]; dup {
			return &Error{Source: where, Key: kn.Value, Want: "each key once (it is already set above)"}
		}
		if err := k.decode(&next, vn); err != nil {
			value := ""
			if vn.Kind == yaml.ScalarNode {
				value = vn.Value
			}
			return &Error{Source: fmt.Sprintf("%s:%d", name, vn.Line), Key: k.File, Value: value, Want: k.Form}
		}
		set[k] = fmt.Sprintf("%s:%d", name, vn.Line)
	}
	*c = next
	for k, where := range set {
		if origin != nil {
			origin[k] = where
		}
	}
	return nil
}

// decode reads the file's value n of k into c: a mapping of scalars for a mapping, a sequence of
// scalars or one comma-separated scalar for a list, a scalar otherwise.
func (k *Key) decode(c *Config, n *yaml.Node) error {
	scalars := func(nodes []*yaml.Node) ([]string, error) {
		out := make([]string, 0, len(nodes))
		for _, item := range nodes {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("not a scalar")
			}
			out = append(out, item.Value)
		}
		return out, nil
	}
	switch {
	case k.nested != nil:
		return k.decodeNested(c, n, scalars)
	case k.pairs != nil:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("not a mapping")
		}
		items, err := scalars(n.Content)
		if err != nil {
			return err
		}
		m := map[string]string{}
		for i := 0; i+1 < len(items); i += 2 {
			m[items[i]] = items[i+1]
		}
		return k.pairs(c, m)
	case k.list != nil && n.Kind == yaml.SequenceNode:
		items, err := scalars(n.Content)
		if err != nil {
			return err
		}
		return k.list(c, items)
	case n.Kind != yaml.ScalarNode || n.Tag == "!!null":
		return fmt.Errorf("not a scalar")
	}
	return k.set(c, n.Value)
}

// decodeNested reads a mapping whose values are mappings of scalars into c.
func (k *Key) decodeNested(c *Config, n *yaml.Node, scalars func([]*yaml.Node) ([]string, error)) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("not a mapping")
	}
	m := map[string]map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, inner := n.Content[i], n.Content[i+1]
		if name.Kind != yaml.ScalarNode || inner.Kind != yaml.MappingNode {
			return fmt.Errorf("not a mapping of mappings")
		}
		items, err := scalars(inner.Content)
		if err != nil {
			return err
		}
		m[name.Value] = map[string]string{}
		for j := 0; j+1 < len(items); j += 2 {
			m[name.Value][items[j]] = items[j+1]
		}
	}
	return k.nested(c, m)
}

func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
