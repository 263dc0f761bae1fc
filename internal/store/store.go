// Package store is perfgate's content-addressed store of artifacts: what a side's build and checks
// produced (a sealed test binary, the output of a harness run, a constant-time trace's analysis, a
// test result), kept between runs so that a re-run, a second push against the same base or a bisect
// step does not compute it again.
//
// An entry is found by a Key, the SHA-256 of everything that determines its content (NewKey): a
// binary's own digest and its input, or a tree's hash, the toolchain and perfgate's settings. Its
// files are kept as objects named by their SHA-256, and a manifest, named by the key, lists them
// with their digests and sizes and repeats the key. Every write is atomic (a temporary file renamed
// into place); every read is verified: an object whose bytes do not hash to its name, a manifest
// that is not the key's, a missing or short file is a miss, reported through Config.Warn and
// removed, never an input. Timings are never stored: both sides are timed fresh.
//
// The store trusts nothing it reads beyond that check. Whoever can write the directory can write an
// entry that passes it (an entry is not signed); in CI the directory comes from actions/cache,
// whose scoping lets a pull request's job write only the caches its own branch's later runs read
// (docs/security.md).
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Off is the value of the key cache that turns the store off.
const Off = "off"

// layout names the store's format; a store written in another layout is another directory, never
// misread.
const layout = "v1"

// Key names an entry: the SHA-256 of what determines its content.
type Key [sha256.Size]byte

// NewKey hashes parts, each length-prefixed so that no two lists of parts give the same key. The
// first part should say what kind of entry it is ("differential-output", "test-result", …).
func NewKey(parts ...string) Key {
	h := sha256.New()
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	var k Key
	h.Sum(k[:0])
	return k
}

func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Config says where the store is and where its warnings go.
type Config struct {
	Dir string // the store's directory; created when missing
	// Warn receives one line for every damaged or foreign entry read (and every entry that could
	// not be written); nil discards them.
	Warn func(msg string)
	// MaxBytes bounds the objects' total size: when Open finds more, it removes the entries used
	// least recently until a quarter of the bound is free, and the objects no entry names. 0 means
	// DefaultMaxBytes.
	MaxBytes int64
}

// DefaultMaxBytes is the store's default bound: a gate of this repository keeps some 20 MB a base.
const DefaultMaxBytes = 2 << 30

// Store is an open store. Its methods are safe for concurrent use, by this process and by others. A
// nil *Store is the store turned off: every Get misses and every Put is dropped.
type Store struct {
	dir  string
	warn func(string)
	hits atomic.Int64
}

// Hits counts the entries read whole and verified so far; 0 for a nil Store.
func (s *Store) Hits() int64 {
	if s == nil {
		return 0
	}
	return s.hits.Load()
}

// DefaultDir is the store under the user's cache directory: $XDG_CACHE_HOME/perfgate/store or
// ~/.cache/perfgate/store on Linux.
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return filepath.Join(d, "perfgate", "store"), nil
}

// Open opens (creating it when missing) the store at cfg.Dir.
func Open(cfg Config) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errors.New("store: no directory")
	}
	dir := filepath.Join(cfg.Dir, layout)
	for _, d := range []string{filepath.Join(dir, "objects"), filepath.Join(dir, "entries"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	warn := cfg.Warn
	if warn == nil {
		warn = func(string) {}
	}
	st := &Store{dir: dir, warn: warn}
	max := cfg.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	st.prune(max)
	return st, nil
}

// prune removes the least recently used entries while the objects take more than max bytes, down to
// three quarters of it, and then every object no entry names. Entries are dated by their manifest's
// modification time, which Get renews.
func (s *Store) prune(max int64) {
	objects := map[string]int64{}
	var total int64
	filepath.WalkDir(filepath.Join(s.dir, "objects"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				objects[d.Name()] = fi.Size()
				total += fi.Size()
			}
		}
		return nil
	})
	if total <= max {
		return
	}
	des, err := os.ReadDir(filepath.Join(s.dir, "entries"))
	if err != nil {
		return
	}
	type entry struct {
		path string
		used time.Time
	}
	var entries []entry
	for _, de := range des {
		if fi, err := de.Info(); err == nil {
			entries = append(entries, entry{filepath.Join(s.dir, "entries", de.Name()), fi.ModTime()})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	named := func(e entry) []string {
		var m manifest
		b, err := os.ReadFile(e.path)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return nil
		}
		var ds []string
		for _, f := range m.Files {
			ds = append(ds, f.SHA256)
		}
		return ds
	}
	// Drop the oldest entries until what the rest name fits.
	refs := map[string]int{}
	for _, e := range entries {
		for _, d := range named(e) {
			refs[d]++
		}
	}
	live := int64(0)
	for d := range refs {
		live += objects[d]
	}
	for _, e := range entries {
		if live <= max/4*3 {
			break
		}
		ds := named(e)
		os.Remove(e.path)
		for _, d := range ds {
			if refs[d]--; refs[d] == 0 {
				live -= objects[d]
			}
		}
	}
	for d := range objects {
		if refs[d] <= 0 && len(d) > 2 {
			os.Remove(s.object(d))
		}
	}
}

// Dir is the directory the store keeps its entries in.
func (s *Store) Dir() string { return s.dir }

