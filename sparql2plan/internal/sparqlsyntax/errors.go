package sparqlsyntax

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError is a fault in a query's text, at Line and Column (1-based,
// columns in characters) of byte Offset.
type SyntaxError struct {
	Line, Column, Offset int
	Msg                  string
}

// Error prints the fault with its position.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("sparqlsyntax: line %d column %d: %s", e.Line, e.Column, e.Msg)
}

func newSyntaxError(src string, off int, format string, args ...any) *SyntaxError {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	col := 1 + utf8.RuneCountInString(src[strings.LastIndexByte(src[:off], '\n')+1:off])
	return &SyntaxError{Line: line, Column: col, Offset: off, Msg: fmt.Sprintf(format, args...)}
}
