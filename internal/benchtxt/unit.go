package benchtxt

import "unicode"

// MaxUnitLen is the longest unit ValidUnit accepts, in bytes.
const MaxUnitLen = 40

// ValidUnit reports whether unit may be kept from benchmark output: at most MaxUnitLen bytes of
// letters, digits and the punctuation real units use (% / . - _). A benchmark's unit is chosen by
// the code under test (b.ReportMetric), so it is untrusted text that ends up in table headers and
// cells; this set holds every unit the testing package and the x/perf tools print (ns/op, B/op,
// allocs/op, MB/s, sec/op, B/s, instructions/op, peak-RSS-B, %) and nothing that means anything to
// Markdown, HTML, a shell or a terminal: no <, @, |, `, space or control character.
func ValidUnit(unit string) bool {
	if unit == "" || len(unit) > MaxUnitLen {
		return false
	}
	for _, r := range unit {
		switch {
		case r == '%' || r == '/' || r == '.' || r == '-' || r == '_':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		default:
			return false
		}
	}
	return true
}
