package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/safegp/safegp/internal/csvcell"
	"github.com/safegp/safegp/study/api"
)

// ExportCSV renders a study's record as CSV, one row per event in order:
// seq, kind (tell, fail or retract), ask, index, x1…xd, the context variables of
// a study with a context (by name), f, g1…gm, noise_std (a
// tell's own, empty for the model's σ), violation, retracted_by (a tell's
// retraction, if any), retracts (a retraction's observation), created.
// The observations in force are the rows of kind tell with an empty
// retracted_by.
func ExportCSV(x *api.Export) []byte {
	var b bytes.Buffer
	WriteExportCSV(&b, x, true)
	return b.Bytes()
}

// WriteExportCSV writes ExportCSV's rows of x to w, after its header row
// when header: an export written in chunks (ExportChunks) writes the
// header with the first.
func WriteExportCSV(w io.Writer, x *api.Export, header bool) error {
	if x.ParamNames != nil {
		return exportNamedCSV(w, x, header)
	}
	head := []string{"seq", "kind", "ask", "index"}
	for j := 1; j <= x.Dim; j++ {
		head = append(head, "x"+strconv.Itoa(j))
	}
	head = append(head, x.ContextNames...)
	head = append(head, "f")
	for i := 1; i <= x.Constraints; i++ {
		head = append(head, "g"+strconv.Itoa(i))
	}
	head = append(head, "noise_std", "violation", "retracted_by", "retracts", "created")
	tell := func(o *api.Observation) []string {
		row := []string{strconv.Itoa(o.Seq), "tell", strconv.Itoa(o.Ask), strconv.Itoa(o.Index)}
		for _, v := range o.X {
			row = append(row, csvFloat(v))
		}
		for _, n := range x.ContextNames {
			row = append(row, csvFloat(o.Context[n]))
		}
		row = append(row, csvFloat(o.F))
		for _, g := range o.G {
			row = append(row, csvFloat(g))
		}
		noise := ""
		if o.NoiseStd != nil {
			noise = csvFloat(*o.NoiseStd)
		}
		return append(row, noise, strconv.FormatBool(o.Violation), csvOpt(o.RetractedBy), "", o.Created.Format(time.RFC3339Nano))
	}
	retract := func(r api.Retraction) []string {
		row := []string{strconv.Itoa(r.Seq), "retract", "", strconv.Itoa(r.Index)}
		row = append(row, make([]string, x.Dim+len(x.ContextNames)+1+x.Constraints+3)...)
		return append(row, strconv.Itoa(r.Observation), r.Created.Format(time.RFC3339Nano))
	}
	fail := func(f *api.Failure) []string {
		row := []string{strconv.Itoa(f.Seq), "fail", csvOpt(f.Ask), strconv.Itoa(f.Index)}
		for _, v := range f.X {
			row = append(row, csvFloat(v))
		}
		for _, n := range x.ContextNames {
			row = append(row, csvFloat(f.Context[n]))
		}
		row = append(row, make([]string, 1+x.Constraints+1)...) // no f, g or noise_std
		return append(row, "false", csvOpt(f.RetractedBy), "", f.Created.Format(time.RFC3339Nano))
	}
	if !header {
		head = nil
	}
	return writeExport(w, head, x, tell, retract, fail)
}

// exportNamedCSV is WriteExportCSV for a study stated in parameters: seq,
// kind, trial, ask, a column per parameter and per outcome (by name, in
// the user's units), violation, retracted_by, retracts, created.
func exportNamedCSV(w io.Writer, x *api.Export, header bool) error {
	head := append([]string{"seq", "kind", "trial", "ask"}, x.ParamNames...)
	head = append(head, x.OutcomeNames...)
	head = append(head, "violation", "retracted_by", "retracts", "created")
	tell := func(o *api.Observation) []string {
		row := []string{strconv.Itoa(o.Seq), "tell", strconv.Itoa(*o.Trial), csvOpt(o.Ask)}
		for _, n := range x.ParamNames {
			row = append(row, o.Params[n].String())
		}
		for _, n := range x.OutcomeNames {
			row = append(row, csvFloat(o.Values[n]))
		}
		return append(row, strconv.FormatBool(o.Violation), csvOpt(o.RetractedBy), "", o.Created.Format(time.RFC3339Nano))
	}
	retract := func(r api.Retraction) []string {
		row := append([]string{strconv.Itoa(r.Seq), "retract", "", ""}, make([]string, len(x.ParamNames)+len(x.OutcomeNames)+2)...)
		return append(row, strconv.Itoa(r.Observation), r.Created.Format(time.RFC3339Nano))
	}
	fail := func(f *api.Failure) []string {
		row := []string{strconv.Itoa(f.Seq), "fail", strconv.Itoa(*f.Trial), csvOpt(f.Ask)}
		for _, n := range x.ParamNames {
			row = append(row, f.Params[n].String())
		}
		row = append(row, make([]string, len(x.OutcomeNames))...) // no values
		return append(row, "false", csvOpt(f.RetractedBy), "", f.Created.Format(time.RFC3339Nano))
	}
	if !header {
		head = nil
	}
	return writeExport(w, head, x, tell, retract, fail)
}

// writeExport writes an export's CSV to out: the header head (none when
// nil), then one row per event in order — each observation's (tell),
// each failed trial's (fail) and each retraction's (retract), interleaved
// by sequence number.
func writeExport(out io.Writer, head []string, x *api.Export, tell func(*api.Observation) []string, retract func(api.Retraction) []string, fail func(*api.Failure) []string) error {
	w := csvcell.NewWriter(out)
	if head != nil {
		w.Write(head)
	}
	rets, fails := x.Retractions, x.Failures
	// before writes the retractions and failures before seq.
	before := func(seq int) {
		for {
			switch {
			case len(rets) > 0 && rets[0].Seq < seq && (len(fails) == 0 || rets[0].Seq < fails[0].Seq):
				w.Write(retract(rets[0]))
				rets = rets[1:]
			case len(fails) > 0 && fails[0].Seq < seq:
				w.Write(fail(&fails[0]))
				fails = fails[1:]
			default:
				return
			}
		}
	}
	for k := range x.Observations {
		o := &x.Observations[k]
		before(o.Seq)
		w.Write(tell(o))
	}
	before(math.MaxInt)
	w.Flush()
	return w.Error()
}

func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// csvOpt writes n, or nothing for 0.
func csvOpt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// ExportJSON renders a study's record as a JSON object
// {"observations": […], "retractions": […]}, with "fits": […] after them
// when the model was fitted (model.fit).
func ExportJSON(x *api.Export) ([]byte, error) {
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return append(b, '\n'), nil
}
