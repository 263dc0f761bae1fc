// Package record holds the JSON-stable records of one perfgate comparison: the Result written as
// result.json and the records its phases produce, with their typed constants (sides, classes,
// failure kinds, differential statuses, verdict statuses).
//
// Every stage produces these types directly: package bench returns Benchmark and Failure values,
// package differential a Differential, package sizes a Sizes, and the root package assembles them
// into a Result without copying field by field. A field added to a record therefore reaches
// result.json with no further edit.
//
// The package is a leaf: it imports nothing of perfgate and computes nothing. The fields that
// scripts may rely on are listed in the comment on Result; a change to any of them bumps Schema.
package record
