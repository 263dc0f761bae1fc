// Package results owns the results directory: the name of every file in it (result.json, bench.txt,
// sizes.txt, differential.json, env.json, report.md, report.html, github.json and the logs) and how
// each is written and read, so that a verdict can be audited and re-rendered from the directory
// alone.
package results
