package text

import (
	"strconv"
	"strings"
)

// Plural is n and word, with an s unless n is 1: "1 benchmark", "1234 benchmarks".
func Plural(n int, word string) string { return PluralOf(n, word, word+"s") }

// PluralOf is n and one or many, for a word whose plural is not word+"s": "1 branch",
// "2 branches".
func PluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// PluralCommas is Plural with n's thousands grouped by Commas: "1 cipher", "1,234 ciphers".
func PluralCommas(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Commas(int64(n)) + " " + word + "s"
}

// Ranges writes sorted sizes as ranges, for key-size lists that run long (a MAC of every key
// length): "1–15, 17, 65".
func Ranges(sizes []int) string {
	var parts []string
	for i := 0; i < len(sizes); {
		j := i
		for j+1 < len(sizes) && sizes[j+1] == sizes[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(sizes[i]))
		} else {
			parts = append(parts, strconv.Itoa(sizes[i])+"–"+strconv.Itoa(sizes[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// minus is the sign of a negative number: U+2212, as in "−37.9%".
const minus = "−"

// Commas formats n with thousands separators and a true minus sign: 1234567 → "1,234,567",
// -1234 → "−1,234".
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteString(minus)
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
