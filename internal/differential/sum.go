package differential

import (
	"bytes"
	"fmt"
	"go/types"
	"strings"

	"github.com/perfgate/perfgate/internal/differential/harness"
	"github.com/perfgate/perfgate/record"
)

// sumFamily is the one-shot functions: a message []byte in, a digest or tag out, such as func
// Sum256(data []byte) [32]byte, func Sum64(b []byte) uint64 or poly1305's func Sum(out *[16]byte, m
// []byte, key *[32]byte). The digest is a result of type [N]byte, uint32 or uint64, or the first
// parameter of type *[N]byte when there is no result; the key, when there is one, is a *[K]byte or
// [K]byte parameter, or a []byte parameter named key. Each message is summed twice; the two sums
// must agree and the message must be left as it was.
type sumFamily struct{}

// Outputs per case: the sum, the sum of a second call (on a fresh copy of the message), the message
// after the first call.
const sumOnce, sumAgain, sumMessage = 0, 1, 2

// sumShape is where a one-shot function takes its message, key and digest.
type sumShape struct {
	Params  []sumParam
	Result  string // "array", "uint32", "uint64", or "" when the digest goes to an out parameter
	KeySize int    // an array key's length; -1 for a []byte key; 0 for none
}

// sumParam is one parameter: its role ("msg", "key" or "out"), its Go type in the harness
// (qualified by "gated"), and for an array, pointer or not, its length.
type sumParam struct {
	Role, Type string
	Array      int
	Pointer    bool
}

func (sumFamily) kind() record.Family     { return record.FamilySum }
func (sumFamily) directions() []string    { return []string{"sum"} }
func (sumFamily) methods() []string       { return nil }
func (sumFamily) outputs() int            { return 3 }
func (sumFamily) sealed() bool            { return false }
func (sumFamily) outputDirection(int) int { return 0 }
func (sumFamily) block(probeSize) int     { return 64 }

func (sumFamily) shape() string {
	return "one-shot functions func([out *[N]byte, ]msg []byte[, key *[K]byte]) with a [N]byte, uint32 or " +
		"uint64 result or an out parameter"
}

// match recognises a one-shot function; whatever does not fit its shape is not one (ok false).
func (sumFamily) match(fn *types.Func, sig *types.Signature) (ctor, bool, string) {
	c := ctor{Name: fn.Name(), Family: record.FamilySum, Args: sig.Params().Len()}
	if sig.Variadic() || sig.Results().Len() > 1 {
		return c, false, ""
	}
	qual := func(p *types.Package) string {
		if p == fn.Pkg() {
			return "gated"
		}
		return p.Name()
	}
	if sig.Results().Len() == 1 {
		t := sig.Results().At(0).Type()
		switch u := t.Underlying().(type) {
		case *types.Array:
			if types.Identical(u.Elem(), types.Typ[types.Byte]) {
				c.Sum.Result = "array"
			}
		case *types.Basic:
			if u.Kind() == types.Uint32 || u.Kind() == types.Uint64 {
				c.Sum.Result = u.Name()
			}
		}
		if c.Sum.Result == "" {
			return c, false, ""
		}
		c.Type = types.TypeString(t, func(p *types.Package) string { return p.Name() })
	}
	var msgs, keys, outs int
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		p, ok := sumParamOf(v, qual)
		switch {
		case !ok:
			return c, false, ""
		case p.Role == "out" && (c.Sum.Result != "" || outs > 0):
			p.Role = "key"
		}
		if p.Role == "key" {
			c.Sum.KeySize = p.Array
			if !p.Pointer && p.Array == 0 {
				c.Sum.KeySize = -1
			}
		}
		counts := map[string]*int{"msg": &msgs, "key": &keys, "out": &outs}
		*counts[p.Role]++
		if p.Role == "out" {
			c.Type = p.Type
		}
		c.Sum.Params = append(c.Sum.Params, p)
	}
	if msgs != 1 || keys > 1 || outs+len(c.Sum.Result) == 0 {
		return c, false, ""
	}
	return c, true, ""
}

