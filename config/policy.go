package config

import (
	"maps"
	"slices"

	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/record"
)

// Policy returns the gate policy of c.
func (c *Config) Policy() gate.Policy {
	return gate.Policy{
		Thresholds:       maps.Clone(c.Thresholds),
		AcknowledgeLabel: c.AcknowledgeLabel,
		Acknowledged:     c.Acknowledged,
		MaxSizeGrowth:    c.MaxSizeGrowth,
		Differential:     c.Differential,
		ConstantTime:     record.ConstantTimeMode(c.ConstantTime),
		GateUnits:        slices.Clone(c.GateUnits),
		OnInconclusive:   c.OnInconclusive,
	}
}
