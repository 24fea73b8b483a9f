package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/safegp/safegp/internal/errclass"
	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/readlimit"
	"github.com/safegp/safegp/study"
	"github.com/safegp/safegp/study/api"
	"go.yaml.in/yaml/v3"
)

// remote is the backend over a running safegp serve (--server URL): each
// call is one request of the HTTP API (docs/http.md), sent with the bearer
// token, and its answer is the body the server wrote.
type remote struct {
	base   *url.URL
	token  string
	client *http.Client
}

// maxAnswer bounds an answer read into memory (an export is copied to the
// output as it comes): the largest answers are a posterior at many points,
// and the server's own bound on what it reads of a request is the same.
const maxAnswer = 64 << 20

// errServer is an answer that is not the HTTP API's: a proxy's error page,
// or a server that is not safegp's.
var errServer = errclass.New(errclass.ErrUnavailable, "unexpected answer from the server")

// checkServerURL checks --server: http or https, a host, and a path only
// where a proxy serves safegp under one (never the API's own /v1).
func checkServerURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("--server %s: want the URL of a safegp serve, http://HOST:PORT or https://HOST:PORT", quote.Short(raw))
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("--server %s: give the server's address only (the token goes in SAFEGP_TOKEN or --token-file)", quote.Short(u.Redacted()))
	case strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1"):
		return fmt.Errorf("--server %s: give the server's address without /v1 (the commands add the API's paths)", quote.Short(raw))
	}
	return nil
}

// newRemote is the backend over the server at raw, a URL checkServerURL
// passed (studySession.where).
func newRemote(raw, token string) (*remote, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	// No overall timeout: an ask that fits a model, or an import, may take
	// long; the command's context (Ctrl-C) cancels it. A server that
	// accepts and never answers headers is bounded, though.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 10 * time.Minute
	return &remote{base: u, token: token, client: &http.Client{Transport: tr}}, nil
}

func (r *remote) close() { r.client.CloseIdleConnections() }

// do sends one request and returns the answer's body, or its error: the
// server's message, classed by its status as the server classed it
// (internal/errclass), so that exit codes and errors.Is read the same as
// for a command on the file.
func (r *remote) do(ctx context.Context, method, path string, query url.Values, contentType string, body []byte) ([]byte, error) {
	resp, err := r.send(ctx, method, path, query, contentType, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: reading the answer: %w", errclass.ErrUnavailable, method, path, err)
	}
	if len(b) > maxAnswer {
		return nil, fmt.Errorf("%w: %s %s: answer larger than %d bytes", errclass.ErrTooLarge, method, path, maxAnswer)
	}
	if resp.StatusCode/100 != 2 {
		return nil, answerError(resp, b)
	}
	return b, nil
}

// send sends a request; the caller closes the answer's body.
func (r *remote) send(ctx context.Context, method, path string, query url.Values, contentType string, body []byte) (*http.Response, error) {
	u := *r.base
	u.Path += path
	u.RawQuery = query.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if method == http.MethodPost {
		// Every POST declares its type, with a body or none (the server
		// refuses one without: server.hasContent).
		req.Header.Set("Content-Type", contentType)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &unreachable{url: r.base.Redacted(), err: err}
	}
	return resp, nil
}

// answerError is the error of a failed request: the server's message
// ({"error": …}) in the class of its status.
func answerError(resp *http.Response, body []byte) error {
	var e struct {
		Error  *string `json:"error"`
		Reason string  `json:"reason"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil {
		return fmt.Errorf("%w: %s (%s)", errServer, resp.Status, quote.Short(string(body)))
	}
	var class error
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		class = errclass.ErrInvalid
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("the server refused the request: %s (give its token in SAFEGP_TOKEN or with --token-file)", *e.Error)
	case http.StatusNotFound:
		class = errclass.ErrNotFound
	case http.StatusConflict:
		class = errclass.ErrConflict
		switch e.Reason {
		case "finished":
			return fmt.Errorf("%w (%w): %s", api.ErrHorizon, api.ErrFinished, *e.Error)
		case "no_safe_setting":
			return fmt.Errorf("%w: %s", api.ErrNoSafeSetting, *e.Error)
		}
	case http.StatusRequestEntityTooLarge:
		class = errclass.ErrTooLarge
	case http.StatusServiceUnavailable:
		return busyAnswer(*e.Error)
	default:
		return errors.New(*e.Error)
	}
	return errclass.New(class, *e.Error)
}

// unreachable is a server that could not be reached or did not answer.
type unreachable struct {
	url string
	err error
}

func (e *unreachable) Error() string {
	return fmt.Sprintf("cannot reach the safegp serve at %s (is it running?): %v", e.url, e.err)
}

func (e *unreachable) Unwrap() []error { return []error{errclass.ErrUnavailable, e.err} }

// busyAnswer is a server's 503: busy, or a call cancelled at its deadline,
// nothing recorded. It exits as a busy database does (exitTempFail): try
// again.
type busyAnswer string

func (e busyAnswer) Error() string { return string(e) }

func (e busyAnswer) Is(target error) bool {
	return target == errTempFail || target == errclass.ErrUnavailable
}

func (r *remote) post(ctx context.Context, path string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return r.do(ctx, http.MethodPost, path, nil, "application/json", body)
}

// studyPath is the path of a study's route: /v1/studies/NAME plus tail.
func studyPath(name, tail string) string { return "/v1/studies/" + url.PathEscape(name) + tail }

func (r *remote) create(ctx context.Context, name string, spec []byte, _ *study.Resolved) error {
	_, err := r.post(ctx, "/v1/studies", map[string]any{"name": name, "spec": json.RawMessage(spec)})
	return err
}

func (r *remote) ask(ctx context.Context, name string, opt api.AskOptions, batch bool) ([]byte, error) {
	req := map[string]any{}
	if batch {
		req["count"] = opt.Count
	}
	if opt.LeaseSeconds != 0 {
		req["lease_seconds"] = opt.LeaseSeconds
	}
	if opt.Context != nil {
		req["context"] = opt.Context
	}
	return r.post(ctx, studyPath(name, "/ask"), req)
}

func (r *remote) heartbeat(ctx context.Context, name string, req *api.HeartbeatRequest) ([]byte, error) {
	return r.post(ctx, studyPath(name, "/heartbeat"), req)
}

func (r *remote) tell(ctx context.Context, name string, req *api.TellRequest) ([]byte, error) {
	// The wire's tell has only the fields given (server.decodeTell refuses
	// a null), where TellRequest's JSON writes "f" and "g" always.
	w := map[string]any{}
	for key, v := range map[string]any{"ask": req.Ask, "index": req.Index, "f": req.F, "noise_std": req.NoiseStd} {
		if p, _ := v.(*int); p != nil {
			w[key] = *p
		}
		if p, _ := v.(*float64); p != nil {
			w[key] = *p
		}
	}
	if req.X != nil {
		w["x"] = req.X
	}
	if req.G != nil {
		w["g"] = req.G
	}
	if req.Context != nil {
		w["context"] = req.Context
	}
	if req.Params != nil {
		w["params"] = req.Params
	}
	if req.Values != nil {
		w["values"] = req.Values
	}
	return r.post(ctx, studyPath(name, "/tell"), w)
}

func (r *remote) constraints(ctx context.Context, name string) (int, error) {
	b, err := r.show(ctx, name)
	if err != nil {
		return 0, err
	}
	var s struct {
		Constraints int `json:"constraints"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return 0, fmt.Errorf("%w: %w", errServer, err)
	}
	return s.Constraints, nil
}

