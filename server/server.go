package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/errclass"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study/api"
	"github.com/safegp/safegp/study/exchange"

	"github.com/safegp/safegp/internal/strictjson"
	"github.com/safegp/safegp/study"
)

// Body limits: a create request carries a specification, possibly with its
// actions inline, an import its rows and a posterior request its points;
// every other request is small.
const (
	MaxCreateBody = 16 << 20
	MaxDataBody   = 16 << 20
	MaxBody       = 64 << 10
)

// Options configure a Handler.
type Options struct {
	// Token, if not empty, must be sent as "Authorization: Bearer TOKEN"
	// on every route but /healthz.
	Token string
	Log   *slog.Logger
	// ImportDeadline, if > 0, cancels an import still running that long
	// after its request came, with nothing stored (503): serve sets it
	// inside its write timeout, so that an import is answered or undone,
	// never stored unanswered. An import whose client goes away is
	// cancelled the same way.
	ImportDeadline time.Duration
}

// Handler returns the HTTP routes for the studies of svc.
func Handler(svc *study.Service, opt Options) http.Handler {
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &handler{svc: svc, opt: opt}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("POST /v1/studies", h.auth(h.create))
	mux.Handle("POST /v1/studies/{name}/ask", h.auth(h.ask))
	mux.Handle("POST /v1/studies/{name}/heartbeat", h.auth(h.heartbeat))
	mux.Handle("POST /v1/studies/{name}/tell", h.auth(h.tell))
	mux.Handle("POST /v1/studies/{name}/retract", h.auth(h.retract))
	mux.Handle("POST /v1/studies/{name}/extend", h.auth(h.extend))
	mux.Handle("POST /v1/studies/{name}/import", h.auth(h.importData, "application/json", "text/csv"))
	mux.Handle("POST /v1/studies/{name}/posterior", h.auth(h.posterior))
	mux.Handle("GET /v1/studies/{name}", h.auth(h.show))
	mux.Handle("DELETE /v1/studies/{name}", h.auth(h.deleteStudy))
	mux.Handle("POST /v1/studies/{name}/rename", h.auth(h.rename))
	mux.Handle("GET /v1/studies/{name}/observations", h.auth(h.observations))
	mux.Handle("GET /v1/studies/{name}/export", h.auth(h.export))
	h.dashboardRoutes(mux) // dashboard.go: the page at / and its read-only data
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no route %s %s", r.Method, r.URL.Path))
	})
	return h.logged(mux)
}

type handler struct {
	svc *study.Service
	opt Options
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (h *handler) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// Every answer is what its Content-Type says: a browser must not
		// guess HTML or script from a JSON body that echoes input.
		w.Header().Set("X-Content-Type-Options", "nosniff")
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		// The unit is in the key: a bare duration is logged as integer
		// nanoseconds by the JSON handler, which readers took for ms.
		h.opt.Log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration_ms", float64(time.Since(start))/float64(time.Millisecond), "remote", r.RemoteAddr)
	})
}