// manifest is an entry's record: its key again, what it is, and its files' digests and sizes.
type manifest struct {
	Key     string          `json:"key"`
	What    string          `json:"what"`
	Created time.Time       `json:"created"`
	Files   map[string]file `json:"files"`
}

type file struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Put stores files (by name) as the entry of k, replacing any earlier one; what describes it for a
// human reading the manifest. A store that cannot be written is reported through Warn and otherwise
// ignored: the store only saves time.
func (s *Store) Put(k Key, what string, files map[string][]byte) {
	if s == nil {
		return
	}
	if err := s.put(k, what, files); err != nil {
		s.warn(fmt.Sprintf("store: not keeping %s: %v", what, err))
	}
}

func (s *Store) put(k Key, what string, files map[string][]byte) error {
	m := manifest{Key: k.String(), What: what, Created: time.Now().UTC().Truncate(time.Second),
		Files: map[string]file{}}
	for name, data := range files {
		sum := sha256.Sum256(data)
		d := hex.EncodeToString(sum[:])
		m.Files[name] = file{SHA256: d, Size: int64(len(data))}
		if fi, err := os.Stat(s.object(d)); err == nil && fi.Size() == int64(len(data)) {
			continue // the same content is there already (verified when it is read)
		}
		if err := os.MkdirAll(filepath.Dir(s.object(d)), 0o755); err != nil {
			return err
		}
		if err := s.writeAtomic(s.object(d), data); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(m, "", "\t")
	if err != nil {
		return err
	}
	return s.writeAtomic(s.entry(k), b)
}

// Get returns the files of k's entry, each verified against its digest, and whether there is such
// an entry. An entry that fails the check is a miss: Get reports it through Warn and removes its
// manifest.
func (s *Store) Get(k Key) (map[string][]byte, bool) {
	if s == nil {
		return nil, false
	}
	b, err := os.ReadFile(s.entry(k))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	files, err := s.read(k, b, err)
	if err == nil {
		now := time.Now()
		os.Chtimes(s.entry(k), now, now) // recently used: the last to be pruned
	}
	if err != nil {
		s.warn(fmt.Sprintf("store: entry %s is damaged or foreign, computing it again: %v", k.String()[:12], err))
		os.Remove(s.entry(k))
		return nil, false
	}
	return files, true
}

func (s *Store) read(k Key, b []byte, err error) (map[string][]byte, error) {
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if m.Key != k.String() {
		return nil, fmt.Errorf("the manifest is %.12s's", m.Key)
	}
	files := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(m.Files)) {
		f := m.Files[name]
		if len(f.SHA256) != 2*sha256.Size || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("%s: bad digest %q", name, f.SHA256)
		}
		data, err := os.ReadFile(s.object(f.SHA256))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(data)) != f.Size {
			// The object is damaged: no entry may use it.
			os.Remove(s.object(f.SHA256))
			return nil, fmt.Errorf("%s: content hashes to %.12s, not %.12s", name, got, f.SHA256)
		}
		files[name] = data
	}
	s.hits.Add(1)
	return files, nil
}

// Output returns the single file of k's entry (see PutOutput).
func (s *Store) Output(k Key) ([]byte, bool) {
	f, ok := s.Get(k)
	if !ok {
		return nil, false
	}
	b, ok := f["output"]
	if !ok || len(f) != 1 {
		s.warn(fmt.Sprintf("store: entry %s is not an output, computing it again", k.String()[:12]))
		os.Remove(s.entry(k))
		return nil, false
	}
	return b, true
}

// PutOutput stores data as k's entry of one file.
func (s *Store) PutOutput(k Key, what string, data []byte) {
	s.Put(k, what, map[string][]byte{"output": data})
}

// GetJSON decodes k's single-file entry into v; false on a miss or an entry that does not decode.
func (s *Store) GetJSON(k Key, v any) bool {
	b, ok := s.Output(k)
	if !ok {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		s.warn(fmt.Sprintf("store: entry %s does not decode, computing it again: %v", k.String()[:12], err))
		os.Remove(s.entry(k))
		return false
	}
	return true
}

// PutJSON stores v, JSON-encoded, as k's entry.
func (s *Store) PutJSON(k Key, what string, v any) {
	if s == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.warn(fmt.Sprintf("store: not keeping %s: %v", what, err))
		return
	}
	s.PutOutput(k, what, b)
}

func (s *Store) entry(k Key) string { return filepath.Join(s.dir, "entries", k.String()+".json") }

func (s *Store) object(digest string) string {
	return filepath.Join(s.dir, "objects", digest[:2], digest)
}

// writeAtomic writes data to a temporary file in the store and renames it to path, so that a reader
// sees the whole file or none.
func (s *Store) writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "w-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Program is the SHA-256 of the running executable (or, when it cannot be read, "unknown " and the
// error): the part of every key that stands for perfgate itself, exact even for a development build
// whose version says "devel", since what perfgate generates, runs and analyses can change with any
// edit of it.
func Program() string {
	programOnce.Do(func() {
		programDigest = "unknown"
		exe, err := os.Executable()
		if err != nil {
			programDigest += " " + err.Error()
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			programDigest += " " + err.Error()
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			programDigest += " " + err.Error()
			return
		}
		programDigest = hex.EncodeToString(h.Sum(nil))
	})
	return programDigest
}

var (
	programOnce   sync.Once
	programDigest string
)

// Digest is the hexadecimal SHA-256 of data, for the parts of a key that stand for an input.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
