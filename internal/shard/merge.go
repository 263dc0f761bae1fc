package shard

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"

	"github.com/perfgate/perfgate/internal/bench"
	"github.com/perfgate/perfgate/internal/evidence"
	"github.com/perfgate/perfgate/internal/gate"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/record"
)

// MergeError is a set of results directories that perfgate merge refuses to combine: they are not
// the shards of one comparison.
type MergeError struct {
	Dir     string // the directory the problem was found in; "" for the set as a whole
	Problem string
}

func (e *MergeError) Error() string {
	if e.Dir == "" {
		return "merge: " + e.Problem
	}
	return "merge: " + e.Dir + ": " + e.Problem
}

// MaxResultFile bounds result.json read from an artifact.
const MaxResultFile = 64 << 20

// Merge combines the results directories dirs, written by the shards of one comparison (perfgate
// compare -shard i/n), into the results directory out, and returns the combined Result with its
// verdict. It is MergeWith without reports.
//
// It refuses (a *MergeError) directories that are not the shards of one comparison: a result that
// is not a shard's, different base or head commits, another configuration or split of the work,
// another perfgate version, and a shard missing or given twice. The benchmarks are judged again as
// one family (Holm over the union), the differential checks, sizes and tests of the packages are
// put side by side, and the verdict is decided with the gate policy the shards ran with. out gets
// result.json, env.json (the first shard's machine), differential.json, bench.txt and sizes.txt
// (the shards' concatenated) and each shard's files under shards/N/.
func Merge(dirs []string, out string) (*record.Result, error) {
	return MergeWith(dirs, out, evidence.Options{})
}

// MergeWith is Merge, whose results directory evidence.Write writes with the reports write asks
// for.
func MergeWith(dirs []string, out string, write evidence.Options) (*record.Result, error) {
	parts, err := readShards(dirs)
	if err != nil {
		return nil, err
	}
	first := parts[0]
	var policy gate.Policy
	if err := json.Unmarshal([]byte(first.Shard.Policy), &policy); err != nil {
		return nil, &MergeError{Dir: dirs[0], Problem: "reading the shard's gate policy: " + err.Error()}
	}
	opt := bench.DefaultStatsOptions
	opt.Alpha, opt.ThresholdPct = first.Method.Alpha, first.Method.Threshold
	for i := range parts {
		// Each shard's files are copied under shards/N/ (writeMerged): its profiles are named from
		// there.
		inShard(parts[i].Why, "shards/"+strconv.Itoa(parts[i].Shard.Index))
	}
	res := Combine(parts, opt)
	res.Package, res.Packages = first.Package, first.Packages
	res.Base, res.Head = first.Base, first.Head
	res.Notes = append(res.Notes, fmt.Sprintf("merged from %d shards, each timed on its own machine; env is shard %d's",
		len(dirs), first.Shard.Index))
	if res.Differential.Status == "" {
		res.Differential = first.Differential
	}
	res = gate.Judge(res, policy, record.ExitPass, nil)
	shardDirs := make([]results.Dir, first.Shard.Count)
	for i, r := range parts {
		shardDirs[r.Shard.Index-1] = results.Dir(dirs[i])
	}
	write.Env, write.Checks, write.Shards = nil, true, shardDirs
	return &res, evidence.Write(results.Dir(out), &res, write)
}

// inShard names the CPU profiles of whys as files under dir of the merged results directory.
func inShard(whys []record.Why, dir string) {
	for i := range whys {
		files := map[record.Side]string{}
		for side, name := range whys[i].ProfileFiles {
			files[side] = path.Join(dir, name)
		}
		if len(files) > 0 {
			whys[i].ProfileFiles = files
		}
	}
}

// readShards reads the shards' results in dirs and refuses them unless they are every shard of one
// comparison, each once.
func readShards(dirs []string) ([]record.Result, error) {
	if len(dirs) == 0 {
		return nil, &MergeError{Problem: "no results directories given"}
	}
	parts := make([]record.Result, len(dirs))
	byIndex := map[int]string{}
	for i, dir := range dirs {
		r, err := results.Dir(dir).ReadResult(MaxResultFile)
		if err != nil {
			return nil, &MergeError{Dir: dir, Problem: err.Error()}
		}
		if r.Shard == nil {
			return nil, &MergeError{Dir: dir,
				Problem: "not a shard's results (result.json has no shard): write them with perfgate compare -shard i/n"}
		}
		parts[i] = *r
		if err := sameComparison(dir, r, dirs[0], &parts[0]); err != nil {
			return nil, err
		}
		s := r.Shard
		if prev, ok := byIndex[s.Index]; ok {
			return nil, &MergeError{Dir: dir, Problem: fmt.Sprintf("shard %d/%d is given twice (also %s)", s.Index, s.Count,
				prev)}
		}
		byIndex[s.Index] = dir
	}
	var missing []int
	for i := 1; i <= parts[0].Shard.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, &MergeError{Problem: fmt.Sprintf("shard %v of %d missing: every shard's results directory is needed",
			missing, parts[0].Shard.Count)}
	}
	return parts, nil
}

// sameComparison refuses r, read from dir, unless it is a shard of the comparison first (read from
// firstDir) is one of.
func sameComparison(dir string, r *record.Result, firstDir string, first *record.Result) error {
	s, s0 := r.Shard, first.Shard
	refuse := func(what, got, want string) error {
		return &MergeError{Dir: dir,
			Problem: fmt.Sprintf("%s %s, but %s has %s: not a shard of the same comparison", what, got, firstDir, want)}
	}
	switch {
	case s.Count != s0.Count:
		return refuse("shard of", strconv.Itoa(s.Count), strconv.Itoa(s0.Count))
	case s.Index < 1 || s.Index > s.Count:
		return &MergeError{Dir: dir, Problem: fmt.Sprintf("shard %d/%d is out of range", s.Index, s.Count)}
	case r.Base.Commit != first.Base.Commit:
		return refuse("base commit", r.Base.Commit, first.Base.Commit)
	case r.Head.Commit != first.Head.Commit || r.Head.Dirty != first.Head.Dirty:
		return refuse("head commit", r.Head.Commit, first.Head.Commit)
	case s.Perfgate != s0.Perfgate:
		return refuse("perfgate version", s.Perfgate, s0.Perfgate)
	case s.Config != s0.Config || s.Policy != s0.Policy:
		return refuse("configuration", s.Config, s0.Config)
	case s.Plan != s0.Plan:
		return refuse("split of the work", s.Plan, s0.Plan)
	}
	return nil
}
