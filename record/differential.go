package record

import (
	"encoding/hex"
	"time"
)

// DiffStatus is the outcome of the differential check.
type DiffStatus string

// Differential statuses.
const (
	DiffIdentical     DiffStatus = "identical"      // every compared output block is byte-identical
	DiffMismatch      DiffStatus = "mismatch"       // an output differs, or the head harness failed (HeadFailed)
	DiffNotComparable DiffStatus = "not-comparable" // the base could not be loaded, built or run
	DiffSkipped       DiffStatus = "skipped"        // disabled by configuration, or no cipher constructor to compare
)

// Differential is the outcome of the differential check of package differential, also written as
// differential.json.
type Differential struct {
	Status     DiffStatus    `json:"status"`
	Reason     string        `json:"reason,omitempty"` // why, for every status but identical (untrusted text inside)
	Seed       uint64        `json:"seed"`             // the seed of every input; it reproduces them
	Package    string        `json:"package,omitempty"`
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
	Name             string          `json:"name"` // the constructor, e.g. "NewTripleEDE3"
	Type             string          `json:"type"` // what it returns on head, e.g. "*des.TripleCipher"
	KeySizes         []int           `json:"key_sizes"`
	KeySizesAdded    []int           `json:"key_sizes_added,omitempty"`   // accepted by head only, not compared
	KeySizesRemoved  []int           `json:"key_sizes_removed,omitempty"` // accepted by base only, not compared
	Keys             int             `json:"keys"`                        // keys per key size
	Blocks           int             `json:"blocks"`                      // blocks per key and direction
	Methods          []string        `json:"methods"`                     // compared: Encrypt, Decrypt, then batch methods
	MethodsAdded     []string        `json:"methods_added,omitempty"`
	MethodsRemoved   []string        `json:"methods_removed,omitempty"`
	Mismatches       int             `json:"mismatches"`  // output blocks (or key setups) that differ
	DigestBase       string          `json:"digest_base"` // SHA-256 of all base outputs of this constructor
	DigestHead       string          `json:"digest_head"`
	Digests          []Digest        `json:"digests"`            // per direction
	Examples         []Mismatch      `json:"examples,omitempty"` // the first few mismatches
	InconsistentBase int             `json:"inconsistent_base"`  // batch blocks that differ from single-block output
	InconsistentHead int             `json:"inconsistent_head"`
	Inconsistencies  []Inconsistency `json:"inconsistencies,omitempty"` // the first few of them
	Notes            []string        `json:"notes,omitempty"`
	Package          string          `json:"package,omitempty"` // as Benchmark.Package
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
}

// Inconsistency is one block where a batch method disagrees with the single-block method on the same side.
type Inconsistency struct {
	Side        Side   `json:"side"`
	Constructor string `json:"constructor"`
	KeySize     int    `json:"key_size"`
	Key         Hex    `json:"key"`
	Block       int    `json:"block"`
	Direction   string `json:"direction"`
	Method      string `json:"method"` // the batch method
	Input       Hex    `json:"input"`
	Single      Hex    `json:"single"`
	Batch       Hex    `json:"batch"`
}

// Hex is bytes that JSON shows in hexadecimal.
type Hex []byte

// MarshalText encodes h as lowercase hexadecimal.
func (h Hex) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(h)), nil }

// UnmarshalText decodes hexadecimal.
func (h *Hex) UnmarshalText(b []byte) error {
	d, err := hex.DecodeString(string(b))
	*h = d
	return err
}

func (h Hex) String() string { return hex.EncodeToString(h) }
