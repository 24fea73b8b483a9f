package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"
)

// backend runs the study commands' calls: on the database file, opened by
// this process (local), or on a running safegp serve over its HTTP API
// (remote, --server). Every answer is the JSON the HTTP API answers —
// compact, HTML left unescaped, one line — so that a command prints the
// same bytes either way (printJSON): one encoding, two transports.
type backend interface {
	create(ctx context.Context, name string, spec []byte, res *study.Resolved) error
	ask(ctx context.Context, name string, opt api.AskOptions, batch bool) ([]byte, error)
	heartbeat(ctx context.Context, name string, req *api.HeartbeatRequest) ([]byte, error)
	tell(ctx context.Context, name string, req *api.TellRequest) ([]byte, error)
	// constraints is the number of the study's constraints.
	constraints(ctx context.Context, name string) (int, error)
	// importCSV imports the CSV body (ParseImportCSV's format).
	importCSV(ctx context.Context, name string, body []byte, repeat bool) ([]byte, error)
	posterior(ctx context.Context, name string, points [][]float64, values map[string]float64) ([]byte, error)
	// retract withdraws an observation, or a study stated in
	// parameters' trial when byTrial.
	retract(ctx context.Context, name string, n int, byTrial bool) ([]byte, error)
	// extend raises the study's horizon.
	extend(ctx context.Context, name string, horizon int) ([]byte, error)
	// list answers the studies as a JSON array.
	list(ctx context.Context) ([]byte, error)
	remove(ctx context.Context, name string, force bool) ([]byte, error)
	rename(ctx context.Context, old, new string) error
	show(ctx context.Context, name string) ([]byte, error)
	// export writes the study's record as export --format writes it.
	export(ctx context.Context, name, format string, w io.Writer) error
	close()
}

// encodeAnswer encodes v as the HTTP API does (server.writeJSON): compact,
// with <, > and & as they are, and a newline.
func encodeAnswer(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// printJSON prints an answer as the study commands always have
// (json.Encoder's defaults: <, > and & escaped), indented when indent.
func printJSON(w io.Writer, answer []byte, indent bool) error {
	var esc bytes.Buffer
	json.HTMLEscape(&esc, answer)
	if !indent {
		_, err := w.Write(esc.Bytes())
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, esc.Bytes(), "", "  "); err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	_, err := w.Write(out.Bytes())
	return err
}

// local is the backend over a database file this process opens.
type local struct {
	svc   *study.Service
	store *store.Store
}

// openLocal opens the database; a database kept busy by other processes is
// errTempFail.
func openLocal(path string, opt store.OpenOptions, maxMem int64) (*local, error) {
	opt.BusyTimeout = busyTimeout
	st, err := store.Open(path, opt)
	if contended(err) {
		return nil, fmt.Errorf("%w (%w)", errTempFail, err)
	}
	if err != nil {
		return nil, err
	}
	return &local{svc: study.NewService(st, study.ServiceOptions{MaxMemory: maxMem}), store: st}, nil
}

func (l *local) close() { l.store.Close() }

// answer runs call with retries (retryWrite) and encodes its answer.
func answer[T any](call func() (T, error)) ([]byte, error) {
	var a T
	if err := retryWrite(func() (err error) { a, err = call(); return err }); err != nil {
		return nil, err
	}
	return encodeAnswer(a)
}

func (l *local) create(ctx context.Context, name string, _ []byte, res *study.Resolved) error {
	return retryWrite(func() error { return l.svc.Create(ctx, name, res) })
}

func (l *local) ask(ctx context.Context, name string, opt api.AskOptions, batch bool) ([]byte, error) {
	var as []*api.AskAnswer
	if err := retryWrite(func() (err error) { as, err = l.svc.AskBatch(ctx, name, opt); return err }); err != nil {
		return nil, err
	}
	if batch {
		return encodeAnswer(api.NewBatchAnswer(as))
	}
	return encodeAnswer(as[0])
}

func (l *local) heartbeat(ctx context.Context, name string, req *api.HeartbeatRequest) ([]byte, error) {
	return answer(func() (*api.LeaseAnswer, error) { return l.svc.Heartbeat(ctx, name, req) })
}

func (l *local) tell(ctx context.Context, name string, req *api.TellRequest) ([]byte, error) {
	return answer(func() (*api.TellAnswer, error) { return l.svc.Tell(ctx, name, req) })
}

func (l *local) constraints(ctx context.Context, name string) (int, error) {
	h, _, err := l.svc.Safety(ctx, name)
	return len(h), err
}

func (l *local) importCSV(ctx context.Context, name string, body []byte, repeat bool) ([]byte, error) {
	// The file is read against the study's columns, so that its errors
	// say what this study takes (its context variables).
	cols, err := l.svc.Columns(ctx, name)
	if err != nil {
		return nil, err
	}
	rows, err := exchange.ParseImportCSV(bytes.NewReader(body), cols)
	if err != nil {
		return nil, err
	}
	return answer(func() (*api.ImportAnswer, error) {
		return l.svc.ImportWith(ctx, name, rows, api.ImportOptions{Repeat: repeat})
	})
}

func (l *local) posterior(ctx context.Context, name string, points [][]float64, values map[string]float64) ([]byte, error) {
	a, err := l.svc.PosteriorIn(ctx, name, points, values)
	if err != nil {
		return nil, err
	}
	return encodeAnswer(a)
}

func (l *local) retract(ctx context.Context, name string, n int, byTrial bool) ([]byte, error) {
	return answer(func() (*study.RetractAnswer, error) {
		if byTrial {
			return l.svc.RetractTrial(ctx, name, n)
		}
		return l.svc.Retract(ctx, name, n)
	})
}

func (l *local) extend(ctx context.Context, name string, horizon int) ([]byte, error) {
	return answer(func() (*study.ExtendAnswer, error) { return l.svc.Extend(ctx, name, horizon) })
}

func (l *local) list(ctx context.Context) ([]byte, error) {
	s, err := l.svc.List(ctx)
	if err != nil {
		return nil, err
	}
	return encodeAnswer(s)
}

func (l *local) remove(ctx context.Context, name string, force bool) ([]byte, error) {
	return answer(func() (*study.DeleteAnswer, error) { return l.svc.Delete(ctx, name, force) })
}

func (l *local) rename(ctx context.Context, old, new string) error {
	return retryWrite(func() error { return l.svc.Rename(ctx, old, new) })
}

func (l *local) show(ctx context.Context, name string) ([]byte, error) {
	s, err := l.svc.Show(ctx, name)
	if err != nil {
		return nil, err
	}
	return encodeAnswer(s)
}

func (l *local) export(ctx context.Context, name, format string, w io.Writer) error {
	x, err := l.svc.Export(ctx, name)
	if err != nil {
		return err
	}
	if format == "csv" {
		_, err = w.Write(exchange.ExportCSV(x))
		return err
	}
	b, err := exchange.ExportJSON(x)
	if err == nil {
		_, err = w.Write(b)
	}
	return err
}
