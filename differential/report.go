package differential

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// Report is the outcome of Check, written as differential.json.
type Report struct {
	Status     string        `json:"status"`           // StatusIdentical, StatusMismatch, StatusNotComparable or StatusSkipped
	Reason     string        `json:"reason,omitempty"` // why, for every status but identical (untrusted text inside)
	Seed       uint64        `json:"seed"`             // the seed of every input; Config.Seed reproduces them
	Package    string        `json:"package"`          // Config.Pkg
	ImportPath string        `json:"import_path,omitempty"`
	Ciphers    []Cipher      `json:"ciphers"`           // the constructors both sides have, by name
	Added      []string      `json:"added,omitempty"`   // constructors only head has
	Removed    []string      `json:"removed,omitempty"` // constructors only base has
	HeadFailed bool          `json:"head_failed"`       // the head did not load or build, or its harness crashed or hung
	BuildTime  time.Duration `json:"build_ns"`          // loading and building both harnesses
	CheckTime  time.Duration `json:"check_ns"`          // the check proper: probe, generate, run, compare
}

// Cipher is one constructor's comparison.
type Cipher struct {
	Name             string          `json:"name"`   // the constructor, e.g. "NewTripleEDE3"; "NewCipher/GCM" for it through cipher.NewGCM
	Family           string          `json:"family"` // FamilyBlock, FamilyAEAD, FamilyStream or FamilyHash
	Type             string          `json:"type"`   // what it returns on head, e.g. "*des.TripleCipher"
	KeySizes         []int           `json:"key_sizes"`
	KeySizesAdded    []int           `json:"key_sizes_added,omitempty"`   // accepted by head only, not compared
	KeySizesRemoved  []int           `json:"key_sizes_removed,omitempty"` // accepted by base only, not compared
	Keys             int             `json:"keys"`                        // keys per key size
	Blocks           int             `json:"blocks"`                      // block ciphers: blocks per key and direction
	NonceSizes       []int           `json:"nonce_sizes,omitempty"`       // nonce sizes compared: a stream constructor's nonce argument, an AEAD's NonceSize
	Lengths          []int           `json:"lengths,omitempty"`           // AEAD, stream, hash: message lengths, one message of each per key
	Inputs           int             `json:"inputs,omitempty"`            // AEAD, stream, hash: messages compared in all (keys × lengths × sizes)
	Methods          []string        `json:"methods"`                     // compared: Encrypt, Decrypt, then batch methods
	MethodsAdded     []string        `json:"methods_added,omitempty"`
	MethodsRemoved   []string        `json:"methods_removed,omitempty"`
	Mismatches       int             `json:"mismatches"`  // output blocks (or key setups) that differ
	DigestBase       string          `json:"digest_base"` // SHA-256 of all base outputs of this constructor
	DigestHead       string          `json:"digest_head"`
	Digests          []Digest        `json:"digests"`            // per direction
	Examples         []Mismatch      `json:"examples,omitempty"` // the first MaxExamples mismatches
	InconsistentBase int             `json:"inconsistent_base"`  // batch blocks that differ from single-block output
	InconsistentHead int             `json:"inconsistent_head"`
	Inconsistencies  []Inconsistency `json:"inconsistencies,omitempty"` // the first MaxExamples of them
	Notes            []string        `json:"notes,omitempty"`
}

// Digest holds the SHA-256 of every output block of one direction, in stream order, on each side.
type Digest struct {
	Direction string `json:"direction"` // "encrypt" or "decrypt"
	Base      string `json:"base"`
	Head      string `json:"head"`
}

// Mismatch is one output block that differs between base and head. A key accepted on one side and rejected on
// the other is a Mismatch with Direction "setup", Block -1 and the two outcomes in Note.
type Mismatch struct {
	Constructor string `json:"constructor"`
	KeySize     int    `json:"key_size"`
	Key         Hex    `json:"key"`
	Block       int    `json:"block"`     // 0-based index of the block within the key's inputs
	Direction   string `json:"direction"` // "encrypt", "decrypt" or "setup"
	Method      string `json:"method"`    // "Encrypt", "DecryptBlocks", …
	Input       Hex    `json:"input,omitempty"`
	Base        Hex    `json:"base,omitempty"`
	Head        Hex    `json:"head,omitempty"`
	Note        string `json:"note,omitempty"`
	// AEAD, stream and hash mismatches (Block is -1):
	Part   string `json:"part,omitempty"`   // what differed: "ciphertext", "tag", "length", "open", "forgery", "keystream", "chunk boundary", "digest", "sum", "reset", "nonce size", "overhead", "size", "block size"
	Length int    `json:"length"`           // the message's length in bytes (Input holds the message)
	Nonce  Hex    `json:"nonce,omitempty"`  // the AEAD's nonce, or the stream constructor's nonce
	AD     Hex    `json:"ad,omitempty"`     // the AEAD's additional data
	Chunks []int  `json:"chunks,omitempty"` // the chunk sizes the message was written in, when they matter
}

