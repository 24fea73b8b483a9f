package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/store"
	"github.com/safegp/safegp/study"
)

// writeTimeout bounds a request's handling and answer; an import is
// refused up front when its estimated time exceeds maxImportSeconds, a
// third of it, so that an import taken is answered (on a slower machine
// too) — a client that never hears of an import it made would make it
// again. An estimate can be wrong under load (one ran 68 s): an import
// still running at importDeadline is cancelled with nothing stored, and
// answered so before the write timeout.
const (
	writeTimeout     = 60 * time.Second
	maxImportSeconds = 20
	importDeadline   = writeTimeout - 10*time.Second
)

func serveCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite `file` holding the studies (required; created if missing)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	tokenFile := fs.String("token-file", "", "`file` holding the bearer token; required unless the address is loopback")
	drain := fs.Duration("drain", 30*time.Second, "how long SIGTERM waits for requests in flight")
	maxOpen := intFlag(fs, "max-open", study.DefaultMaxOpen, "the most studies kept in memory; the least recently used is dropped, and replayed from the database when next used")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse to create or load a study whose memory estimate at its horizon is above `SIZE` (8GiB, 512MiB, bytes)")
	tlsCert := fs.String("tls-cert", "", "PEM `file` with the TLS certificate (chain); serve HTTPS, with --tls-key")
	tlsKey := fs.String("tls-key", "", "PEM `file` with the TLS private key, with --tls-cert")
	insecure := fs.Bool("insecure", false, "allow plain HTTP on a non-loopback address (the token and the data travel in clear)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp serve --db FILE [--addr HOST:PORT] [--token-file FILE] [--tls-cert FILE --tls-key FILE | --insecure]\n\n"+
			"Serves the studies of FILE over HTTP (JSON):\n"+
			"  POST /v1/studies                      {\"name\": NAME, \"spec\": {...}}\n"+
			"  POST /v1/studies/{name}/ask           {} → {\"ask\", \"index\", \"x\"}; {\"lease_seconds\": S} adds \"lease_until\" and\n"+
			"                                        \"lease\" (the lease token); {\"count\": K, …} → {\"asks\": [...]}, a batch\n"+
			"  POST /v1/studies/{name}/heartbeat     {\"ask\": ID, \"lease_seconds\": S, \"lease\"?: TOKEN}: renew a lease;\n"+
			"                                        409 once TOKEN is no longer the ask's (it went to another caller)\n"+
			"  POST /v1/studies/{name}/tell          {\"ask\": ID, \"f\": V, \"g\": [...], \"noise_std\"?: S}, with \"index\": I\n"+
			"                                        or \"x\": [...] (any point) for \"ask\": a measurement outside the loop\n"+
			"  POST /v1/studies/{name}/import        earlier measurements, all or none: CSV x1,…,xd,f[,g1,…][,noise_std]\n"+
			"                                        or a study's export (text/csv), or a JSON array of tells with \"x\" or \"index\"\n"+
			"  POST /v1/studies/{name}/posterior     {\"points\": [[...], ...]} → mean, sd and bounds of f and each g\n"+
			"  POST /v1/studies/{name}/retract       {\"observation\": N} or {\"trial\": N}: withdraw a (mistyped) observation,\n"+
			"                                        and with it every pending ask (\"withdrawn_asks\")\n"+
			"  POST /v1/studies/{name}/rename        {\"name\": NEW}\n"+
			"  DELETE /v1/studies/{name}             ?force=true while asks are leased\n"+
			"  GET  /v1/studies/{name}               the summary of safegp study show\n"+
			"  GET  /v1/studies/{name}/observations\n"+
			"  GET  /v1/studies/{name}/export        ?format=csv|json: as safegp study export --format prints it\n"+
			"  GET  /v1/studies                      every study with its counts (the dashboard's list)\n"+
			"  GET  /v1/studies/{name}/view          what the dashboard draws of a study; changes nothing\n"+
			"  GET  /                                the dashboard, a read-only web page (token: open /#token=TOKEN)\n"+
			"  GET  /healthz\n\n"+
			"A study with a context (its spec's context block) takes the value of every context variable\n"+
			"measured now: \"context\": {NAME: V, …} with ask, with a tell by \"index\" or \"x\" and with posterior,\n"+
			"and as columns between x1…xd and f in an import (docs/contexts.md).\n\n"+
			"A study stated in parameters (docs/quickstart.md) answers an ask with {\"ask\", \"trial\", \"params\": {NAME: V, …},\n"+
			"\"best\"} and takes a tell as {\"ask\": ID, \"values\": {NAME: V, …}}, or {\"params\": {…}, \"values\": {…}} for a\n"+
			"measurement outside the loop (docs/http.md).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	if len(pos) != 0 || *db == "" {
		fmt.Fprintln(stderr, "safegp serve: --db FILE is required and no positional arguments are taken")
		return errUsage
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	var token string
	if *tokenFile != "" {
		if token, err = readToken(*tokenFile); err != nil {
			return err
		}
	} else if !loopback(host) {
		return fmt.Errorf("--addr %s is not a loopback address: give --token-file so that requests need a bearer token", *addr)
	}
	tlsConfig, err := serveTLS(*addr, host, *tlsCert, *tlsKey, *insecure)
	if err != nil {
		return err
	}
	if *maxOpen < 1 {
		fmt.Fprintf(stderr, "safegp serve: --max-open must be ≥ 1, got %d\n", *maxOpen)
		return errUsage
	}
	// A missing file is created; an existing one must be a safegp
	// database, or it is refused untouched.
	store, err := store.Open(*db, store.OpenOptions{Create: true})
	if err != nil {
		return err
	}
	defer store.Close()
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// Requests run under base, which is cancelled once the drain time
	// after SIGTERM is up: a long request (a fit during an ask) stops
	// then, recording nothing, rather than being cut off mid-way.
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		BaseContext: func(net.Listener) context.Context { return base },
		TLSConfig:   tlsConfig,
		Handler: server.Handler(study.NewService(store, study.ServiceOptions{MaxOpen: *maxOpen, MaxMemory: maxMem.Limit(), MaxImportSeconds: maxImportSeconds}),
			server.Options{Token: token, Log: log, ImportDeadline: importDeadline}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       120 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	done := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			done <- srv.ServeTLS(ln, "", "") // the certificate is in srv.TLSConfig
			return
		}
		done <- srv.Serve(ln)
	}()
	log.Info("listening", "addr", ln.Addr().String(), "db", *db, "auth", token != "", "tls", tlsConfig != nil)
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight", "timeout", drain.String())
	sctx, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		cancelBase()
		return fmt.Errorf("shutdown: requests still running after --drain %s were stopped: %w", drain, err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// serveTLS loads the certificate for HTTPS, nil for plain HTTP. Plain HTTP
// on an address other hosts can reach would send the bearer token and the
// observations in clear, so it needs --insecure (for a network that is
// trusted or encrypted by other means). It reads the files before the
// server binds, so that a bad file stops it at once.
func serveTLS(addr, host, certFile, keyFile string, insecure bool) (*tls.Config, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("--tls-cert and --tls-key go together: give both or neither")
	}
	if certFile != "" && insecure {
		return nil, errors.New("--insecure allows plain HTTP, and --tls-cert serves HTTPS: give one of them")
	}
	if certFile == "" {
		if !loopback(host) && !insecure {
			return nil, fmt.Errorf("--addr %s is not a loopback address and TLS is off, so the bearer token and the data would travel in clear: give --tls-cert and --tls-key, or --insecure if the network is trusted", addr)
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MinTokenBytes is the shortest bearer token serve accepts: 16 bytes, 128
// bits if random (openssl rand -hex 16 gives 32 characters).
const MinTokenBytes = 16

// maxTokenFile bounds what readToken reads: a token is a line, not a file.
const maxTokenFile = 4 << 10

// readToken reads the bearer token from path: its content without the
// surrounding white space, at least MinTokenBytes long, from a file that
// other users cannot read (the token opens every study).
func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("--token-file %s is not a regular file", path)
	}
	if perm := st.Mode().Perm(); runtime.GOOS != "windows" && perm&0o004 != 0 {
		return "", fmt.Errorf("--token-file %s can be read by every user of this machine (mode %04o): run chmod 600 %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("--token-file %s is larger than %d bytes: it should hold the token alone", path, maxTokenFile)
	}
	token := strings.TrimSpace(string(b))
	switch {
	case token == "":
		return "", fmt.Errorf("--token-file %s: empty token", path)
	case len(token) < MinTokenBytes:
		return "", fmt.Errorf("--token-file %s: the token has %d bytes, at least %d are needed to resist guessing: make one with openssl rand -hex 16", path, len(token), MinTokenBytes)
	}
	// A client sends the token in an HTTP header, which holds printable
	// ASCII only: a token with a line break, a NUL or a space inside (two
	// lines pasted, a binary file) would be served, and no client could
	// ever send it (issue 40, item 8).
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c >= 0x7f {
			what := fmt.Sprintf("the byte 0x%02x", c)
			switch c {
			case '\n', '\r':
				what = "a line break"
			case 0:
				what = "a NUL byte"
			case ' ', '\t':
				what = "a space"
			}
			return "", fmt.Errorf("--token-file %s: the token holds %s at byte %d: a token is one line of printable ASCII (openssl rand -hex 16 makes one)", path, what, i+1)
		}
	}
	return token, nil
}
