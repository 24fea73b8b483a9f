package exchange

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/internal/number"
	"github.com/safegp/safegp/internal/plural"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/problem"
	"github.com/safegp/safegp/space"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// headerOf is the import header the columns call for, as a hint in errors:
// x1,x2,temperature,f,g1[,noise_std]; without columns, its general form.
func headerOf(c *study.Columns) string {
	if c == nil {
		return "x1…xd[,context names…],f[,g1…gm][,noise_std]"
	}
	if c.Params != nil {
		return strings.Join(slices.Concat(c.Params, c.Outcomes), ",")
	}
	seq := func(p string, n int) []string {
		switch {
		case n <= 3:
			s := make([]string, n)
			for i := range s {
				s[i] = p + strconv.Itoa(i+1)
			}
			return s
		default:
			return []string{p + "1", "…", p + strconv.Itoa(n)}
		}
	}
	h := append(seq("x", c.Dim), c.Context...)
	h = append(append(h, "f"), seq("g", c.Constraints)...)
	return strings.ReplaceAll(strings.Join(h, ","), ",…,", ",…") + "[,noise_std]"
}

// importColumns are the positions of an import file's columns.
type importColumns struct {
	x, g  []int
	ctx   []int    // the context columns
	names []string // their names, as in the header
	f     int
	noise int // -1: no noise_std column
	// An export (ExportCSV) holds its rows' kind and retraction, -1 in
	// the import format.
	kind, retractedBy int
}

// exportOnly are the columns of ExportCSV that an import does not take:
// the record's own bookkeeping, or derived from the values (violation).
var exportOnly = []string{"seq", "kind", "ask", "index", "violation", "retracted_by", "retracts", "created"}

// parseImportHeader reads an import file's header against the study's
// columns (nil: none known, the context columns taken as named). It takes
// the import format x1…xd[,context…],f[,g1…gm][,noise_std], or an export
// (ExportCSV: seq,kind,… first), whose bookkeeping columns it sets aside.
// Errors name the column and say what the study takes.
func parseImportHeader(h []string, cols *study.Columns) (*importColumns, error) {
	want := headerOf(cols)
	ic := &importColumns{noise: -1, kind: -1, retractedBy: -1}
	// The data columns, and where they are in the file.
	names, pos := h, make([]int, len(h))
	for j := range pos {
		pos[j] = j
	}
	if len(h) > 1 && h[0] == "seq" && h[1] == "kind" {
		names, pos = nil, nil
		for j, n := range h {
			switch {
			case n == "kind":
				ic.kind = j
			case n == "retracted_by":
				ic.retractedBy = j
			case slices.Contains(exportOnly, n):
			default:
				names, pos = append(names, n), append(pos, j)
			}
		}
		if ic.retractedBy < 0 {
			return nil, fmt.Errorf("an export's header without its retracted_by column: the retracted observations could not be told from the others")
		}
		want += " (or an export: seq,kind,ask,index, these, violation,retracted_by,retracts,created)"
	}
	if slices.Contains(names, "seed") {
		return nil, fmt.Errorf("a seed column marks known-safe actions of a decision set; measurements have none: drop the column")
	}
	i := 0
	for i < len(names) && names[i] == "x"+strconv.Itoa(i+1) {
		ic.x = append(ic.x, pos[i])
		i++
	}
	if i == 0 {
		return nil, fmt.Errorf("the first column must be x1, got %s (want %s)", quote.Short(at(names, 0)), want)
	}
	fi := slices.Index(names, "f")
	if fi < i {
		return nil, fmt.Errorf("column f is missing (want %s)", want)
	}
	ic.f = pos[fi]
	if err := ic.contextHeader(names[i:fi], pos[i:fi], cols, want); err != nil {
		return nil, err
	}
	k := fi + 1
	for k < len(names) && names[k] == "g"+strconv.Itoa(len(ic.g)+1) {
		ic.g = append(ic.g, pos[k])
		k++
	}
	if k < len(names) && names[k] == "noise_std" {
		ic.noise = pos[k]
		k++
	}
	if k < len(names) {
		return nil, fmt.Errorf("unexpected column %s (want %s)", quote.Short(names[k]), want)
	}
	if cols == nil {
		return ic, nil
	}
	if len(ic.x) != cols.Dim {
		return nil, fmt.Errorf("columns x1…x%d: the study's points have %s (want %s)", len(ic.x), plural.Count(cols.Dim, "coordinate"), want)
	}
	if len(ic.g) != cols.Constraints {
		return nil, fmt.Errorf("%s, the study has %s (want %s)", plural.Count(len(ic.g), "constraint column"), plural.Count(cols.Constraints, "constraint"), want)
	}
	return ic, nil
}

