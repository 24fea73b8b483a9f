package server

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/safegp/safegp/study/view"
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
	gz                []byte // body gzipped, sent to a client that takes it
	etag              string
}

// webFiles are the page's files by URL path: nothing else under web/ is
// served. Hashed on the first request, not at init: every safegp process
// (a CLI ask or tell, a shard) would pay for it at start-up.
var webFiles = sync.OnceValue(func() map[string]*webFile {
	files := map[string]*webFile{}
	for path, f := range map[string]struct{ name, contentType string }{
		"/":                     {"web/index.html", "text/html; charset=utf-8"},
		"/assets/dashboard.js":  {"web/dashboard.js", "text/javascript; charset=utf-8"},
		"/assets/dashboard.css": {"web/dashboard.css", "text/css; charset=utf-8"},
		"/assets/favicon.svg":   {"web/favicon.svg", "image/svg+xml"},
		"/assets/plotly.js":     {"web/vendor/plotly-cartesian.min.js", "text/javascript; charset=utf-8"},
	} {
		b, err := web.ReadFile(f.name)
		if err != nil {
			panic(fmt.Sprintf("server: embedded %s: %v", f.name, err)) // a build without its files: not reached
		}
		sum := sha256.Sum256(b)
		// The plotting library is 1.4 MB, 0.46 MB gzipped: compressed
		// once, here, for every client that accepts it.
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		files[path] = &webFile{name: f.name, contentType: f.contentType, body: b, gz: gz.Bytes(), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return files
})

// contentSecurityPolicy lets the page load its own script, style and
// data and nothing else: no inline script, no other origin, no framing.
// The plotting library needs two allowances, both about drawing: inline
// styles (it sets style attributes and adds its own style sheet) and
// data: images (a heat map or contour is drawn as a PNG it makes).
// Scripts stay 'self' only.
const contentSecurityPolicy = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// dashboardRoutes adds the page and its data routes to mux.
func (h *handler) dashboardRoutes(mux *http.ServeMux) {
	mux.Handle("GET /v1/studies", h.auth(h.list))
	mux.Handle("GET /v1/studies/{name}/view", h.auth(h.view(newViewCache())))
	mux.Handle("GET /v1/studies/{name}/map", h.auth(h.studyMap))
	mux.HandleFunc("GET /{$}", servePage)
	mux.HandleFunc("GET /assets/{file}", servePage)
}

// servePage serves one of webFiles. Cache-Control: no-cache makes the
// browser revalidate each file by its ETag, so a new safegp's page is
// never mixed with an old script.
func servePage(w http.ResponseWriter, r *http.Request) {
	f, ok := webFiles()[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Errorf("no route %s %s", r.Method, r.URL.Path))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	hd.Add("Vary", "Accept-Encoding")
	body, etag := f.body, f.etag
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		// Another representation, so another ETag.
		hd.Set("Content-Encoding", "gzip")
		body, etag = f.gz, strings.TrimSuffix(f.etag, `"`)+`-gz"`
	}
	hd.Set("ETag", etag)
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (a
// q=0 refuses it).
func acceptsGzip(h string) bool {
	for _, part := range strings.Split(h, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q = strings.ReplaceAll(strings.TrimSpace(q), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
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

// studyMap answers the map of a study stated in parameters over the
// numeric parameters ?x= and ?y= (view.MapOf): the page asks for it once
// per version of the study it draws, and again when its user picks two
// other parameters.
func (h *handler) studyMap(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	m, err := view.MapOf(r.Context(), h.svc, r.PathValue("name"), q.Get("x"), q.Get("y"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, m)
	return nil
}

// view answers what the study page draws (study.Service.View); it changes
// nothing. A page polls it every few seconds, in as many tabs as are open,
// while the study mostly stands still: the answer carries an ETag of the
// study's version and of its leases (which change without an event: a
// heartbeat), a request naming it in If-None-Match is answered 304
// without a body, and the encoded answers of the studies viewed last are
// kept (viewCache), so that an unchanged study is read with two indexed
// queries and one lock.
func (h *handler) view(cache *viewCache) func(w http.ResponseWriter, r *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		n, err := h.svc.Version(r.Context(), name)
		if err != nil {
			return err
		}
		leases, err := h.svc.LeaseStamp(r.Context(), name)
		if err != nil {
			return err
		}
		version := viewVersion{n, leases}
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		etag := cache.etag(version)
		if ifNoneMatch(r, etag) {
			hd.Set("ETag", etag)
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		body, ok := cache.get(name, version)
		if !ok {
			v, err := view.Of(r.Context(), h.svc, name)
			if err != nil {
				return err
			}
			if body, err = json.Marshal(v); err != nil {
				return fmt.Errorf("study %q: encode the view: %w", name, err)
			}
			body = append(body, '\n')
			version = viewVersion{v.Version, v.LeaseStamp}
			cache.put(name, version, body)
			etag = cache.etag(version)
		}
		if etag != "" {
			hd.Set("ETag", etag)
		}
		hd.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return nil
	}
}

// ifNoneMatch reports whether the request's If-None-Match names etag.
func ifNoneMatch(r *http.Request, etag string) bool {
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if t = strings.TrimSpace(t); t == etag || t == "W/"+etag {
			return true
		}
	}
	return false
}

// Bounds of viewCache: the encoded views of the viewCacheStudies studies
// viewed last, each of at most viewCacheBody bytes (a view of 10 000
// actions in 2-D and a few hundred observations is about 1.5 MB), so that
// it holds at most 16 MiB.
const (
	viewCacheStudies = 8
	viewCacheBody    = 2 << 20
)

// viewVersion identifies a study's view: the number of its events and the
// digest of its leases (view.View.Version and LeaseStamp).
type viewVersion struct {
	events int
	leases uint64
}

// viewCache keeps the last encoded view of the studies viewed last, by
// version: a study's view is a function of its events and its leases.
type viewCache struct {
	// nonce starts every ETag: a new server, perhaps on another database,
	// never matches the ETags of the one before.
	nonce   string
	mu      sync.Mutex
	clock   uint64
	entries map[string]*cachedView
}

type cachedView struct {
	version viewVersion
	body    []byte
	used    uint64
}

func newViewCache() *viewCache {
	b := make([]byte, 6)
	rand.Read(b) // never fails (crypto/rand)
	return &viewCache{nonce: hex.EncodeToString(b), entries: map[string]*cachedView{}}
}

// etag is "NONCE-EVENTS", with "-LEASES" (hexadecimal) when the study
// has leases.
func (c *viewCache) etag(version viewVersion) string {
	t := `"` + c.nonce + "-" + strconv.Itoa(version.events)
	if version.leases != 0 {
		t += "-" + strconv.FormatUint(version.leases, 16)
	}
	return t + `"`
}

func (c *viewCache) get(name string, version viewVersion) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[name]
	if !ok || e.version != version {
		return nil, false
	}
	c.clock++
	e.used = c.clock
	return e.body, true
}

func (c *viewCache) put(name string, version viewVersion, body []byte) {
	if len(body) > viewCacheBody {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[name]; !ok && len(c.entries) >= viewCacheStudies {
		// Drop the least recently used.
		var lru string
		for n, e := range c.entries {
			if lru == "" || e.used < c.entries[lru].used {
				lru = n
			}
		}
		delete(c.entries, lru)
	}
	c.clock++
	c.entries[name] = &cachedView{version: version, body: body, used: c.clock}
}
