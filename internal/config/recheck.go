package config

import (
	"slices"

	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/record"
)

// Recheck decides res again under c's gate policy (gate.Recheck): c is the configuration of the
// default branch's checkout, which perfgate comment trusts, unlike the artifact res was read from.
// It gathers what the gate needs: c's policy, acknowledged when the pull request's labels, as
// GitHub reports them, hold c's acknowledge label, and the alpha and threshold c measures with.
func (c *Config) Recheck(res *record.Result, labels []string) {
	p := c.Policy()
	p.Acknowledged = slices.Contains(labels, c.AcknowledgeLabel)
	gate.Recheck(res, p, c.Alpha, c.Threshold)
}
