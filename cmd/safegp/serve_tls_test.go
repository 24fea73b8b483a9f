package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// into dir, and returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "safegp test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeTLS runs the real binary with a certificate: an HTTPS client
// that trusts it is served, plain HTTP, a client that does not trust it and
// a client limited to TLS 1.1 are not, and the log says TLS is on.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	cmd := exec.Command(binary, "serve", "--db", filepath.Join(dir, "s.db"), "--addr", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", keyFile)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var addr string
	sc := bufio.NewScanner(stderr)
	for addr == "" && sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
			TLS  bool   `json:"tls"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
			if !line.TLS {
				t.Errorf("log says TLS is off: %s", sc.Text())
			}
			addr = line.Addr
		}
	}
	if addr == "" {
		t.Fatal("server did not report its address")
	}
	go io.Copy(io.Discard, stderr)

	get := func(url string, cfg *tls.Config) (int, error) {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
		resp, err := c.Get(url)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get("https://"+addr+"/healthz", &tls.Config{RootCAs: pool}); err != nil || code != http.StatusOK {
		t.Errorf("HTTPS /healthz: %d, %v; want 200", code, err)
	}
	if code, err := get("http://"+addr+"/healthz", nil); err == nil && code == http.StatusOK {
		t.Error("plain HTTP /healthz answered 200 on a TLS server")
	}
	if _, err := get("https://"+addr+"/healthz", &tls.Config{RootCAs: x509.NewCertPool()}); err == nil {
		t.Error("a client that does not trust the certificate was served")
	}
	old := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
	if _, err := get("https://"+addr+"/healthz", old); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("a TLS 1.1 client: %v, want a protocol version error", err)
	}
}

// TestServeRefusals: mistakes in the TLS flags, and plain HTTP on an
// address other hosts can reach, stop serve before it opens the database
// or binds.
func TestServeRefusals(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir)
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("s3cret-of-16-bytes-or-more\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Issue 24, item 11: a short token, a token others can read.
	short, open := filepath.Join(dir, "short"), filepath.Join(dir, "open")
	os.WriteFile(short, []byte("ab\n"), 0o600)
	os.WriteFile(open, []byte("s3cret-of-16-bytes-or-more\n"), 0o644)
	os.Chmod(open, 0o644) // whatever the umask
	// Issue 40, item 8: tokens no client can send in its header.
	twoLines, nul, spaced := filepath.Join(dir, "two-lines"), filepath.Join(dir, "nul"), filepath.Join(dir, "spaced")
	os.WriteFile(twoLines, []byte("s3cret-of-16-bytes\nor-more\n"), 0o600)
	os.WriteFile(nul, []byte("s3cret-of-16\x00bytes-or-more"), 0o600)
	os.WriteFile(spaced, []byte("s3cret of 16 bytes or more"), 0o600)
	huge := filepath.Join(dir, "huge")
	os.WriteFile(huge, bytes.Repeat([]byte("x"), 1<<20), 0o600)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"non-loopback without TLS", []string{"--addr", "0.0.0.0:0", "--token-file", token},
			[]string{"0.0.0.0:0", "not a loopback address", "in clear", "--tls-cert", "--tls-key", "--insecure"}},
		{"non-loopback without token", []string{"--addr", "0.0.0.0:0", "--insecure"}, []string{"--token-file"}},
		{"cert without key", []string{"--tls-cert", certFile}, []string{"--tls-cert and --tls-key go together"}},
		{"key without cert", []string{"--addr", "0.0.0.0:0", "--token-file", token, "--tls-key", keyFile}, []string{"--tls-cert and --tls-key go together"}},
		{"missing certificate", []string{"--tls-cert", filepath.Join(dir, "none.pem"), "--tls-key", keyFile}, []string{"--tls-cert", "none.pem"}},
		{"short token", []string{"--token-file", short}, []string{"--token-file", "short", "2 bytes", "at least 16", "openssl rand -hex 16"}},
		{"world-readable token", []string{"--token-file", open}, []string{"--token-file", "open", "every user", "0644", "chmod 600"}},
		{"token of two lines", []string{"--token-file", twoLines}, []string{"--token-file", "two-lines", "a line break at byte 19", "printable ASCII"}},
		{"token with a NUL", []string{"--token-file", nul}, []string{"--token-file", "a NUL byte at byte 13"}},
		{"token with spaces", []string{"--token-file", spaced}, []string{"--token-file", "a space at byte 7"}},
		{"token file of 1 MiB", []string{"--token-file", huge}, []string{"--token-file", "larger than 4096 bytes"}},
		{"insecure with TLS", []string{"--tls-cert", certFile, "--tls-key", keyFile, "--insecure"}, []string{"--insecure", "--tls-cert", "one of them"}},
		{"key for the certificate", []string{"--tls-cert", certFile, "--tls-key", certFile}, []string{"--tls-key", "cert.pem"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")
			var stdout, stderr bytes.Buffer
			// A serve that does not refuse runs until SIGTERM: fail, not hang.
			done := make(chan error, 1)
			go func() { done <- run(append([]string{"serve", "--db", db}, c.args...), &stdout, &stderr) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not refuse: it is serving")
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Error("the database was created before the refusal")
			}
		})
	}
}
