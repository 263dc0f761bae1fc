package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func open(t *testing.T) (*Store, *[]string) {
	t.Helper()
	var warnings []string
	s, err := Open(Config{Dir: t.TempDir(), Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	return s, &warnings
}

func TestRoundTrip(t *testing.T) {
	s, warnings := open(t)
	k := NewKey("test-result", "abc")
	if _, ok := s.Get(k); ok {
		t.Fatal("an empty store has an entry")
	}
	want := map[string][]byte{"bin": []byte("\x7fELF…"), "log": []byte("ok\n"), "empty": {}}
	s.Put(k, "a test", want)
	got, ok := s.Get(k)
	if !ok {
		t.Fatal("Get after Put: miss")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if len(*warnings) != 0 {
		t.Errorf("warnings: %q", *warnings)
	}
}

func TestKeysDiffer(t *testing.T) {
	// Length prefixes: moving a byte from one part to the next makes another key.
	if NewKey("ab", "c") == NewKey("a", "bc") || NewKey("a") == NewKey("a", "") {
		t.Error("different parts give the same key")
	}
	if k1, k2 := NewKey("a", "b"), NewKey("a", "b"); k1 != k2 {
		t.Error("NewKey is not a function of its parts")
	}
}

// TestPoisoned replaces an object (a binary, a harness's output) with other bytes, as a damaged
// disk or a writer of the directory would: the entry is a miss, with a warning, and the next Put
// makes it whole again.
func TestPoisoned(t *testing.T) {
	s, warnings := open(t)
	k := NewKey("differential-output", "harness-sha", "stdin-sha")
	s.PutOutput(k, "base output", []byte("the base's outputs"))
	objs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "*", "*"))
	if len(objs) != 1 {
		t.Fatalf("objects: %q", objs)
	}
	if err := os.WriteFile(objs[0], []byte("the head's outputs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, ok := s.Output(k); ok {
		t.Fatalf("a poisoned entry was read: %q", b)
	}
	if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "damaged or foreign") {
		t.Errorf("warnings: %q", *warnings)
	}
	s.PutOutput(k, "base output", []byte("the base's outputs"))
	if b, ok := s.Output(k); !ok || string(b) != "the base's outputs" {
		t.Errorf("after the rebuild: %q, %v", b, ok)
	}
}

// TestForeign copies one key's manifest to another key's name: the manifest names its own key, so
// it is a miss.
func TestForeign(t *testing.T) {
	s, warnings := open(t)
	head, base := NewKey("bin", "head tree"), NewKey("bin", "base tree")
	s.PutOutput(head, "head's binary", []byte("head code"))
	b, err := os.ReadFile(s.entry(head))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.entry(base), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Output(base); ok {
		t.Fatalf("a foreign entry was read: %q", got)
	}
	if len(*warnings) != 1 {
		t.Errorf("warnings: %q", *warnings)
	}
	if _, ok := s.Output(head); !ok {
		t.Error("the genuine entry is gone")
	}
}

func TestDamagedManifest(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":       "{",
		"bad digest":     `{"key":"%s","files":{"output":{"sha256":"../../x","size":1}}}`,
		"missing object": `{"key":"%s","files":{"output":{"sha256":"` + strings.Repeat("ab", 32) + `","size":1}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, warnings := open(t)
			k := NewKey(name)
			body = strings.Replace(body, "%s", k.String(), 1)
			if err := os.WriteFile(s.entry(k), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Output(k); ok {
				t.Fatalf("read %q", got)
			}
			if len(*warnings) != 1 {
				t.Errorf("warnings: %q", *warnings)
			}
			if _, err := os.Stat(s.entry(k)); err == nil {
				t.Error("the damaged manifest is still there")
			}
		})
	}
}

func TestJSON(t *testing.T) {
	s, _ := open(t)
	type v struct{ A int }
	k := NewKey("json")
	s.PutJSON(k, "v", v{A: 7})
	var got v
	if !s.GetJSON(k, &got) || got.A != 7 {
		t.Errorf("GetJSON: %+v", got)
	}
	// Another shape under the same key (a perfgate of another version would use another key): a
	// miss.
	s.PutOutput(k, "v", []byte(`{"B":1}`))
	if s.GetJSON(k, &got) {
		t.Error("an entry of another shape decoded")
	}
}

func TestNil(t *testing.T) {
	var s *Store
	k := NewKey("x")
	s.PutOutput(k, "x", []byte("x"))
	s.PutJSON(k, "x", 1)
	if _, ok := s.Output(k); ok {
		t.Error("a nil store has an entry")
	}
	var v int
	if s.GetJSON(k, &v) || s.Hits() != 0 {
		t.Error("a nil store has an entry")
	}
}

// TestPrune: over its bound, the store drops the entries used least recently, and the objects only
// they named.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(Config{Dir: dir, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	big := func(c byte) []byte { return []byte(strings.Repeat(string(c), 400<<10)) }
	old, used, fresh := NewKey("old"), NewKey("used"), NewKey("fresh")
	s.PutOutput(old, "old", big('o'))
	s.PutOutput(used, "used", big('u'))
	s.PutOutput(fresh, "fresh", big('f'))
	past := time.Now().Add(-time.Hour)
	for i, k := range []Key{old, used, fresh} {
		ts := past.Add(time.Duration(i) * time.Minute)
		os.Chtimes(s.entry(k), ts, ts)
	}
	if _, ok := s.Output(used); !ok { // used now: the most recent
		t.Fatal("miss")
	}
	s, err = Open(Config{Dir: dir, MaxBytes: 1 << 20}) // 1.2 MB of objects: over the bound
	if err != nil {
		t.Fatal(err)
	}
	_, okOld := s.Output(old)
	_, okUsed := s.Output(used)
	_, okFresh := s.Output(fresh)
	if okOld || okFresh || !okUsed {
		t.Errorf("after pruning: old %v, fresh %v, used %v; want only used kept", okOld, okFresh, okUsed)
	}
	objs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects", "*", "*"))
	if len(objs) != 1 {
		t.Errorf("objects left: %d, want 1", len(objs))
	}
}
