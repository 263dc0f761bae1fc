package differential

import (
	"bytes"
	"fmt"
	"go/types"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/record"
)

// aeadFamily is the AEADs: constructors func(key []byte) (T, error) with T a crypto/cipher.AEAD,
// and every block cipher through crypto/cipher.NewGCM ("NewCipher/GCM") when its blocks are 16
// bytes. Each message is Sealed with a random nonce and additional data, the result Opened, and
// Opened again with one bit flipped, which must fail.
type aeadFamily struct{}

// Outputs per case, in the order the harness writes them: Seal's, 0 and Open's plaintext or 1, the
// tampered Open (0 rejected, 1 accepted, 2 nothing to tamper with), then Seal and Open in place
// (Seal(pt[:0], …) and Open(ct[:0], …)).
const aeadSeal, aeadOpen, aeadTampered, aeadSealInPlace, aeadOpenInPlace = 0, 1, 2, 3, 4

// aeadIface is crypto/cipher.AEAD.
var aeadIface = types.NewInterfaceType([]*types.Func{
	method("NonceSize", nil, intType),
	method("Open", byteParams("dst", "nonce", "ciphertext", "additionalData"), byteSlice, errorType),
	method("Overhead", nil, intType),
	method("Seal", byteParams("dst", "nonce", "plaintext", "additionalData"), byteSlice),
}, nil).Complete()

// gcmSuffix names the AEAD made of a block constructor and crypto/cipher.NewGCM: "NewCipher/GCM".
const gcmSuffix = "/GCM"

func (aeadFamily) kind() record.Family         { return record.FamilyAEAD }
func (aeadFamily) directions() []string        { return []string{"seal", "open"} }
func (aeadFamily) methods() []string           { return []string{"Seal", "Open"} }
func (aeadFamily) outputs() int                { return 5 }
func (aeadFamily) sealed() bool                { return true }
func (aeadFamily) block(probeSize) int         { return 16 } // GCM, Poly1305
func (aeadFamily) outputDirection(out int) int { return [5]int{0, 1, 1, 0, 1}[out] }

func (aeadFamily) shape() string {
	return "func(key []byte) (T, error) with T a crypto/cipher.AEAD"
}

func (aeadFamily) match(fn *types.Func, sig *types.Signature) (ctor, bool, string) {
	c, _, ok, why := ifaceCtor(fn, sig, record.FamilyAEAD, aeadIface, [3]bool{1: true}, true)
	return c, ok, why
}

func (aeadFamily) entries(c ctor) []string {
	switch c.Family {
	case record.FamilyBlock:
		return []string{wrapEntry(c, c.Name+gcmSuffix, 1, harness.MaxKeySize, 0, "aeadMaker", "cipher.AEAD", "key",
			"cipher.NewGCM(%s)")}
	case record.FamilyAEAD:
		return []string{wrapEntry(c, c.Name, 1, harness.MaxKeySize, 0, "aeadMaker", "cipher.AEAD", "key", "%s, nil")}
	}
	return nil
}

func (f aeadFamily) instances(b, h *ctor) []instance {
	if h.Family == record.FamilyBlock {
		return []instance{{name: h.Name + gcmSuffix, family: f, typ: "cipher.AEAD", ctors: [2]*ctor{b, h},
			derived: true}}
	}
	return ownInstance(f, b, h)
}

func (f aeadFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	return planMessages(cfg, f, in, probes)
}

// compareCase records at most one mismatch per case (Seal's output, else Open's), a head that
// accepts a forgery, and each side's inconsistencies: an Open that does not return the message
// Sealed, and a base that accepts a forgery.
func (aeadFamily) compareCase(t *tally, j *msgJob, k *msgKey, c *msgCase, b, h [][]byte) {
	m := caseMismatch(j, k, c)
	switch {
	case !bytes.Equal(b[aeadSeal], h[aeadSeal]):
		part, note := sealDifference(len(c.msg), b[aeadSeal], h[aeadSeal])
		reportCase(t, m, b, h, aeadSeal, "seal", "Seal", part, note)
	case !bytes.Equal(b[aeadOpen], h[aeadOpen]):
		reportCase(t, m, b, h, aeadOpen, "open", "Open", "open", "Open of the sealed message: base "+
			openText(b[aeadOpen])+", head "+openText(h[aeadOpen]))
	case !bytes.Equal(b[aeadSealInPlace], h[aeadSealInPlace]):
		_, note := sealDifference(len(c.msg), b[aeadSealInPlace], h[aeadSealInPlace])
		reportCase(t, m, b, h, aeadSealInPlace, "seal", "Seal", "in place", "Seal(plaintext[:0], …): "+note)
	case !bytes.Equal(b[aeadOpenInPlace], h[aeadOpenInPlace]):
		reportCase(t, m, b, h, aeadOpenInPlace, "open", "Open", "in place", "Open(ciphertext[:0], …) of the "+
			"sealed message: base "+openText(b[aeadOpenInPlace])+", head "+openText(h[aeadOpenInPlace]))
	}
	if h[aeadTampered][0] == 1 {
		reportCase(t, m, b, h, aeadTampered, "open", "Open", "forgery", fmt.Sprintf("head's Open accepted the "+
			"ciphertext with byte %d XOR %#02x (base: %s)", int(c.tamperAt%uint32(len(h[aeadSeal]))), c.tamperMask,
			map[byte]string{0: "rejected", 1: "accepted"}[b[aeadTampered][0]]))
	}
	for s, o := range [2][][]byte{b, h} {
		if !bytes.Equal(o[aeadOpen], append([]byte{0}, c.msg...)) {
			msgInconsistent(t, s, record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "open", Method: "Open",
				Input: c.msg, Single: c.msg, Batch: o[aeadOpen], Part: "round trip", Length: len(c.msg),
				Note: "Open of Seal's output: " + openText(o[aeadOpen])})
		}
		for _, p := range [][3]int{{aeadSeal, aeadSealInPlace, 0}, {aeadOpen, aeadOpenInPlace, 1}} {
			if !bytes.Equal(o[p[0]], o[p[1]]) {
				method := [2]string{"Seal", "Open"}[p[2]]
				msgInconsistent(t, s, record.Inconsistency{KeySize: j.keySize, Key: k.key,
					Direction: [2]string{"seal", "open"}[p[2]], Method: method, Input: c.msg, Single: o[p[0]],
					Batch: o[p[1]], Part: "in place", Length: len(c.msg),
					Note: method + " in place differs from " + method + " into a new slice"})
			}
		}
		if s == 0 && o[aeadTampered][0] == 1 {
			msgInconsistent(t, s, record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "open", Method: "Open",
				Input: c.msg, Part: "forgery", Length: len(c.msg),
				Note: "base's Open accepted a ciphertext with one bit flipped"})
		}
	}
}

// sealDifference says what differs between two Seal outputs of a message of n bytes: their length,
// the ciphertext (the first n bytes) or the tag.
func sealDifference(n int, b, h []byte) (part, note string) {
	if len(b) != len(h) {
		return "length", fmt.Sprintf("ciphertext and tag: base %d bytes, head %d", len(b), len(h))
	}
	at := firstDiff(b, h)
	if at < n {
		return "ciphertext", fmt.Sprintf("ciphertext differs from byte %d of %d", at, n)
	}
	return "tag", fmt.Sprintf("ciphertext identical, tag differs from its byte %d", at-n)
}

func openText(o []byte) string {
	if len(o) > 0 && o[0] == 0 {
		return fmt.Sprintf("opened, %d bytes", len(o)-1)
	}
	return "failed"
}

func (aeadFamily) harness() string { return harness.AEAD }
