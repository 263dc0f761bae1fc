package record

import (
	"encoding/hex"
	"time"
)

// DiffStatus is the outcome of the differential check.
type DiffStatus string

// Differential statuses.
const (
	DiffIdentical DiffStatus = "identical" // every compared output block is byte-identical
	// an output differs, or the head harness failed (HeadFailed)
	DiffMismatch      DiffStatus = "mismatch"
	DiffNotComparable DiffStatus = "not-comparable" // the base could not be loaded, built or run
	// disabled by configuration, or no cipher constructor to compare
	DiffSkipped DiffStatus = "skipped"
	// DiffError is perfgate's own failure: the check could not run although the code is not at
	// fault (the harness does not build, the package does not load on either side, inputs cannot be
	// generated).
	DiffError DiffStatus = "error"
)

// Family is the kind of primitive a constructor returns, the interface the differential check
// exercises.
type Family string

// Families of constructors, the values of Cipher.Family.
const (
	// crypto/cipher.Block: Encrypt and Decrypt of single blocks, and batch methods
	FamilyBlock Family = "block"
	// crypto/cipher.AEAD, or a 16-byte block cipher through crypto/cipher.NewGCM
	FamilyAEAD   Family = "aead"
	FamilyStream Family = "stream" // crypto/cipher.Stream: XORKeyStream
	FamilyHash   Family = "hash"   // hash.Hash, keyed (a MAC) or not
	// a one-shot function: message in, digest or tag out (Sum256, poly1305.Sum)
	FamilySum Family = "sum"
)

// Differential is the outcome of the differential check of package differential, also written as
// differential.json.
type Differential struct {
	Status DiffStatus `json:"status"`
	// why, for every status but identical (untrusted text inside)
	Reason     string   `json:"reason,omitempty"`
	Seed       uint64   `json:"seed"` // the seed of every input; it reproduces them
	Package    string   `json:"package,omitempty"`
	ImportPath string   `json:"import_path,omitempty"`
	Ciphers    []Cipher `json:"ciphers"`           // the constructors both sides have, by name
	Added      []string `json:"added,omitempty"`   // constructors only head has
	Removed    []string `json:"removed,omitempty"` // constructors only base has
	// the head did not load or build, or its harness crashed or hung
	HeadFailed bool `json:"head_failed"`
	// NoConstructors says the check was skipped because neither side has a constructor both share.
	NoConstructors bool          `json:"no_constructors,omitempty"`
	BuildTime      time.Duration `json:"build_ns"` // loading and building both harnesses
	// the check proper: probe, generate, run, compare
	CheckTime time.Duration `json:"check_ns"`
}

// Cipher is one constructor's comparison. Block ciphers fill Blocks; AEADs, stream ciphers and
// hashes fill NonceSizes, Lengths and Inputs instead (Blocks is 0).
type Cipher struct {
	// the constructor, e.g. "NewTripleEDE3"; "NewCipher/GCM" for it through cipher.NewGCM
	Name string `json:"name"`
	// what it returns: FamilyBlock, FamilyAEAD, FamilyStream or FamilyHash
	Family   Family `json:"family"`
	Type     string `json:"type"` // what it returns on head, e.g. "*des.TripleCipher"
	KeySizes []int  `json:"key_sizes"`
	// accepted by head only, not compared
	KeySizesAdded []int `json:"key_sizes_added,omitempty"`
	// accepted by base only, not compared
	KeySizesRemoved []int `json:"key_sizes_removed,omitempty"`
	Keys            int   `json:"keys"` // keys per key size
	// block ciphers: blocks per key and direction
	Blocks int `json:"blocks"`
	// nonce sizes compared: a stream constructor's nonce argument, an AEAD's NonceSize
	NonceSizes []int `json:"nonce_sizes,omitempty"`
	// AEAD, stream, hash: message lengths in bytes, one message of each per key
	Lengths []int `json:"lengths,omitempty"`
	// AEAD, stream, hash: messages compared in all (keys × lengths × sizes)
	Inputs int `json:"inputs,omitempty"`
	// compared: Encrypt, Decrypt, then batch methods; Seal, Open; …
	Methods        []string `json:"methods"`
	MethodsAdded   []string `json:"methods_added,omitempty"`
	MethodsRemoved []string `json:"methods_removed,omitempty"`
	// output blocks, messages (or key setups) that differ
	Mismatches int `json:"mismatches"`
	// SHA-256 of all base outputs of this constructor
	DigestBase string     `json:"digest_base"`
	DigestHead string     `json:"digest_head"`
	Digests    []Digest   `json:"digests"`            // per direction
	Examples   []Mismatch `json:"examples,omitempty"` // the first few mismatches
	// outputs that disagree with the same side's other way of computing them
	InconsistentBase int             `json:"inconsistent_base"`
	InconsistentHead int             `json:"inconsistent_head"`
	Inconsistencies  []Inconsistency `json:"inconsistencies,omitempty"` // the first few of them
	Notes            []string        `json:"notes,omitempty"`
	// Oracle is the reference head was checked against on the same vectors
	// ("crypto/des.NewTripleDESCipher"), when the configuration names one; OracleMismatches counts
	// the outputs on which they differ, and OracleExamples holds the first few (Base is the
	// oracle's output).
	Oracle           string     `json:"oracle,omitempty"`
	OracleMismatches int        `json:"oracle_mismatches,omitempty"`
	OracleExamples   []Mismatch `json:"oracle_examples,omitempty"`
	Package          string     `json:"package,omitempty"` // as Benchmark.Package
}

