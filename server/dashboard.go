package server

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"
)

// The dashboard: a read-only web page at / (server/web, embedded) that
// draws the studies from two JSON routes. The page's files hold no data
// and are served without the token; the data routes sit behind h.auth as
// every other route does, and the page sends the token it was given
// (in the URL fragment, never sent to the server, or typed into a form).

//go:embed web
var web embed.FS

// webFile is one file of the page, read once.
type webFile struct {
	name, contentType string
	body              []byte
	etag              string
}

// webFiles are the page's files by URL path: nothing else under web/ is
// served.
var webFiles = func() map[string]*webFile {
	files := map[string]*webFile{}
	for path, f := range map[string]struct{ name, contentType string }{
		"/":                     {"web/index.html", "text/html; charset=utf-8"},
		"/assets/dashboard.js":  {"web/dashboard.js", "text/javascript; charset=utf-8"},
		"/assets/dashboard.css": {"web/dashboard.css", "text/css; charset=utf-8"},
		"/assets/favicon.svg":   {"web/favicon.svg", "image/svg+xml"},
	} {
		b, err := web.ReadFile(f.name)
		if err != nil {
			panic(fmt.Sprintf("server: embedded %s: %v", f.name, err)) // a build without its files: not reached
		}
		sum := sha256.Sum256(b)
		files[path] = &webFile{name: f.name, contentType: f.contentType, body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return files
}()

// contentSecurityPolicy lets the page load its own script, style and
// data and nothing else: no inline script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// dashboardRoutes adds the page and its data routes to mux.
func (h *handler) dashboardRoutes(mux *http.ServeMux) {
	mux.Handle("GET /v1/studies", h.auth(h.list))
	mux.Handle("GET /v1/studies/{name}/view", h.auth(h.view))
	mux.HandleFunc("GET /{$}", servePage)
	mux.HandleFunc("GET /assets/{file}", servePage)
}

// servePage serves one of webFiles. Cache-Control: no-cache makes the
// browser revalidate each file by its ETag, so a new safegp's page is
// never mixed with an old script.
func servePage(w http.ResponseWriter, r *http.Request) {
	f, ok := webFiles[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Errorf("no route %s %s", r.Method, r.URL.Path))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", f.etag)
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(f.body))
}

// list answers {"studies": [...]}: every study with its counts, read from
// the records without loading any (study.Service.List).
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	l, err := h.svc.List(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"studies": l})
	return nil
}

// view answers what the study page draws (study.Service.View); it changes
// nothing.
func (h *handler) view(w http.ResponseWriter, r *http.Request) error {
	v, err := h.svc.View(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, v)
	return nil
}
