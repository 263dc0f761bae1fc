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

// dirMethods returns the methods the harness runs in direction dir, in output order: the single-block method,
// then the job's batch methods of that direction.
func (j *blockJob) dirMethods(dir int) []string {
	prefix := [2]string{"Encrypt", "Decrypt"}[dir]
	ms := []string{prefix}
	for _, m := range j.methods {
		if strings.HasPrefix(m, prefix) {
			ms = append(ms, m)
		}
	}
	return ms
}

// keyOut is one key's outputs on one side: out[dir][method] holds blocks × blockSize bytes.
type keyOut struct {
	status byte
	msg    string
	out    [2][][]byte
}

func (j *blockJob) readKey(r *outReader) (keyOut, error) {
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

// compare reads the job's outputs from both sides, hashes them and records every output block that differs
// between base and head, and every batch block that differs from the single-block result on the same side.
func (j *blockJob) compare(t *tally, base, head *outReader) error {
	methods := [2][]string{j.dirMethods(0), j.dirMethods(1)}
	for ki := range j.keys {
		k := &j.keys[ki]
		var o [2]keyOut
		for s, r := range []*outReader{base, head} {
			var err error
			if o[s], err = j.readKey(r); err != nil {
				return err
			}
			t.write(s, -1, []byte{o[s].status})
			for dir := range directions {
				for mi, out := range o[s].out[dir] {
					t.write(s, dir, out)
					if mi > 0 {
						j.consistency(t, s, k, dir, methods[dir][mi], o[s].out[dir][0], out)
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
			j.diffKey(t, k, methods, o)
		}
	}
	return nil
}

// diffKey records the blocks of one key whose outputs differ between the sides.
func (j *blockJob) diffKey(t *tally, k *keyInput, methods [2][]string, o [2]keyOut) {
	bs := j.blockSize
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
					t.mismatch(record.Mismatch{
						Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: blk, Direction: name,
						Method: m, Input: in[lo:hi], Base: b, Head: h, Length: bs,
					})
				}
			}
		}
	}
}

// consistency records the blocks where a batch method's output differs from the single-block output on side s.
func (j *blockJob) consistency(t *tally, s int, k *keyInput, dir int, method string, single, batch []byte) {
	if bytes.Equal(single, batch) {
		return
	}
	bs := j.blockSize
	for blk := range j.blocks {
		lo, hi := blk*bs, (blk+1)*bs
		if bytes.Equal(single[lo:hi], batch[lo:hi]) {
			continue
		}
		t.inconsistent(s, record.Inconsistency{
			KeySize: j.keySize, Key: k.key, Block: blk, Direction: directions[dir], Method: method,
			Input: k.input(dir)[lo:hi], Single: single[lo:hi], Batch: batch[lo:hi],
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
