package report

// Plain makes untrusted text (a benchmark name, a tool's message) safe for one line of a terminal:
// control characters and bidirectional overrides become U+FFFD, line breaks become spaces.
func Plain(s string) string { return plain(s) }
