package differential

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// MaxExamples is how many mismatches, and how many batch/single disagreements, a Cipher keeps as examples.
const MaxExamples = 5

// Directions, in the order the harness runs them.
var directions = [2]string{"encrypt", "decrypt"}

// dirMethods returns the methods the harness runs in direction dir, in output order: the single-block method,
// then the job's batch methods of that direction.
func (j *job) dirMethods(dir int) []string {
	prefix := [2]string{"Encrypt", "Decrypt"}[dir]
	ms := []string{prefix}
	for _, m := range j.methods {
		if strings.HasPrefix(m, prefix) {
			ms = append(ms, m)
		}
	}
	return ms
}

// outReader walks one side's harness output in the layout the jobs imply:
//
//	per key: u8(status) [u16(len) message when status ≠ 0]
//	         per direction, per method (dirMethods): blocks × blockSize bytes
//	after the last job: outputTrailer
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

// field reads one length-prefixed field: a 4-byte big-endian length and that many bytes (the primitive
// harnesses' output, see prims_compare.go).
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

// keyOut is one key's outputs on one side: out[dir][method] holds blocks × blockSize bytes.
type keyOut struct {
	status byte
	msg    string
	out    [2][][]byte
}

func (r *outReader) key(j *job) (keyOut, error) {
	var k keyOut
	st, err := r.next(1)
	if err != nil {
		return k, err
	}
	k.status = st[0]
	if k.status != statusOK {
		n, err := r.next(2)
		if err != nil {
			return k, err
		}
		msg, err := r.next(int(binary.BigEndian.Uint16(n)))
		k.msg = string(msg)
		return k, err
	}
	n := j.blocks * j.blockSize
	for dir := range directions {
		for range j.dirMethods(dir) {
			b, err := r.next(n)
			if err != nil {
				return k, err
			}
			k.out[dir] = append(k.out[dir], b)
		}
	}
	return k, nil
}

// end checks that the output ends with the trailer and nothing else.
func (r *outReader) end() error {
	if string(r.b) != outputTrailer {
		return newFailure(r.side, "harness output does not end where expected")
	}
	return nil
}

// tally accumulates one constructor's comparison across its key sizes.
type tally struct {
	c   *Cipher
	dir [2][2]hash.Hash // [side][direction]: every output block of that direction, in stream order
	all [2]hash.Hash    // [side]: every key status and output block
}

func newTally(c *Cipher) *tally {
	t := &tally{c: c}
	for s := range 2 {
		t.all[s] = sha256.New()
		for d := range 2 {
			t.dir[s][d] = sha256.New()
		}
	}
	return t
}

// finish writes the digests into the Cipher.
func (t *tally) finish() {
	sum := func(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
	t.c.DigestBase, t.c.DigestHead = sum(t.all[0]), sum(t.all[1])
	t.c.Digests = nil
	for d, name := range directions {
		t.c.Digests = append(t.c.Digests, Digest{Direction: name, Base: sum(t.dir[0][d]), Head: sum(t.dir[1][d])})
	}
}

func (t *tally) mismatch(m Mismatch) {
	t.c.Mismatches++
	if len(t.c.Examples) < MaxExamples {
		t.c.Examples = append(t.c.Examples, m)
	}
}

// diffJob reads one job's outputs from both sides, hashes them and records every output block that differs
// between base and head, and every batch block that differs from the single-block result on the same side.
func (t *tally) diffJob(j *job, base, head *outReader) error {
	bs := j.blockSize
	methods := [2][]string{j.dirMethods(0), j.dirMethods(1)}
	for ki := range j.keys {
		k := &j.keys[ki]
		var o [2]keyOut
		for s, r := range []*outReader{base, head} {
			var err error
			if o[s], err = r.key(j); err != nil {
				return err
			}
			t.all[s].Write([]byte{o[s].status})
			for dir := range directions {
				for mi, out := range o[s].out[dir] {
					t.all[s].Write(out)
					t.dir[s][dir].Write(out)
					if mi > 0 {
						t.consistency(s, j, k, dir, methods[dir][mi], o[s].out[dir][0], out)
					}
				}
			}
		}
		if o[0].status != o[1].status {
			t.mismatch(Mismatch{
				Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: -1, Direction: "setup", Method: j.ctor,
				Note: fmt.Sprintf("base: %s; head: %s", statusText(o[0]), statusText(o[1])),
			})
			continue
		}
		if o[0].status != statusOK {
			continue
		}
		for dir, name := range directions {
			if equalAll(o[0].out[dir], o[1].out[dir]) {
				continue
			}
			in := k.input(dir)
			for blk := range j.blocks {
				lo, hi := blk*bs, (blk+1)*bs
				for mi, m := range methods[dir] {
					b, h := o[0].out[dir][mi][lo:hi], o[1].out[dir][mi][lo:hi]
					if !bytes.Equal(b, h) {
						t.mismatch(Mismatch{
							Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: blk, Direction: name,
							Method: m, Input: in[lo:hi], Base: b, Head: h, Length: bs,
						})
					}
				}
			}
		}
	}
	return nil
}

// consistency records the blocks where a batch method's output differs from the single-block output on side s.
func (t *tally) consistency(s int, j *job, k *keyInput, dir int, method string, single, batch []byte) {
	if bytes.Equal(single, batch) {
		return
	}
	bs := j.blockSize
	for blk := range j.blocks {
		lo, hi := blk*bs, (blk+1)*bs
		if bytes.Equal(single[lo:hi], batch[lo:hi]) {
			continue
		}
		if s == 0 {
			t.c.InconsistentBase++
		} else {
			t.c.InconsistentHead++
		}
		if len(t.c.Inconsistencies) < MaxExamples {
			t.c.Inconsistencies = append(t.c.Inconsistencies, Inconsistency{
				Side: [2]record.Side{record.Base, record.Head}[s], Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: blk,
				Direction: directions[dir], Method: method, Input: k.input(dir)[lo:hi],
				Single: single[lo:hi], Batch: batch[lo:hi],
			})
		}
	}
}

func equalAll(a, b [][]byte) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func statusText(k keyOut) string {
	switch k.status {
	case statusOK:
		return "key accepted"
	case statusError:
		return "constructor error: " + k.msg
	default:
		return k.msg
	}
}