// Digest holds the SHA-256 of every output block of one direction, in stream order, on each side.
type Digest struct {
	Direction string `json:"direction"` // "encrypt" or "decrypt"
	Base      string `json:"base"`
	Head      string `json:"head"`
}

// Mismatch is one output block that differs between base and head. A key accepted on one side and
// rejected on the other is a Mismatch with Direction "setup", Block -1 and the two outcomes in
// Note.
type Mismatch struct {
	Constructor string `json:"constructor"`
	KeySize     int    `json:"key_size"`
	Key         Hex    `json:"key"`
	Block       int    `json:"block"`     // 0-based index of the block within the input of the call
	Direction   string `json:"direction"` // "encrypt", "decrypt" or "setup"
	Method      string `json:"method"`    // "Encrypt", "DecryptBlocks", …
	Input       Hex    `json:"input,omitempty"`
	Base        Hex    `json:"base,omitempty"`
	Head        Hex    `json:"head,omitempty"`
	// Block ciphers: how the call was made, when not plainly ("in place", "one call of 7 blocks");
	// else what differed.
	Note string `json:"note,omitempty"`
	// AEAD, stream and hash mismatches (Block is -1): what differed: "ciphertext", "tag", "length",
	// "open", "forgery", "keystream", "chunk boundary", "in place", "digest", "sum", "reset",
	// "nonce size", "overhead", "size", "block size", "input"
	Part string `json:"part,omitempty"`
	// the message's length in bytes (Input holds the message); a block cipher's block size
	Length int `json:"length"`
	Nonce  Hex `json:"nonce,omitempty"` // the AEAD's nonce, or the stream constructor's nonce
	AD     Hex `json:"ad,omitempty"`    // the AEAD's additional data
	// the chunk sizes the message was written in, when they matter
	Chunks []int `json:"chunks,omitempty"`
}

// Inconsistency is one output on which a side disagrees with itself: a batch method with the
// single-block method, or (AEAD, stream, hash) chunked writes with one call, Open with Seal, Reset
// with a new hash.
type Inconsistency struct {
	Side        Side   `json:"side"`
	Constructor string `json:"constructor"`
	KeySize     int    `json:"key_size"`
	Key         Hex    `json:"key"`
	Block       int    `json:"block"`
	Direction   string `json:"direction"`
	// the batch method, or the single-block method called in place (Note says how)
	Method string `json:"method"`
	Input  Hex    `json:"input"`
	Single Hex    `json:"single"`
	Batch  Hex    `json:"batch"`
	// AEAD, stream and hash (Block is -1; Single is the reference output, Batch the one that
	// disagrees): "chunk boundary", "in place", "round trip", "forgery", "sum", "reset"
	Part   string `json:"part,omitempty"`
	Length int    `json:"length,omitempty"`
	Chunks []int  `json:"chunks,omitempty"`
	Note   string `json:"note,omitempty"`
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
