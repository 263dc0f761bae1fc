package report

import (
	"strings"

	"github.com/perfgate/perfgate/record"
)

// maxPolicyChanges bounds the changes listed; an artifact may hold any number.
const maxPolicyChanges = 20

// PolicyLine says, key by key, how head's configuration file would change the gate policy that
// base's file set, and that head's values were not used; "" when the policy came from head or
// nothing changed. Every value goes through esc: head's values are untrusted text, and so is all of
// an artifact's result.json.
func PolicyLine(r *record.Result, esc func(string) string) string {
	p := r.Policy
	if p.From != record.Base || len(p.Changes) == 0 {
		return ""
	}
	value := func(s string) string {
		if s == "" {
			return "(not set)"
		}
		return esc(Clip(s, 100))
	}
	var parts []string
	for i, c := range p.Changes {
		if i == maxPolicyChanges {
			parts = append(parts, "…")
			break
		}
		name := esc(Clip(c.Key, 40))
		if c.Item != "" {
			name += " " + esc(Clip(c.Item, 100))
		}
		parts = append(parts, name+" "+value(c.Base)+" → "+value(c.Head))
	}
	return "this pull request changes the gate: " + strings.Join(parts, "; ") +
		". The gate used base's configuration; the change applies after merge."
}
