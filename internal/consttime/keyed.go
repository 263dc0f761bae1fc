package consttime

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/perfgate/perfgate/internal/differential"
	"github.com/perfgate/perfgate/record"
)

// sumCall is how the driver calls a keyed one-shot function.
//
// Keyed hashes and MACs: the key is the secret, traced like a cipher key. Two shapes, as
// differential's families (hash.go, sum.go) know them:
//
//   - a keyed hash constructor func(key []byte) T or (T, error), T a hash.Hash (hash.Hash64, a
//     keyed BLAKE2's New256(key), a SipHash-style New(key), an HMAC bound to one hash): KeySetup is
//     the constructor, and "Sum" writes a message to a fresh hash and sums it;
//   - a keyed one-shot function, such as poly1305's Sum(out *[16]byte, m []byte, key *[32]byte) or
//     Sum64(msg, key []byte): "Sum" calls it on the key and a message; there is no key setup of its
//     own.
//
// An unkeyed hash has no secret of its own to trace.
type sumCall struct {
	// the key's length when it is an array (the driver tries no other); 0 for a []byte key
	KeyArray int
	Code     string // the body of func(key, msg, dst []byte): the call, its digest copied into dst
}

// keyedTarget returns the target of a keyed hash constructor or a keyed one-shot function; t is
// what asTarget made of fn and c differential's match.
func keyedTarget(fn *types.Func, t target, c differential.Constructor) (target, bool) {
	switch {
	case c.Family == record.FamilyHash && c.Args == 1:
		t.Nonce = false
		return t, true
	case c.Family == record.FamilySum:
		sc, ok := sumCallOf(fn)
		if !ok {
			return t, false
		}
		t.Nonce, t.Err, t.Sum = false, false, sc
		return t, true
	}
	return t, false
}

// sumCallOf reads a one-shot function's parameters as differential's sum family does (a []byte is
// the message, or the key when it is named key or k; a [K]byte the key; a *[N]byte the digest's out
// parameter, or the key when the digest is already placed) and writes the call; ok is false when it
// takes no key.
func sumCallOf(fn *types.Func) (*sumCall, bool) {
	sig := fn.Type().(*types.Signature)
	qual := func(p *types.Package) string {
		if p == fn.Pkg() {
			return "gated"
		}
		return p.Name()
	}
	sc := &sumCall{}
	var pre, args, post []string
	keyed, placed := false, false
	result := ""
	if sig.Results().Len() == 1 {
		switch sig.Results().At(0).Type().Underlying().(type) {
		case *types.Array:
			result, placed = "copy(dst, r[:])", true
		case *types.Basic: // uint32 or uint64
			result, placed = "dst[0] = byte(r)", true
		}
	}
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		typ := v.Type()
		ptr := false
		if p, ok := typ.Underlying().(*types.Pointer); ok {
			typ, ptr = p.Elem(), true
		}
		name := fmt.Sprintf("a%d", i)
		switch u := typ.Underlying().(type) {
		case *types.Slice:
			if n := strings.ToLower(v.Name()); n == "key" || n == "k" {
				args, keyed = append(args, "key"), true
			} else {
				args = append(args, "msg")
			}
		case *types.Array:
			pre = append(pre, fmt.Sprintf("var %s %s", name, types.TypeString(typ, qual)))
			arg := name
			if ptr {
				arg = "&" + name
			}
			args = append(args, arg)
			if ptr && !placed {
				placed = true
				post = append(post, fmt.Sprintf("copy(dst, %s[:])", name))
				continue
			}
			keyed, sc.KeyArray = true, int(u.Len())
			pre = append(pre, fmt.Sprintf("copy(%s[:], key)", name))
		default:
			return nil, false
		}
	}
	if !keyed {
		return nil, false
	}
	call := "gated." + fn.Name() + "(" + strings.Join(args, ", ") + ")"
	if result != "" {
		call = "r := " + call
		post = append([]string{result}, post...)
	}
	sc.Code = strings.Join(append(append(pre, call), post...), "\n")
	return sc, true
}
