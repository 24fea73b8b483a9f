package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/safegp/safegp/server"
	"github.com/safegp/safegp/study"
)

func serveCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite `file` holding the studies (required; created if missing)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen `address`")
	tokenFile := fs.String("token-file", "", "`file` holding the bearer token; required unless the address is loopback")
	drain := fs.Duration("drain", 30*time.Second, "how long SIGTERM waits for requests in flight")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: safegp serve --db FILE [--addr HOST:PORT] [--token-file FILE]\n\n"+
			"Serves the studies of FILE over HTTP (JSON):\n"+
			"  POST /v1/studies                      {\"name\": NAME, \"spec\": {...}}\n"+
			"  POST /v1/studies/{name}/ask           → {\"ask\", \"index\", \"x\"}\n"+
			"  POST /v1/studies/{name}/tell          {\"ask\": ID, \"f\": V, \"g\": [...]} or \"index\" for \"ask\"\n"+
			"  GET  /v1/studies/{name}               the summary of safegp study show\n"+
			"  GET  /v1/studies/{name}/observations\n"+
			"  GET  /healthz\n\nFlags:\n")
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
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		if token = strings.TrimSpace(string(b)); token == "" {
			return fmt.Errorf("--token-file %s: empty token", *tokenFile)
		}
	} else if !loopback(host) {
		return fmt.Errorf("--addr %s is not a loopback address: give --token-file so that requests need a bearer token", *addr)
	}
	store, err := study.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           server.Handler(study.NewService(store), server.Options{Token: token, Log: log}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "db", *db, "auth", token != "")
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight", "timeout", drain.String())
	sctx, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