// sumParamOf classifies one parameter: a []byte is the message, or the key when it is named key; a
// *[N]byte an out parameter (match makes it the key when the digest is already placed); a [N]byte
// the key.
func sumParamOf(v *types.Var, qual types.Qualifier) (sumParam, bool) {
	p := sumParam{Type: types.TypeString(v.Type(), qual)}
	if named, ok := v.Type().(*types.Named); ok && qual(named.Obj().Pkg()) != "gated" {
		return p, false
	}
	t := v.Type().Underlying()
	if ptr, ok := t.(*types.Pointer); ok {
		if named, ok := ptr.Elem().(*types.Named); ok && qual(named.Obj().Pkg()) != "gated" {
			return p, false
		}
		t, p.Pointer = ptr.Elem().Underlying(), true
	}
	switch u := t.(type) {
	case *types.Slice:
		if p.Pointer || !types.Identical(u.Elem(), types.Typ[types.Byte]) {
			return p, false
		}
		p.Role = "msg"
		if n := strings.ToLower(v.Name()); n == "key" || n == "k" {
			p.Role = "key"
		}
	case *types.Array:
		if !types.Identical(u.Elem(), types.Typ[types.Byte]) || u.Len() == 0 || u.Len() > harness.MaxKeySize {
			return p, false
		}
		p.Array, p.Role = int(u.Len()), "key"
		if p.Pointer {
			p.Role = "out"
		}
	default:
		return p, false
	}
	return p, true
}

func (sumFamily) entries(c ctor) []string {
	if c.Family != record.FamilySum {
		return nil
	}
	var pre, args []string
	for _, p := range c.Sum.Params {
		switch {
		case p.Role == "msg":
			args = append(args, "msg")
		case p.Role == "key" && p.Array == 0:
			args = append(args, "key")
		case p.Role == "key":
			pre = append(pre, fmt.Sprintf("var k [%d]byte\ncopy(k[:], key)", p.Array))
			args = append(args, addrOf(p, "k"))
		default:
			pre = append(pre, fmt.Sprintf("var out [%d]byte", p.Array))
			args = append(args, addrOf(p, "out"))
		}
	}
	list := strings.Join(args, ", ")
	if c.Alias != "" { // the types of an oracle's package
		list = strings.ReplaceAll(list, "gated.", c.Alias+".")
	}
	call := c.call() + "(" + list + ")"
	body := map[string]string{
		"":       call + "\nreturn out[:]",
		"array":  "r := " + call + "\nreturn r[:]",
		"uint32": "return u32(uint32(" + call + "))",
		"uint64": "return u64(uint64(" + call + "))",
	}[c.Sum.Result]
	keyLo, keyHi := c.Sum.KeySize, c.Sum.KeySize
	if c.Sum.KeySize < 0 {
		keyLo, keyHi = 0, harness.MaxKeySize
	}
	return []string{harness.Entry(c.Name, keyLo, keyHi, 0, fmt.Sprintf(
		"messageEntry(summer(func(key, msg []byte) []byte {\n%s\n%s\n}))", strings.Join(pre, "\n"), body))}
}

// addrOf is the argument for parameter p of the local array v: v or &v, converted to p's type.
func addrOf(p sumParam, v string) string {
	if p.Pointer {
		v = "&" + v
	}
	return "(" + p.Type + ")(" + v + ")"
}

func (f sumFamily) instances(b, h *ctor) []instance { return ownInstance(f, b, h) }

func (f sumFamily) plan(cfg *Config, in instance, probes [2]map[sizeKey]probeSize) (*record.Cipher, []job) {
	c, jobs := planMessages(cfg, f, in, probes)
	if c != nil {
		c.Methods = []string{in.name}
	}
	return c, jobs
}

// compareCase records a sum that differs between the sides, and on each side a second call that
// sums differently, or a call that changes the message.
func (sumFamily) compareCase(t *tally, j *msgJob, k *msgKey, c *msgCase, b, h [][]byte) {
	m := caseMismatch(j, k, c)
	if !bytes.Equal(b[sumOnce], h[sumOnce]) {
		part, note := firstDifference("digest", b[sumOnce], h[sumOnce])
		reportCase(t, m, b, h, sumOnce, "sum", j.ctor, part, note)
	}
	for s, o := range [2][][]byte{b, h} {
		in := record.Inconsistency{KeySize: j.keySize, Key: k.key, Direction: "sum", Method: j.ctor, Input: c.msg,
			Length: len(c.msg)}
		switch {
		case !bytes.Equal(o[sumOnce], o[sumAgain]):
			in.Single, in.Batch, in.Part = o[sumOnce], o[sumAgain], "sum"
			in.Note = "a second call on the same message returns another digest"
			msgInconsistent(t, s, in)
		case !bytes.Equal(o[sumMessage], c.msg):
			in.Single, in.Batch, in.Part = c.msg, o[sumMessage], "input"
			in.Note = "the call changed its message argument"
			msgInconsistent(t, s, in)
		}
	}
}

func (sumFamily) harness() string { return harness.Sum }