// auth checks the token, the Host and a POST body's Content-Type (one of
// types; application/json when none is given) before fn runs.
func (h *handler) auth(fn func(w http.ResponseWriter, r *http.Request) error, types ...string) http.Handler {
	if len(types) == 0 {
		types = []string{"application/json"}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.opt.Token != "" {
			got, ok := bearer(r.Header.Get("Authorization"))
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(h.opt.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="safegp"`)
				// Not kept by a cache: a later request with the
				// token must reach the server.
				w.Header().Set("Cache-Control", "no-store")
				writeError(w, http.StatusUnauthorized, errors.New("missing or wrong bearer token"))
				return
			}
		}
		if r.Method == http.MethodPost && !hasContent(r, types) {
			// Even with no body: a page in a browser cannot post
			// cross-site with this header without a preflight.
			writeError(w, http.StatusUnsupportedMediaType, fmt.Errorf("every POST here, with a body or none, must be sent with Content-Type: %s", strings.Join(types, " or ")))
			return
		}
		if h.opt.Token == "" && !loopbackHost(r.Host) {
			// Without a token the server trusts only this machine: a
			// foreign Host is a browser misled by DNS rebinding.
			writeError(w, http.StatusForbidden, fmt.Errorf("host %s is not loopback; requests to a server without a token must name localhost", quote.Short(r.Host)))
			return
		}
		if err := fn(w, r); err != nil {
			code := status(err)
			if code == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "1")
			}
			writeError(w, code, err)
		}
	})
}

// bearer returns the token of an Authorization header value
// "Bearer TOKEN". The scheme is case-insensitive (RFC 9110 §11.1: bearer,
// BEARER) and one or more spaces may follow it (its credentials rule,
// auth-scheme [ 1*SP token68 ]).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimLeft(token, " ")
	return token, token != ""
}

// hasContent reports whether the request declares a body of one of the
// media types. Requiring JSON (or, for an import, text/csv) stops a web
// page from posting observations cross-site: browsers send either only
// after a CORS preflight, which this server never grants (only
// text/plain, form and multipart bodies go without one).
func hasContent(r *http.Request, types []string) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && slices.Contains(types, mt)
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// status maps an error to its HTTP status code, by its class
// (internal/errclass): every sentinel of the store and the study belongs
// to one, so that a new one needs no line here.
func status(err error) int {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errclass.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, errclass.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errclass.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, errclass.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrDiskFull):
		return http.StatusInsufficientStorage
	case errors.Is(err, context.Canceled):
		return 499 // client closed the request
	case store.Busy(err), errors.Is(err, errclass.ErrUnavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

var errBadRequest = errclass.New(errclass.ErrInvalid, "bad request")

// errTimedOut is a call cancelled at its deadline with nothing recorded
// (503: try again, smaller).
var errTimedOut = errclass.New(errclass.ErrUnavailable, "timed out")

func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fmt.Errorf("request body larger than %d bytes: %w", limit, err)
		}
		return nil, fmt.Errorf("%w: read body: %v", errBadRequest, err)
	}
	return b, nil
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxCreateBody)
	if err != nil {
		return err
	}
	name, spec, err := decodeCreate(body)
	if err != nil {
		return err
	}
	res, err := spec.Resolve("")
	if err != nil {
		return err
	}
	if err := h.svc.Create(r.Context(), name, res); err != nil {
		return err
	}
	ans := map[string]any{"study": name, "actions": len(res.X), "seed_actions": res.Seed}
	switch {
	case res.Named != nil:
		// In the user's terms, as the CLI says it: the actions' indices
		// and the cube's box mean nothing to them.
		ans = map[string]any{"study": name, "parameters": len(spec.Parameters), "seeds": len(spec.Seeds)}
		if res.Box == nil {
			ans["candidate_settings"] = len(res.X)
		}
	case res.Box != nil:
		ans = map[string]any{"study": name, "box": res.Box.Bounds, "seed_points": res.Box.Seeds}
	}
	if notes := res.Notes(); notes != nil {
		ans["notes"] = notes
	}
	writeJSON(w, http.StatusCreated, ans)
	return nil
}

// decodeCreate decodes a create request {"name": NAME, "spec": {…}}
// strictly: unknown fields, trailing data, an invalid name, a missing or
// null spec and a decision-set file (a path on the server's machine) are
// errors. The spec is parsed, not yet resolved.
func decodeCreate(body []byte) (name string, spec *study.Spec, err error) {
	var req struct {
		Name *string         `json:"name"`
		Spec json.RawMessage `json:"spec"`
	}
	// A name twice, or "NAME": encoding/json would take the last, or the
	// other case; the spec inside is checked too (it is JSON here, parsed
	// as YAML by ParseSpec, which takes YAML's looser numbers).
	if err := strictjson.Check(body, &req); err != nil {
		return "", nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return "", nil, fmt.Errorf("%w: want {\"name\": NAME, \"spec\": {...}}: %w", errBadRequest, jsonError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", nil, fmt.Errorf("%w: trailing data after the JSON object", errBadRequest)
	}
	if req.Name == nil {
		return "", nil, fmt.Errorf("%w: \"name\" is missing", errBadRequest)
	}
	if err := api.CheckName(*req.Name); err != nil {
		return "", nil, err
	}
	if len(req.Spec) == 0 || string(req.Spec) == "null" {
		return "", nil, fmt.Errorf("%w: \"spec\" is missing", errBadRequest)
	}
	if req.Spec[0] != '{' {
		return "", nil, fmt.Errorf("%w: \"spec\" must be a JSON object", errBadRequest)
	}
	spec, err = study.ParseSpec(req.Spec)
	if err != nil {
		return "", nil, err
	}
	if spec.DecisionSet.File != "" {
		return "", nil, fmt.Errorf("%w: decision_set.file: over HTTP give the actions inline (decision_set: {actions: [[…], …]}) or a grid", api.ErrSpec)
	}
	return *req.Name, spec, nil
}

func (h *handler) tell(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	req, err := decodeTell(body)
	if err != nil {
		return err
	}
	a, err := h.svc.Tell(r.Context(), r.PathValue("name"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (h *handler) extend(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	n, err := decodeExtend(body)
	if err != nil {
		return err
	}
	a, err := h.svc.Extend(r.Context(), r.PathValue("name"), n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (h *handler) retract(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	req, err := decodeRetract(body)
	if err != nil {
		return err
	}
	var a *study.RetractAnswer
	if req.Trial != nil {
		a, err = h.svc.RetractTrial(r.Context(), r.PathValue("name"), *req.Trial)
	} else {
		a, err = h.svc.Retract(r.Context(), r.PathValue("name"), req.Observation)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// deleteStudy removes a study (DELETE /v1/studies/{name}, ?force=true
// to delete it while asks are leased).
func (h *handler) deleteStudy(w http.ResponseWriter, r *http.Request) error {
	force := false
	switch f := r.URL.Query().Get("force"); f {
	case "", "false":
	case "true":
		force = true
	default:
		return fmt.Errorf("%w: force=%s: want true or false", errBadRequest, quote.Short(f))
	}
	a, err := h.svc.Delete(r.Context(), r.PathValue("name"), force)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// rename gives a study a new name: body {"name": NEW}.
func (h *handler) rename(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxBody)
	if err != nil {
		return err
	}
	var req struct {
		Name json.RawMessage `json:"name"`
	}
	if err := decodeObject(body, &req); err != nil {
		return fmt.Errorf("%w: %w", errBadRequest, err)
	}
	var name string
	if req.Name == nil || json.Unmarshal(req.Name, &name) != nil {
		return fmt.Errorf("%w: want {\"name\": \"NEW\"}, the study's new name as a string", errBadRequest)
	}
	old := r.PathValue("name")
	if err := h.svc.Rename(r.Context(), old, name); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"renamed": old, "name": name})
	return nil
}

// importData adds earlier measurements: a CSV body (text/csv, the
// problem-file format x1…xd[,context…],f[,g1…gm][,noise_std], or a study's
// export) or a JSON array of tell objects (application/json), all rows or
// none. A CSV header is checked against the study's columns.
func (h *handler) importData(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxDataBody)
	if err != nil {
		return err
	}
	var rows []api.TellRequest
	if hasContent(r, []string{"text/csv"}) {
		cols, err := h.svc.Columns(r.Context(), r.PathValue("name"))
		if err != nil {
			return err
		}
		rows, err = exchange.ParseImportCSV(bytes.NewReader(body), cols)
		if err != nil {
			return err
		}
	} else {
		rows, err = decodeImport(body)
	}
	if err != nil {
		return err
	}
	var opt api.ImportOptions
	switch rep := r.URL.Query().Get("repeat"); rep {
	case "", "0", "false":
	case "1", "true":
		opt.Repeat = true
	default:
		return fmt.Errorf("%w: repeat=%s: want 1 or true (import rows the study took before once more), 0 or false", errBadRequest, quote.Short(rep))
	}
	ctx := r.Context()
	if h.opt.ImportDeadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.opt.ImportDeadline)
		defer cancel()
	}
	a, err := h.svc.ImportWith(ctx, r.PathValue("name"), rows, opt)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: the import of %d rows ran past the server's %s limit and was cancelled, nothing recorded (%w); import fewer rows at a time", errTimedOut, len(rows), h.opt.ImportDeadline, err)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// posterior answers the posterior at the points of a JSON body
// {"points": [[…], …]} (with "context": {…} for a study with a context);
// it changes nothing (POST for the body's size).
func (h *handler) posterior(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r, MaxDataBody)
	if err != nil {
		return err
	}
	req, err := decodePosterior(body)
	if err != nil {
		return err
	}
	a, err := h.svc.PosteriorIn(r.Context(), r.PathValue("name"), req.Points, req.Context)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (h *handler) show(w http.ResponseWriter, r *http.Request) error {
	s, err := h.svc.Show(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s)
	return nil
}

// observations answers every tell of a study as JSON, or with
// ?format=csv as `safegp study export --format csv` writes the study (a
// row per tell and retraction, retracted tells flagged), for a
// spreadsheet or the dashboard's download button.
func (h *handler) observations(w http.ResponseWriter, r *http.Request) error {
	return h.streamRecord(w, r, r.URL.Query().Get("format"))
}

// streamRecord writes a study's tells in format f: csv, or "" and json
// for a JSON array.
func (h *handler) streamRecord(w http.ResponseWriter, r *http.Request, f string) error {
	name := r.PathValue("name")
	switch f {
	case "", "json", "csv":
	default:
		return fmt.Errorf("%w: format: want csv or json, got %s", errBadRequest, quote.Short(f))
	}
	// Streamed a chunk of events at a time (study.ExportChunks): an
	// export holds one chunk, not the whole record (issue 40, item 7).
	// The status is sent with the first chunk; an error after it cuts
	// the answer off, so that a client cannot take a part for the whole.
	wrote, items := false, 0
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false) // as writeJSON
	err := h.svc.ExportChunks(r.Context(), name, func(x *api.Export) error {
		first := !wrote
		if first {
			if f == "csv" {
				w.Header().Set("Content-Type", "text/csv; charset=utf-8")
				w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.csv"`)
			} else {
				w.Header().Set("Content-Type", "application/json")
			}
			w.WriteHeader(http.StatusOK)
			wrote = true
		}
		if f == "csv" {
			return exchange.WriteExportCSV(w, x, first)
		}
		for k := range x.Observations {
			item.Reset()
			if items == 0 {
				item.WriteByte('[')
			} else {
				item.WriteByte(',')
			}
			items++
			if err := enc.Encode(&x.Observations[k]); err != nil {
				return err
			}
			if _, err := w.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n"))); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case err != nil && !wrote:
		return err
	case err != nil:
		h.opt.Log.Error("export cut off", "study", name, "err", err)
		panic(http.ErrAbortHandler)
	case f != "csv" && items == 0:
		io.WriteString(w, "[]\n")
	case f != "csv":
		io.WriteString(w, "]\n")
	}
	return nil
}

