package differential

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/record"
)

// Directions of a block cipher, in the order the harness runs them.
var directions = [2]string{"encrypt", "decrypt"}

// A blockRun is one output of a block job, per key and direction, in the order the harness writes
// them (runBlock): the single-block method block by block, each batch method in one call, both
// again in place for the first inPlaceKeys keys, and for the first lengthKeys keys the single-block
// method over the long input and each batch method on each of its prefixes of batchLengths blocks.
type blockRun struct {
	method string // "Encrypt", "EncryptBlocks", …
	note   string // how it was called, when not plainly: "in place", "one call of 7 blocks"
	long   bool   // it reads the job's long input
	blocks int    // how many blocks it writes
	ref    int    // the run whose first blocks it must equal; -1 for a single-block run
}

// batchOf returns the job's batch methods of direction dir.
func (j *blockJob) batchOf(dir int) []string {
	var ms []string
	for _, m := range j.methods {
		if strings.HasPrefix(m, [2]string{"Encrypt", "Decrypt"}[dir]) {
			ms = append(ms, m)
		}
	}
	return ms
}

// lengths returns the block counts of the batch calls on the long input: batchLengths, when there
// are batch methods.
func (j *blockJob) lengths() []int {
	if len(j.methods) == 0 {
		return nil
	}
	return batchLengths
}

// runs returns the runs of key number key in direction dir.
func (j *blockJob) runs(dir, key int) []blockRun {
	single := [2]string{"Encrypt", "Decrypt"}[dir]
	batch := j.batchOf(dir)
	rs := []blockRun{{method: single, blocks: j.blocks, ref: -1}}
	for _, m := range batch {
		rs = append(rs, blockRun{method: m, blocks: j.blocks})
	}
	for _, m := range append([]string{single}, batch...) {
		if key < inPlaceKeys {
			rs = append(rs, blockRun{method: m, note: "in place", blocks: j.blocks})
		}
	}
	if key >= lengthKeys || len(batch) == 0 {
		return rs
	}
	long, ref := len(j.long[dir])/j.blockSize, len(rs)
	rs = append(rs, blockRun{method: single, note: fmt.Sprintf("over %d blocks", long), long: true, blocks: long,
		ref: -1})
	for _, m := range batch {
		for _, n := range j.lengths() {
			rs = append(rs, blockRun{method: m, note: fmt.Sprintf("one call of %d blocks", n), long: true, blocks: n,
				ref: ref})
		}
	}
	return rs
}

// input returns what run r of key k reads.
func (j *blockJob) input(k *keyInput, dir int, r blockRun) []byte {
	if r.long {
		return j.long[dir][:r.blocks*j.blockSize]
	}
	return k.input(dir)
}

// keyOut is one key's outputs on one side: out[dir][run] holds the run's blocks.
type keyOut struct {
	status byte
	msg    string
	out    [2][][]byte
}

func (j *blockJob) readKey(r *outReader, runs [2][]blockRun) (keyOut, error) {
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
	for dir := range directions {
		for _, run := range runs[dir] {
			b, err := r.next(run.blocks * j.blockSize)
			if err != nil {
				return k, err
			}
			k.out[dir] = append(k.out[dir], b)
		}
	}
	return k, nil
}

// compare reads the job's outputs from both sides, hashes them and records every output block that
// differs between base and head, and every block of a batch or in-place call that differs from the
// single-block result on the same side.
func (j *blockJob) compare(t *tally, base, head *outReader) error {
	for ki := range j.keys {
		k := &j.keys[ki]
		runs := [2][]blockRun{j.runs(0, ki), j.runs(1, ki)}
		var o [2]keyOut
		for s, r := range []*outReader{base, head} {
			var err error
			if o[s], err = j.readKey(r, runs); err != nil {
				return err
			}
			t.write(s, -1, []byte{o[s].status})
			for dir := range directions {
				for ri, out := range o[s].out[dir] {
					t.write(s, dir, out)
					if ref := runs[dir][ri].ref; ref >= 0 {
						j.consistency(t, s, k, dir, runs[dir][ri], o[s].out[dir][ref], out)
					}
				}
			}
		}
		if o[0].status != o[1].status {
			t.mismatch(record.Mismatch{
				Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: -1, Direction: "setup", Method: j.ctor,
				Note: fmt.Sprintf("base: %s; head: %s", statusText(o[0]), statusText(o[1])),
			})
			continue
		}
		if o[0].status == statusOK {
			j.diffKey(t, k, runs, o)
		}
	}
	return nil
}

// diffKey records the blocks of one key whose outputs differ between the sides.
func (j *blockJob) diffKey(t *tally, k *keyInput, runs [2][]blockRun, o [2]keyOut) {
	bs := j.blockSize
	for dir, name := range directions {
		if equalAll(o[0].out[dir], o[1].out[dir]) {
			continue
		}
		for ri, run := range runs[dir] {
			in := j.input(k, dir, run)
			for blk := range run.blocks {
				lo, hi := blk*bs, (blk+1)*bs
				b, h := o[0].out[dir][ri][lo:hi], o[1].out[dir][ri][lo:hi]
				if !bytes.Equal(b, h) {
					t.mismatch(record.Mismatch{
						Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: blk, Direction: name,
						Method: run.method, Input: in[lo:hi], Base: b, Head: h, Length: bs, Note: run.note,
					})
				}
			}
		}
	}
}

// consistency records the blocks where run r's output differs from the single-block output ref on
// side s.
func (j *blockJob) consistency(t *tally, s int, k *keyInput, dir int, r blockRun, ref, out []byte) {
	ref = ref[:len(out)]
	if bytes.Equal(ref, out) {
		return
	}
	bs := j.blockSize
	in := j.input(k, dir, r)
	for blk := range r.blocks {
		lo, hi := blk*bs, (blk+1)*bs
		if bytes.Equal(ref[lo:hi], out[lo:hi]) {
			continue
		}
		t.inconsistent(s, record.Inconsistency{
			KeySize: j.keySize, Key: k.key, Block: blk, Direction: directions[dir], Method: r.method,
			Input: in[lo:hi], Single: ref[lo:hi], Batch: out[lo:hi], Note: r.note,
		})
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
