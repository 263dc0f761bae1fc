// Package gate decides whether a pull request may merge: Decide turns a record.Result and a Policy
// into a record.Verdict, and Apply puts that verdict into the result. It is the one package that
// computes a Verdict: Judge is the verdict of a comparison (internal/pipeline) and of a merge of
// shards (shard.Merge), Recheck that of an artifact under a trusted policy (perfgate comment,
// through config.Recheck); their callers only gather the result and the policy.
//
// It is pure: it reads typed fields of the result (classes, failure kinds, differential statuses,
// the method's metric) and never message text, and it changes nothing it is given. What comes in is
// a Result that the phases of internal/pipeline (or shard.Merge) assembled and a Policy that
// package config made of the user's keys; what goes out is the Verdict: pass, fail or error, its
// exit code, its reasons and notes, and which checks ran.
package gate
