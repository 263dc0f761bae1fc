package perfgate

import "github.com/perfgate/perfgate/record"

// The records of a comparison live in package record, which every stage produces directly; these names keep the
// root package's API (perfgate.Result, perfgate.ClassSlower, …) for the renderers and the command.

// Schema is the version of the result.json layout.
const Schema = record.Schema

// Exit codes of the command line and the Action.
const (
	ExitPass      = 0 // the gate passed
	ExitFail      = 1 // the gate failed
	ExitUsage     = 2 // usage or configuration error
	ExitCannotRun = 3 // could not run: base does not build, git error, …
)

type (
	Result        = record.Result
	Revision      = record.Revision
	Verdict       = record.Verdict
	Status        = record.Status
	Benchmark     = record.Benchmark
	Summary       = record.Summary
	Paired        = record.Paired
	Class         = record.Class
	Failure       = record.Failure
	FailureKind   = record.FailureKind
	Functional    = record.Functional
	TestRun       = record.TestRun
	Differential  = record.Differential
	DiffStatus    = record.DiffStatus
	DiffCipher    = record.Cipher
	Mismatch      = record.Mismatch
	Hex           = record.Hex
	Sizes         = record.Sizes
	SectionSize   = record.SectionSize
	PackageSize   = record.PackageSize
	SymbolSize    = record.SymbolSize
	Env           = record.Env
	Method        = record.Method
	Side          = record.Side
	Check         = record.Check
	Family        = record.Family
	Inconsistency = record.Inconsistency
	PolicyOrigin  = record.PolicyOrigin
	PolicyChange  = record.PolicyChange
	// ShardInfo is a shard's record in a partial result (Result.Shard); Config.Shard is what the flag asks for.
	ShardInfo = record.Shard
)

// Names of the gate's checks, in Verdict.Checks.
const (
	CheckBenchmarks   = record.CheckBenchmarks
	CheckDifferential = record.CheckDifferential
	CheckSize         = record.CheckSize
)

// Families of the differential's constructors.
const (
	FamilyBlock  = record.FamilyBlock
	FamilyAEAD   = record.FamilyAEAD
	FamilyStream = record.FamilyStream
	FamilyHash   = record.FamilyHash
)

// Verdict statuses.
const (
	StatusPass  = record.StatusPass
	StatusFail  = record.StatusFail
	StatusError = record.StatusError
)

// Benchmark classes.
const (
	ClassSlower       = record.ClassSlower
	ClassFaster       = record.ClassFaster
	ClassUnchanged    = record.ClassUnchanged
	ClassInconclusive = record.ClassInconclusive
	ClassFailed       = record.ClassFailed
)

// Differential statuses.
const (
	DiffIdentical     = record.DiffIdentical
	DiffMismatch      = record.DiffMismatch
	DiffNotComparable = record.DiffNotComparable
	DiffSkipped       = record.DiffSkipped
	DiffError         = record.DiffError
)

// FailureRemoved is the Failure kind of a base benchmark that head does not have.
const FailureRemoved = record.FailureRemoved
