// Package clip shortens text for messages and reports.
package clip

import "unicode/utf8"

// Text returns s cut to at most its first n bytes, at a character
// boundary, with "..." appended when it was cut.
func Text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
