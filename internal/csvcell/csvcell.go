package csvcell

import (
	"encoding/csv"
	"io"

	"github.com/safegp/safegp/internal/number"
)

// Escape returns s as a cell to write: s itself, or s behind an
// apostrophe when a spreadsheet would read s as a formula — or when s
// already begins with an apostrophe before such a text, so that Unescape
// gives back exactly s.
func Escape(s string) string {
	if risky(s) {
		return "'" + s
	}
	return s
}

// Unescape is the text of a cell that Escape wrote: the cell without the
// apostrophe Escape put before it, the cell itself otherwise.
func Unescape(cell string) string {
	if len(cell) > 1 && cell[0] == '\'' && risky(cell[1:]) {
		return cell[1:]
	}
	return cell
}

// risky reports whether a spreadsheet would take s for a formula, or s
// is an apostrophe before such a text. Numbers, signed ones included,
// stay numbers.
func risky(s string) bool {
	for len(s) > 0 && s[0] == '\'' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return !number.Decimal(s)
	}
	return false
}

// Writer is a csv.Writer whose Write escapes every cell.
type Writer struct {
	*csv.Writer
	row []string
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// Write writes one record, each cell escaped.
func (w *Writer) Write(record []string) error {
	w.row = w.row[:0]
	for _, c := range record {
		w.row = append(w.row, Escape(c))
	}
	return w.Writer.Write(w.row)
}
