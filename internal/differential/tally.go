package differential

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/record"
)

// MaxExamples is how many mismatches, and how many inconsistencies, a Cipher keeps as examples.
const MaxExamples = 5

// outReader walks one side's harness output, job by job, in the layout each family's harness
// writes.
type outReader struct {
	side string
	b    []byte
}

func (r *outReader) next(n int) ([]byte, error) {
	if n > len(r.b) {
		return nil, newFailure(r.side, "harness output is truncated")
	}
	x := r.b[:n:n]
	r.b = r.b[n:]
	return x, nil
}

// field reads one length-prefixed field: a 4-byte big-endian length and that many bytes.
func (r *outReader) field() ([]byte, error) {
	n, err := r.next(4)
	if err != nil {
		return nil, err
	}
	if uint64(binary.BigEndian.Uint32(n)) > uint64(len(r.b)) {
		return nil, newFailure(r.side, "harness output is truncated")
	}
	return r.next(int(binary.BigEndian.Uint32(n)))
}

// end checks that the output ends with the trailer and nothing else.
func (r *outReader) end() error {
	if string(r.b) != harness.Trailer {
		return newFailure(r.side, "harness output does not end where expected")
	}
	return nil
}

// tally accumulates one Cipher's comparison across its jobs.
type tally struct {
	c   *record.Cipher
	dir [2][]hash.Hash // [side][direction]: every output of that direction, in stream order
	all [2]hash.Hash   // [side]: every key status and output
}

func newTally(c *record.Cipher, directions []string) *tally {
	t := &tally{c: c}
	for s := range 2 {
		t.all[s] = sha256.New()
		for range directions {
			t.dir[s] = append(t.dir[s], sha256.New())
		}
	}
	return t
}

// finish writes the digests into the Cipher.
func (t *tally) finish(directions []string) {
	sum := func(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
	t.c.DigestBase, t.c.DigestHead = sum(t.all[0]), sum(t.all[1])
	t.c.Digests = nil
	for d, name := range directions {
		t.c.Digests = append(t.c.Digests, record.Digest{Direction: name, Base: sum(t.dir[0][d]), Head: sum(t.dir[1][d])})
	}
}

// write hashes one output of side s in direction dir (-1: only into the whole side's digest).
func (t *tally) write(s, dir int, b []byte) {
	t.all[s].Write(b)
	if dir >= 0 {
		t.dir[s][dir].Write(b)
	}
}

func (t *tally) mismatch(m record.Mismatch) {
	t.c.Mismatches++
	if len(t.c.Examples) < MaxExamples {
		t.c.Examples = append(t.c.Examples, m)
	}
}

// inconsistent records that side disagrees with itself.
func (t *tally) inconsistent(side int, in record.Inconsistency) {
	if side == 0 {
		t.c.InconsistentBase++
	} else {
		t.c.InconsistentHead++
	}
	if len(t.c.Inconsistencies) < MaxExamples {
		in.Side = [2]record.Side{record.Base, record.Head}[side]
		in.Constructor = t.c.Name
		t.c.Inconsistencies = append(t.c.Inconsistencies, in)
	}
}