func (r *remote) importCSV(ctx context.Context, name string, body []byte, repeat bool) ([]byte, error) {
	var q url.Values
	if repeat {
		q = url.Values{"repeat": {"true"}}
	}
	return r.do(ctx, http.MethodPost, studyPath(name, "/import"), q, "text/csv", body)
}

func (r *remote) posterior(ctx context.Context, name string, points [][]float64, values map[string]float64) ([]byte, error) {
	req := map[string]any{"points": points}
	if values != nil {
		req["context"] = values
	}
	return r.post(ctx, studyPath(name, "/posterior"), req)
}

func (r *remote) retract(ctx context.Context, name string, n int, byTrial bool) ([]byte, error) {
	key := "observation"
	if byTrial {
		key = "trial"
	}
	return r.post(ctx, studyPath(name, "/retract"), map[string]int{key: n})
}

func (r *remote) extend(ctx context.Context, name string, horizon int) ([]byte, error) {
	return r.post(ctx, studyPath(name, "/extend"), map[string]int{"horizon": horizon})
}

func (r *remote) list(ctx context.Context) ([]byte, error) {
	b, err := r.do(ctx, http.MethodGet, "/v1/studies", nil, "", nil)
	if err != nil {
		return nil, err
	}
	var l struct {
		Studies json.RawMessage `json:"studies"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Studies == nil {
		return nil, fmt.Errorf("%w: GET /v1/studies: want {\"studies\": […]}", errServer)
	}
	return append(l.Studies, '\n'), nil
}

func (r *remote) remove(ctx context.Context, name string, force bool) ([]byte, error) {
	return r.do(ctx, http.MethodDelete, studyPath(name, ""), url.Values{"force": {strconv.FormatBool(force)}}, "", nil)
}

func (r *remote) rename(ctx context.Context, old, new string) error {
	_, err := r.post(ctx, studyPath(old, "/rename"), map[string]string{"name": new})
	return err
}

func (r *remote) show(ctx context.Context, name string) ([]byte, error) {
	return r.do(ctx, http.MethodGet, studyPath(name, ""), nil, "", nil)
}

// export copies the server's export to w as it comes: a record can be
// larger than any answer held in memory.
func (r *remote) export(ctx context.Context, name, format string, w io.Writer) error {
	path := studyPath(name, "/export")
	resp, err := r.send(ctx, http.MethodGet, path, url.Values{"format": {format}}, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
		return answerError(resp, b)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		// The server cuts an export off when it fails after the first
		// chunk: what was written is not the whole record.
		return fmt.Errorf("%w: export of study %q cut off: %w", errclass.ErrUnavailable, name, err)
	}
	return nil
}

// specJSON is the specification of the file at path as a server's create
// takes it: the document as JSON, with a decision-set file's actions (and
// its seed column) inline, for the server reads no file of this machine.
// res is the file's resolution (study.LoadSpec), which checked the
// document and read the file.
func specJSON(path string, res *study.Resolved) ([]byte, error) {
	data, err := readlimit.ReadDocument(path)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ds, ok := doc["decision_set"].(map[string]any); ok && ds["file"] != nil {
		doc["decision_set"] = map[string]any{"actions": res.X}
		if _, given := doc["seed_actions"]; !given && res.Seed != nil {
			doc["seed_actions"] = res.Seed
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
