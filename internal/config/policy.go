package config

import (
	"maps"
	"slices"

	"github.com/perfgate/perfgate/internal/gate"
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
		Limits:           cloneLimits(c.Limits),
	}
}

func cloneLimits(m map[string]map[string]float64) map[string]map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]float64, len(m))
	for k, v := range m {
		out[k] = maps.Clone(v)
	}
	return out
}
