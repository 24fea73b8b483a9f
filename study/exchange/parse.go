package exchange

import (
	"io"

	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
)

// ParseImportCSV reads measurements to import as tells outside the loop at
// their points, in the problem-file format x1…xd,f[,g1…gm][,noise_std] (a
// seed column is refused: measurements mark no known-safe actions). For a
// study with a context, the columns between x1…xd and f are its context
// variables, by name (x1,x2,temperature,load,f,g1): each row's context.
// An empty noise_std cell is the model's σ.
//
// It also reads a study's export (ExportCSV, the header starting with
// seq,kind): its observations in force, as tells outside the loop — the
// retractions and the retracted observations are skipped, and the
// bookkeeping columns (seq, ask, index, violation, retracts, created) set
// aside — so that an export imported into a new study with the same spec
// gives it the same observations.
//
// cols are the study's columns (study.Service.Columns): the header is checked
// against them, and errors say what the study takes (a context variable
// missing or unknown, a column the study has not). With cols nil the
// header is read as it comes, its context columns taken as named; Import
// then checks the rows. Errors wrap api.ErrBadImport and name the line and
// the column.
func ParseImportCSV(r io.Reader, cols *study.Columns) ([]api.TellRequest, error) {
	return parseImportCSV(r, cols)
}
