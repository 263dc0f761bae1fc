// Package record is the schema of result.json: the types of one perfgate comparison's Result and
// of the records its phases produce, their typed constants (sides, classes, failure kinds,
// differential statuses, verdict statuses, units, note codes, exit codes) and their JSON.
//
// Every stage produces these types directly: package bench returns Benchmark and Failure values,
// package differential a Differential, package sizes a Sizes, and internal/pipeline assembles them
// into a Result without copying field by field. A field added to a record therefore reaches
// result.json with no further edit.
//
// The package is a leaf: it imports nothing of perfgate and computes nothing. Its methods only read
// a record's own fields; deciding belongs to internal/gate (the verdict, the constant-time sites
// compared, whether a bound rules out a slowdown) and wording to internal/report and internal/text.
// The fields that scripts may rely on are listed in the comment on Result; a change to any of them
// bumps Schema.
package record