// export answers a study's record as `safegp study export --format F`
// prints it: ?format=csv (the default) as observations' CSV, streamed;
// ?format=json as one JSON object {"observations", "retractions",
// "fits"}, indented, which a study's CLI client (--server) prints as it
// comes.
func (h *handler) export(w http.ResponseWriter, r *http.Request) error {
	switch f := r.URL.Query().Get("format"); f {
	case "", "csv":
		return h.streamRecord(w, r, "csv")
	case "json":
		x, err := h.svc.Export(r.Context(), r.PathValue("name"))
		if err != nil {
			return err
		}
		b, err := exchange.ExportJSON(x)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return nil
	default:
		return fmt.Errorf("%w: format: want csv or json, got %s", errBadRequest, quote.Short(f))
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	// Errors quote specs ("want min < max"): nothing here is HTML, and
	// nosniff keeps browsers from reading it as such.
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	m := map[string]string{"error": err.Error()}
	// Two conflicts a client acts on differently from the rest: the study
	// is finished, or has no safe setting left to ask (its own exit codes
	// in the CLI over --server).
	switch {
	case errors.Is(err, api.ErrFinished):
		m["reason"] = "finished"
	case errors.Is(err, api.ErrNoSafeSetting):
		m["reason"] = "no_safe_setting"
	}
	writeJSON(w, code, m)
}
