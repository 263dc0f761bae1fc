// Package evidence writes what a run leaves in its results directory once its verdict is decided:
// one function, Write, through which a comparison (internal/pipeline) and a merge of shards
// (shard.Merge) put their Result on disk as result.json, env.json, the combined checks' files
// (differential.json, consttime.sarif), the shards' bench.txt and sizes.txt, report.md and
// report.html. What differs between the commands, the Action and bisect's steps (the report's
// links, whether a page is drawn) is a plain Option.
//
// It sits beside the packages it joins: results owns every file's name and format, mdreport,
// htmlreport and sarif render; results imports no renderer (history and why read results without
// them), and report, which the renderers import, cannot import them.
package evidence

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/perfgate/perfgate/internal/htmlreport"
	"github.com/perfgate/perfgate/internal/mdreport"
	"github.com/perfgate/perfgate/internal/report"
	"github.com/perfgate/perfgate/internal/results"
	"github.com/perfgate/perfgate/internal/sarif"
	"github.com/perfgate/perfgate/internal/version"
	"github.com/perfgate/perfgate/record"
)

// Options are what differs between the writers of a run's results.
type Options struct {
	// Markdown writes report.md, the comment body, rendered with MarkdownOptions (the Action's
	// artifact hint and repository links; none for the commands and bisect).
	Markdown        bool
	MarkdownOptions report.Options
	// HTML writes report.html, with the samples of the directory's bench.txt (not bisect's steps).
	HTML bool
	// Env is env.json's machine when it is not the Result's (a comparison's, as collected: the
	// Result says unpinned where nothing was pinned).
	Env *record.Env
	// Checks writes the checks of several packages combined: differential.json (unless the check
	// was skipped) and consttime.sarif (when the check was asked for). A comparison of one package
	// writes them in its phases, as they finish.
	Checks bool
	// Shards are a merge's shards' results directories, in the order of their index: their
	// bench.txt and sizes.txt are concatenated, and each one's files copied under shards/N/.
	Shards []results.Dir
}

// Write writes res into the results directory d as opt says: the shards' files first (stopping at
// the first error, as nothing else is worth writing without them), then the combined checks,
// env.json, result.json, report.md and report.html, each attempted even when an earlier one
// failed. It returns the first error.
func Write(d results.Dir, res *record.Result, opt Options) error {
	if len(opt.Shards) > 0 {
		if err := d.Create(); err != nil {
			return err
		}
		for _, name := range []string{results.FileBench, results.FileSizes} {
			if err := d.Concat(name, opt.Shards); err != nil {
				return err
			}
		}
		for i, sd := range opt.Shards {
			if err := d.CopyFrom(sd, "shards/"+strconv.Itoa(i+1)); err != nil {
				return fmt.Errorf("copying shard %d: %w", i+1, err)
			}
		}
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	if opt.Checks && res.Differential.Status != record.DiffSkipped {
		keep(d.WriteDifferential(&res.Differential))
	}
	if opt.Checks && res.ConstantTime != nil {
		keep(WriteConstantTimeSARIF(d, res.ConstantTime))
	}
	env := res.Env
	if opt.Env != nil {
		env = *opt.Env
	}
	keep(d.WriteEnv(env))
	keep(d.WriteResult(res))
	if opt.Markdown {
		keep(d.WriteReport(mdreport.Markdown(res, opt.MarkdownOptions)))
	}
	if opt.HTML {
		keep(writeHTML(d, res))
	}
	return first
}

// WriteConstantTimeSARIF writes the constant-time findings ct as consttime.sarif, for code
// scanning: whenever the check ran, a check that could not trace included (its log says why and
// has no results). A comparison's constant-time phase writes it as the check finishes, Write the
// combined one of several packages.
func WriteConstantTimeSARIF(d results.Dir, ct *record.ConstantTime) error {
	log, err := sarif.ConstantTime(ct, sarif.Options{Version: version.String()})
	if err != nil {
		return err
	}
	return d.WriteConstantTimeSARIF(log)
}

// writeHTML writes d's report.html for res, with the samples of d's bench.txt when it is there.
func writeHTML(d results.Dir, res *record.Result) error {
	var b bytes.Buffer
	samples, err := d.ReadBench()
	if err == nil {
		err = htmlreport.HTML(&b, res, samples, report.Options{})
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", results.FileReportHTML, err)
	}
	return d.WriteReportHTML(b.Bytes())
}
