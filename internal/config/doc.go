// Package config holds everything a comparison can be told: Config, the one table of keys (Keys)
// that the flags, the .perfgate.yml file, the GitHub Action's inputs, perfgate compare -h and the
// configuration reference are made of or checked against, and Error, the typed error of a bad
// value, which ExitCode maps to the usage exit code.
//
// Values flow in one direction: Default sets every key's default, Resolve applies the file and then
// the flags or inputs, PolicyFromFile replaces the policy keys with base's file where base decides
// (BasePolicy; the commands read that file from git, config reads no repository), and Policy hands
// the gate its part (gate.Policy).
package config
