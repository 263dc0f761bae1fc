package results

// FileConstantTimeSARIF is the constant-time check's findings as a SARIF 2.1.0 log (package sarif),
// one result per secret-dependent branch or load at its file and line, for GitHub's code scanning
// (github/codeql-action/upload-sarif). It is written whenever the check ran.
const FileConstantTimeSARIF = "consttime.sarif"

// WriteConstantTimeSARIF writes consttime.sarif: log is package sarif's output.
func (d Dir) WriteConstantTimeSARIF(log []byte) error { return d.write(FileConstantTimeSARIF, log) }