// contextHeader takes the columns between x1…xd and f as context
// variables: the study's (in any order, each once, none missing), or,
// with no study to check them against, any valid context name.
func (ic *importColumns) contextHeader(names []string, pos []int, cols *study.Columns, want string) error {
	for j, n := range names {
		switch {
		case slices.Contains(names[:j], n):
			return fmt.Errorf("column %s is given twice (want %s)", n, want)
		case cols == nil && config.CheckContextNames([]string{n}) != nil:
			return fmt.Errorf("unexpected column %s (want %s)", quote.Short(n), want)
		case cols != nil && cols.Context == nil:
			return fmt.Errorf("unexpected column %s: the study has no context variables (want %s)", quote.Short(n), want)
		case cols != nil && !slices.Contains(cols.Context, n):
			return fmt.Errorf("column %s is not a context variable (%s; want %s)", n, strings.Join(cols.Context, ", "), want)
		}
	}
	if cols != nil {
		var missing []string
		for _, n := range cols.Context {
			if !slices.Contains(names, n) {
				missing = append(missing, n)
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			return fmt.Errorf("column %s is missing: every row is measured in a context (want %s)", missing[0], want)
		default:
			return fmt.Errorf("columns %s are missing: every row is measured in a context (want %s)", strings.Join(missing, ", "), want)
		}
	}
	if len(names) > 0 {
		ic.ctx, ic.names = pos, names
	}
	return nil
}

// importCell parses cell j of the record on line: a number within
// ±1e100. Errors wrap api.ErrBadImport and name the line and the column.
func importCell(rec, header []string, line, j int) (float64, error) {
	v, err := number.Parse(strings.TrimSpace(rec[j]))
	if err != nil {
		return 0, fmt.Errorf("%w: line %d, column %s: %w", api.ErrBadImport, line, quote.Prefix(header[j]), err)
	}
	if !problem.InRange(v) {
		return 0, fmt.Errorf("%w: line %d, column %s: %v is not finite or beyond ±1e100", api.ErrBadImport, line, header[j], v)
	}
	return v, nil
}

func at(h []string, i int) string {
	if i < len(h) {
		return h[i]
	}
	return ""
}

// parseImportCSV reads an import file (ParseImportCSV). Each row kept
// costs one slice of its d + 1 + m values (and a context map with a
// context): at most config.MaxHorizon rows — no study takes more — and
// problem.MaxValues values, checked before each row is kept.
func parseImportCSV(r io.Reader, cols *study.Columns) ([]api.TellRequest, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	header, err := readRecord(cr)
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty file, want a header row %s", api.ErrBadImport, headerOf(cols))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", api.ErrBadImport, err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte-order mark
	if cols != nil && cols.Params != nil {
		return parseNamedCSV(cr, header, cols)
	}
	ic, err := parseImportHeader(header, cols)
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", api.ErrBadImport, err)
	}
	d, m := len(ic.x), len(ic.g)
	values := slices.Concat(ic.x, []int{ic.f}, ic.g) // the columns of x, f and g, in this order
	cr.ReuseRecord = true                            // every cell kept is parsed into a number
	var rows []api.TellRequest
	for {
		rec, err := readRecord(cr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadImport, err)
		}
		line, _ := cr.FieldPos(0) // the file's line, past comments and blank lines
		if keep, err := exportRowInForce(rec, ic.kind, ic.retractedBy, line); err != nil {
			return nil, err
		} else if !keep {
			continue
		}
		if len(rows) == config.MaxHorizon {
			return nil, fmt.Errorf("%w: line %d: more than %d rows, more than any study's horizon", api.ErrBadImport, line, config.MaxHorizon)
		}
		if (len(rows)+1)*len(rec) > problem.MaxValues {
			return nil, fmt.Errorf("%w: line %d: more than %d values in the file (%d rows × %d columns so far); a file this large does not fit in memory", api.ErrBadImport, line, problem.MaxValues, len(rows)+1, len(rec))
		}
		cell := func(j int) (float64, error) { return importCell(rec, header, line, j) }
		// x, f and g share one slice.
		vals := make([]float64, d+1+m)
		for k, j := range values {
			if vals[k], err = cell(j); err != nil {
				return nil, err
			}
		}
		t := api.TellRequest{X: vals[:d:d], F: &vals[d], G: vals[d+1:], Line: line}
		if ic.noise >= 0 && strings.TrimSpace(rec[ic.noise]) != "" {
			v, err := cell(ic.noise)
			if err != nil {
				return nil, err
			}
			if v < 0 {
				return nil, fmt.Errorf("%w: line %d, column noise_std: %v is negative; want the standard deviation of the measurement noise, ≥ 0 (empty: the model's)", api.ErrBadImport, line, v)
			}
			t.NoiseStd = &v
		}
		if ic.ctx != nil {
			t.Context = make(map[string]float64, len(ic.ctx))
			for k, j := range ic.ctx {
				if t.Context[ic.names[k]], err = cell(j); err != nil {
					return nil, err
				}
			}
		}
		rows = append(rows, t)
	}
	if len(rows) == 0 {
		if ic.kind >= 0 {
			return nil, fmt.Errorf("%w: the export holds no observation in force (retractions and retracted observations are not imported)", api.ErrBadImport)
		}
		return nil, fmt.Errorf("%w: no rows below the header", api.ErrBadImport)
	}
	return rows, nil
}

