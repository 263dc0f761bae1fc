package differential

import (
	"bytes"
	"fmt"

	"github.com/perfgate/perfgate/record"
)

// compare reads one job's outputs from both sides, hashes them, and records the cases that
// differ between base and head, and the cases where a side disagrees with itself (chunked against
// one call, Open against Seal).
func (j *msgJob) compare(t *tally, base, head *outReader) error {
	nOut := j.family.outputs()
	for _, k := range j.keys {
		var status [2][]byte
		for s, r := range []*outReader{base, head} {
			var err error
			if status[s], err = r.field(); err != nil {
				return err
			}
			t.write(s, -1, status[s])
		}
		var outs [2][][][]byte // [side][case][output]
		for s, r := range []*outReader{base, head} {
			if len(status[s]) > 0 {
				continue
			}
			for range k.cases {
				var o [][]byte
				for i := range nOut {
					f, err := r.field()
					if err != nil {
						return err
					}
					o = append(o, f)
					t.write(s, j.family.outputDirection(i), f)
				}
				outs[s] = append(outs[s], o)
			}
		}
		if !bytes.Equal(status[0], status[1]) {
			t.mismatch(record.Mismatch{Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Nonce: k.nonce, Block: -1,
				Direction: "setup", Method: j.ctor, Part: "setup",
				Note: "base: " + keyStatus(status[0]) + "; head: " + keyStatus(status[1])})
			continue
		}
		if len(status[0]) > 0 {
			continue
		}
		for ci := range k.cases {
			j.family.compareCase(t, j, &k, &k.cases[ci], outs[0][ci], outs[1][ci])
		}
	}
	return nil
}

func keyStatus(b []byte) string {
	if len(b) == 0 {
		return "key accepted"
	}
	return "constructor error: " + string(b)
}

// caseMismatch returns the Mismatch of case c of key k, to be completed with what differed.
func caseMismatch(j *msgJob, k *msgKey, c *msgCase) record.Mismatch {
	m := record.Mismatch{Constructor: j.ctor, KeySize: j.keySize, Key: k.key, Block: -1, Input: c.msg, Length: len(c.msg),
		Nonce: k.nonce, AD: c.ad}
	if j.family.sealed() {
		m.Nonce = c.nonce
	}
	return m
}

// reportCase records the mismatch m of output i, base b[i] and head h[i].
func reportCase(t *tally, m record.Mismatch, b, h [][]byte, i int, dir, method, part, note string) {
	m.Direction, m.Method, m.Part, m.Note, m.Base, m.Head = dir, method, part, note, b[i], h[i]
	t.mismatch(m)
}

// firstDifference describes two outputs that differ; what ("keystream", "digest") is also the part,
// unless their lengths differ.
func firstDifference(what string, b, h []byte) (part, note string) {
	if len(b) != len(h) {
		return "length", fmt.Sprintf("%s: base %d bytes, head %d", what, len(b), len(h))
	}
	return what, fmt.Sprintf("%s differs from byte %d of %d", what, firstDiff(b, h), len(b))
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// chunkAt describes where byte at falls among the chunks.
func chunkAt(chunks []int, at int) string {
	off := 0
	for i, n := range chunks {
		if at < off+n {
			return fmt.Sprintf("%v: in chunk %d (bytes %d to %d), %d bytes after its start", chunks, i, off,
				off+n-1, at-off)
		}
		off += n
	}
	return fmt.Sprint(chunks)
}

// msgInconsistent records that side disagrees with itself on a message (Block -1).
func msgInconsistent(t *tally, side int, in record.Inconsistency) {
	in.Block = -1
	t.inconsistent(side, in)
}
