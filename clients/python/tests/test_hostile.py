"""The Python client against servers that misbehave (issue 40, item 9):
a redirect to another origin, answers that are not JSON or not safegp's,
an answer too large to hold, and one sent a byte at a time. The servers
are small http.server ones on loopback; no safegp binary is needed.

    python3 -m unittest discover -s clients/python/tests
"""

import http.server
import sys
import threading
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import safegp  # noqa: E402


class Handler(http.server.BaseHTTPRequestHandler):
    """Answers by path; records the Authorization header of each request."""

    seen = []  # (port, path, Authorization or None)
    other_port = 0

    def log_message(self, *args):  # quiet
        pass

    def send(self, code, body, ctype="application/json", length=True):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        port = self.server.server_address[1]
        Handler.seen.append((port, self.path, self.headers.get("Authorization")))
        p = self.path
        if p == "/healthz":
            self.send(200, b'{"status": "ok"}')
        elif p == "/away":  # a redirect to another port: another origin
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{Handler.other_port}/healthz")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif p == "/here":  # a redirect on the same origin
            self.send_response(302)
            self.send_header("Location", "/healthz")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif p == "/v1/studies":  # JSON, but not safegp's
            self.send(200, b'{"items": []}')
        elif p == "/html":
            self.send(200, b"<html><body>a proxy's login page</body></html>", "text/html")
        elif p == "/html-error":
            self.send(502, b"<html>" + b"x" * 100000 + b"</html>", "text/html")
        elif p == "/deep":
            self.send(200, b"[" * 100000 + b"]" * 100000)
        elif p == "/huge-length":  # says 300 MB; sends nothing of it
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(300 << 20))
            self.end_headers()
        elif p == "/huge-chunked":  # no length: 8 MiB, more than the client takes
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                for _ in range(128):
                    self.wfile.write(b" " * (64 << 10))
            except OSError:
                pass
        elif p == "/trickle":  # a byte every 0.2 s, for 30 s
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "150")
            self.end_headers()
            try:
                for _ in range(150):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
        else:
            self.send(404, b'{"error": "no route"}')

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        self.send(200, b'{"unexpected": true}')


class Servers:
    def __init__(self):
        self.a = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.b = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.a.daemon_threads = self.b.daemon_threads = True
        Handler.other_port = self.b.server_address[1]
        for s in (self.a, self.b):
            threading.Thread(target=s.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.a.server_address[1]}"

    def close(self):
        for s in (self.a, self.b):
            s.shutdown()
            s.server_close()


class TestHostileServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.servers = Servers()

    @classmethod
    def tearDownClass(cls):
        cls.servers.close()

    def client(self, **kw):
        return safegp.Client(self.servers.url, token="s3cret-token-of-32-bytes-long!!", retries=0, **kw)

    def test_token_not_sent_to_another_origin(self):
        Handler.seen.clear()
        self.assertEqual(self.client().request("GET", "/away"), {"status": "ok"})
        other = [a for port, path, a in Handler.seen if port == Handler.other_port]
        self.assertEqual(other, [None], Handler.seen)  # the token stayed home
        Handler.seen.clear()
        self.client().request("GET", "/here")
        self.assertEqual([a for _, path, a in Handler.seen if path == "/healthz"], ["Bearer s3cret-token-of-32-bytes-long!!"])

    def test_not_json(self):
        for path, words in [("/html", "not JSON: <html>"), ("/deep", "nested too deep")]:
            with self.assertRaises(safegp.SafegpError) as cm:
                self.client().request("GET", path)
            self.assertEqual(cm.exception.status, 200)
            self.assertIn(words, str(cm.exception))
            self.assertLess(len(str(cm.exception)), 400)
        with self.assertRaises(safegp.SafegpError) as cm:
            self.client().request("GET", "/html-error")
        self.assertEqual(cm.exception.status, 502)
        self.assertLess(len(str(cm.exception)), 400)

    def test_not_safegps_answer(self):
        c = self.client()
        with self.assertRaises(safegp.SafegpError) as cm:
            c.studies()
        self.assertIn("not what safegp serve answers", str(cm.exception))
        with self.assertRaises(safegp.SafegpError):
            c.study("s").ask()
        with self.assertRaises(safegp.SafegpError):
            c.study("s").ask_batch(2)

    def test_answer_too_large(self):
        t = time.monotonic()
        with self.assertRaises(safegp.SafegpError) as cm:
            self.client().request("GET", "/huge-length")
        self.assertIn("max_answer", str(cm.exception))
        with self.assertRaises(safegp.SafegpError) as cm:
            self.client(max_answer=1 << 20).request("GET", "/huge-chunked")
        self.assertIn("larger than the client's max_answer", str(cm.exception))
        self.assertLess(time.monotonic() - t, 10)

    def test_trickle_cut_at_the_timeout(self):
        t = time.monotonic()
        with self.assertRaises(safegp.Unreachable) as cm:
            self.client(timeout=1.0).request("GET", "/trickle")
        took = time.monotonic() - t
        self.assertIn("within the client's timeout of 1.0 s", str(cm.exception))
        self.assertLess(took, 3.0)  # 1 s and the shutdown; it was 30 s byte by byte


if __name__ == "__main__":
    unittest.main()
