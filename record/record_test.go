package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fill sets every field reachable from v to a non-zero value: strings, numbers and booleans, slices
// of two elements, pointers to filled values. Each leaf gets its own value, so a field that JSON
// swaps or drops shows.
func fill(t *testing.T, v reflect.Value, path string, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 13, 0, *n, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				t.Errorf("%s.%s is unexported: JSON cannot carry it", path, f.Name)
				continue
			}
			// an embedded struct's fields are the parent object's, with their own names
			if tag := f.Tag.Get("json"); tag == "" && !f.Anonymous || tag == "-" {
				t.Errorf("%s.%s has json tag %q: every record field needs its stable name", path, f.Name, tag)
			}
			fill(t, v.Field(i), path+"."+f.Name, n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), path, n)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[Hex]() {
			v.Set(reflect.ValueOf(Hex{byte(*n), 0xab}))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(t, v.Index(i), path+"[]", n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, path+"{key}", n)
			fill(t, e, path+"{}", n)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(strings.ToLower(path) + "#" + string(rune('a'+*n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n) << 40)
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	default:
		t.Fatalf("%s: fill does not know kind %s; teach it", path, v.Kind())
	}
}

// TestResultRoundTrip: every field of a Result, however deep, survives result.json. A field added
// to any record is covered without editing this test.
func TestResultRoundTrip(t *testing.T) {
	var want Result
	n := 0
	fill(t, reflect.ValueOf(&want).Elem(), "Result", &n)
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Result
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result.json lost or changed fields (-want +got):\n%s", diff)
	}
	if n < 150 {
		t.Errorf("filled %d values: the Result should have many more; is fill recursing?", n)
	}
}

// TestStableNames: the fields scripts rely on keep their JSON names (a change bumps Schema).
func TestStableNames(t *testing.T) {
	var r Result
	n := 0
	fill(t, reflect.ValueOf(&r).Elem(), "Result", &n)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	get := func(path string) any {
		var cur any = m
		for _, k := range strings.Split(path, ".") {
			if l, ok := cur.([]any); ok {
				cur = l[0]
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = obj[k]
		}
		return cur
	}
	for _, path := range []string{
		"schema", "verdict.status", "verdict.exit_code", "verdict.reasons",
		"benchmarks.name", "benchmarks.unit", "benchmarks.class", "benchmarks.paired.ratio", "benchmarks.paired.lo",
		"benchmarks.paired.hi", "differential.status", "differential.ciphers.name", "differential.ciphers.key_sizes",
		"sizes.sections.name", "sizes.sections.base", "sizes.sections.head", "incomplete",
		"packages", "benchmarks.package", "differential.ciphers.package", "sizes.sections.package", "shard.index", "shard.count",
		"base.toolchain", "base.env", "head.flags",
	} {
		if get(path) == nil {
			t.Errorf("result.json has no %s", path)
		}
	}
}