// Inconsistency is one block where a batch method disagrees with the single-block method on the same side.
type Inconsistency struct {
	Side        string `json:"side"` // "base" or "head"
	Constructor string `json:"constructor"`
	KeySize     int    `json:"key_size"`
	Key         Hex    `json:"key"`
	Block       int    `json:"block"`
	Direction   string `json:"direction"`
	Method      string `json:"method"` // the batch method
	Input       Hex    `json:"input"`
	Single      Hex    `json:"single"`
	Batch       Hex    `json:"batch"`
	// AEAD, stream and hash (Block is -1; Single is the reference output, Batch the one that disagrees):
	Part   string `json:"part,omitempty"` // "chunk boundary", "round trip", "forgery", "sum", "reset"
	Length int    `json:"length,omitempty"`
	Chunks []int  `json:"chunks,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Hex is bytes that JSON shows in hexadecimal.
type Hex []byte

func (h Hex) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h)), nil }

func (h *Hex) UnmarshalText(b []byte) error {
	d, err := hex.DecodeString(string(b))
	*h = d
	return err
}

func (h Hex) String() string { return hex.EncodeToString(h) }

// WriteJSON writes r, indented, to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("writing differential report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing differential report: %w", err)
	}
	return nil
}

// fail records a side failure: a failing base makes the check not comparable, a failing head a mismatch. The
// Ciphers of a check cut short would show no mismatches and no digests, so they are dropped.
func (r *Report) fail(f *sideFailure) {
	r.Ciphers = []Cipher{}
	r.HeadFailed = f.head != ""
	if f.base != "" {
		r.Status = StatusNotComparable
	} else {
		r.Status = StatusMismatch
	}
	r.Reason = f.Error()
}

// matchConstructors fills Added and Removed and returns the constructors both sides have. With none, the check
// is skipped; an explicitly named constructor that neither side has is an error.
func (r *Report) matchConstructors(cfg *Config, sides [2]*side) ([]string, error) {
	var names [2]map[string]bool
	for i, s := range sides {
		names[i] = map[string]bool{}
		for _, c := range s.info.Ctors {
			names[i][c.Name] = true
		}
	}
	for _, n := range cfg.Constructors {
		if !names[0][n] && !names[1][n] {
			return nil, fmt.Errorf("constructor %s: base: %s; head: %s", n,
				skipReason(sides[0].info, n), skipReason(sides[1].info, n))
		}
	}
	var common []string
	for _, c := range sides[0].info.Ctors {
		if names[1][c.Name] {
			common = append(common, c.Name)
		} else {
			r.Removed = append(r.Removed, c.Name)
		}
	}
	for _, c := range sides[1].info.Ctors {
		if !names[0][c.Name] {
			r.Added = append(r.Added, c.Name)
		}
	}
	if len(common) == 0 {
		r.Status = StatusSkipped
		r.Reason = fmt.Sprintf("no cipher constructor in %s on both sides (%s)", cfg.Pkg, shapes)
		if len(r.Added)+len(r.Removed) > 0 {
			r.Reason += fmt.Sprintf(" (base has %d, head has %d)", len(sides[0].info.Ctors), len(sides[1].info.Ctors))
		}
	}
	return common, nil
}

func skipReason(info *pkgInfo, name string) string {
	for _, s := range info.Skipped {
		if strings.HasPrefix(s, name+": ") {
			return strings.TrimPrefix(s, name+": ")
		}
	}
	return "not found"
}

// plan adds the Cipher of the constructor name, compares what the two sides accept, and returns the jobs of the
// key sizes both accept with the same block size.
func (r *Report) plan(cfg *Config, name string, sides [2]*side) []*job {
	var ct [2]ctor
	var sizes [2]map[int]probeSize
	for i, s := range sides {
		ct[i] = *findCtor(s.info, name)
		sizes[i] = map[int]probeSize{}
		for _, p := range s.probed {
			if p.Name == name {
				for _, z := range p.Sizes {
					sizes[i][z.Size] = z
				}
			}
		}
	}
	c := Cipher{Name: name, Family: FamilyBlock, Type: ct[1].Type, Keys: cfg.Keys, Blocks: cfg.Blocks, KeySizes: []int{}}
	var batch []string
	for _, m := range ct[0].Batch {
		if slices.Contains(ct[1].Batch, m) {
			batch = append(batch, m)
		} else {
			c.MethodsRemoved = append(c.MethodsRemoved, m)
		}
	}
	for _, m := range ct[1].Batch {
		if !slices.Contains(ct[0].Batch, m) {
			c.MethodsAdded = append(c.MethodsAdded, m)
		}
	}
	c.Methods = append([]string{"Encrypt", "Decrypt"}, batch...)

	var jobs []*job
	for size := 1; size <= maxKeySize; size++ {
		b, inB := sizes[0][size]
		h, inH := sizes[1][size]
		switch {
		case !inB && !inH:
		case b.Panic != "" && h.Panic != "":
			c.Notes = append(c.Notes, fmt.Sprintf("%d-byte key panics on both sides: %s", size, h.Panic))
		case inB && inH && (b.Panic != "" || h.Panic != "" || b.BlockSize != h.BlockSize):
			c.Mismatches++
			c.Examples = append(c.Examples, Mismatch{Constructor: name, KeySize: size, Block: -1,
				Direction: "setup", Method: name, Note: "base: " + probeText(b) + "; head: " + probeText(h)})
		case !inH || h.Panic != "":
			c.KeySizesRemoved = append(c.KeySizesRemoved, size)
		case !inB || b.Panic != "":
			c.KeySizesAdded = append(c.KeySizesAdded, size)
		default:
			c.KeySizes = append(c.KeySizes, size)
			jobs = append(jobs, newJob(cfg.Seed, name, size, b.BlockSize, cfg.Keys, cfg.Blocks, batch))
		}
	}
	if len(c.KeySizes) == 0 {
		c.Notes = append(c.Notes, "no key size accepted by both sides: nothing compared")
	}
	r.Ciphers = append(r.Ciphers, c)
	return jobs
}

func findCtor(info *pkgInfo, name string) *ctor {
	for i := range info.Ctors {
		if info.Ctors[i].Name == name {
			return &info.Ctors[i]
		}
	}
	panic("differential: constructor " + name + " vanished")
}

func probeText(p probeSize) string {
	if p.Panic != "" {
		return "panic: " + p.Panic
	}
	return fmt.Sprintf("accepted, block size %d", p.BlockSize)
}

// compare reads both harness outputs job by job into the Ciphers and sets the status.
func (r *Report) compare(jobs []*job, outs [2][]byte) error {
	base, head := &outReader{side: "base", b: outs[0]}, &outReader{side: "head", b: outs[1]}
	tallies := map[string]*tally{}
	for i := range r.Ciphers {
		tallies[r.Ciphers[i].Name] = newTally(&r.Ciphers[i])
	}
	for _, j := range jobs {
		if err := tallies[j.ctor].compareJob(j, base, head); err != nil {
			return err
		}
	}
	for _, rd := range []*outReader{base, head} {
		if err := rd.end(); err != nil {
			return err
		}
	}
	var bad []string
	inconsistent := 0
	for i := range r.Ciphers {
		c := &r.Ciphers[i]
		tallies[c.Name].finish()
		if c.Mismatches > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d", c.Name, c.Mismatches))
		}
		inconsistent += c.InconsistentHead
	}
	sort.Strings(bad)
	r.Status = StatusIdentical
	if len(bad) > 0 {
		r.Status = StatusMismatch
		r.Reason = "outputs differ (" + strings.Join(bad, ", ") + ")"
	}
	if inconsistent > 0 {
		if r.Reason != "" {
			r.Reason += "; "
		}
		r.Reason += fmt.Sprintf("head's batch methods disagree with its single-block "+
			"methods on %d blocks", inconsistent)
	}
	return nil
}