// parseNamedCSV reads the rows of an import file for a study stated in
// parameters: a column per parameter and per outcome, by name, in any
// order, each once; or its export (exportNamedCSV), whose observations in
// force it takes. A parameter's cell is a number, or a choice's value;
// an outcome's a number.
func parseNamedCSV(cr *csv.Reader, header []string, cols *study.Columns) ([]api.TellRequest, error) {
	want := strings.Join(slices.Concat(cols.Params, cols.Outcomes), ",")
	kind, retractedBy := -1, -1
	col := map[string]int{}
	for j, n := range header {
		switch {
		case n == "kind":
			kind = j
		case n == "retracted_by":
			retractedBy = j
		case n == "trial" || slices.Contains(exportOnly, n):
		case !slices.Contains(cols.Params, n) && !slices.Contains(cols.Outcomes, n):
			return nil, fmt.Errorf("%w: header: unexpected column %s (want %s)", api.ErrBadImport, quote.Short(n), want)
		default:
			if _, dup := col[n]; dup {
				return nil, fmt.Errorf("%w: header: column %s is given twice (want %s)", api.ErrBadImport, n, want)
			}
			col[n] = j
		}
	}
	for _, n := range slices.Concat(cols.Params, cols.Outcomes) {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("%w: header: column %s is missing (want %s)", api.ErrBadImport, n, want)
		}
	}
	if kind >= 0 && retractedBy < 0 {
		return nil, fmt.Errorf("%w: header: an export's header without its retracted_by column: the retracted observations could not be told from the others", api.ErrBadImport)
	}
	var rows []api.TellRequest
	for {
		rec, err := readRecord(cr)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", api.ErrBadImport, err)
		}
		line, _ := cr.FieldPos(0) // the file's line, past comments and blank lines
		if keep, err := exportRowInForce(rec, kind, retractedBy, line); err != nil {
			return nil, err
		} else if !keep {
			continue
		}
		if len(rows) == config.MaxHorizon {
			return nil, fmt.Errorf("%w: line %d: more than %d rows, more than any study's horizon", api.ErrBadImport, line, config.MaxHorizon)
		}
		t := api.TellRequest{Params: make(space.Setting, len(cols.Params)), Values: make(map[string]float64, len(cols.Outcomes)), Line: line}
		for _, n := range cols.Params {
			c := strings.TrimSpace(rec[col[n]])
			if v, err := number.Parse(c); err == nil {
				t.Params[n] = space.Number(v)
			} else {
				t.Params[n] = space.String(c)
			}
		}
		for _, n := range cols.Outcomes {
			v, err := importCell(rec, header, line, col[n])
			if err != nil {
				return nil, err
			}
			t.Values[n] = v
		}
		rows = append(rows, t)
	}
}

// exportRowInForce reports whether the record on line of a file is to be
// imported: always for the import format (kind < 0); for an export
// (ExportCSV), only an observation in force — a tell not retracted — and
// an error for a kind other than tell and retract.
func exportRowInForce(rec []string, kind, retractedBy, line int) (bool, error) {
	if kind < 0 {
		return true, nil
	}
	switch k := strings.TrimSpace(rec[kind]); {
	case k == "retract", k == "fail", k == "tell" && strings.TrimSpace(rec[retractedBy]) != "":
		// A failed trial has no values to import (docs/safety.md: an
		// import carries the measurements over, not the failures).
		return false, nil
	case k != "tell":
		return false, fmt.Errorf("%w: line %d, column kind: %s, want tell, fail or retract", api.ErrBadImport, line, quote.Short(k))
	}
	return true, nil
}

// readRecord reads the next record of cr, each cell as written before
// csvcell escaped it: an export's text cells that a spreadsheet would
// take for a formula carry an apostrophe (ExportCSV), which the import
// takes off again.
func readRecord(cr *csv.Reader) ([]string, error) {
	rec, err := cr.Read()
	for i, c := range rec {
		rec[i] = csvcell.Unescape(c)
	}
	return rec, err
}
