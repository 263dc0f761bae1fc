// Package shard splits one comparison across the machines of a job matrix and puts the parts
// together again.
//
// NewPlan assigns each package's checks and each top-level benchmark to one of n shards, balanced
// by the costs an earlier run measured (ReadCosts). Each shard runs its part with internal/pipeline
// and writes a partial result; Merge reads the shards' results directories, refuses parts of
// different comparisons, and Combine joins them into one ordinary record.Result (Holm's correction
// redone over the union), which gate.Judge decides under the policy the shards ran with: shard
// gathers the parts and the policy, and decides nothing itself.
package shard
