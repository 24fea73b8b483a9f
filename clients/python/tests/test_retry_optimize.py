"""Retries against a scripted server, optimize and trials against the real
one, and the build backend (standard library only)."""

import base64
import hashlib
import http.server
import json
import os
import sys
import tarfile
import tempfile
import threading
import unittest
import urllib.error
import zipfile
from pathlib import Path

# Imported here, while one thread runs: CPython 3.11 can fail an import
# made inside a test after the other tests' server threads came and went
# (KeyError in importlib's module locks, seen once in CI).
try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parent / "_build"))

import backend  # noqa: E402
import safegp  # noqa: E402
from test_client import NAMED_SPEC, SPEC, ServerTest, plant, toy  # noqa: E402


class Scripted:
    """An HTTP server that answers each request with the next of a script
    of (status, headers, body) and records the requests."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                outer.requests.append((self.command, self.path, self.rfile.read(n)))
                status, headers, body = outer.script.pop(0) if outer.script else (500, {}, {"error": "script ended"})
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


BUSY = (503, {"Retry-After": "0"}, {"error": "database is locked"})
STALE = (409, {}, {"error": "stale study: study \"s\" was written by another process since it was loaded; retry"})
TOLD = (409, {}, {"error": "ask already told"})
OK = (200, {}, {"ask": 3, "x": [1.0], "index": 4})


class TestRetries(unittest.TestCase):
    def run_script(self, script, retries=4):
        srv = Scripted(script)
        self.addCleanup(srv.close)
        client = safegp.Client(srv.url, retries=retries)
        waits = []
        client._sleep = waits.append
        try:
            return client.request("POST", "/v1/studies/s/ask", {}), srv, waits
        except safegp.SafegpError as e:
            return e, srv, waits

    def test_cases(self):
        # (script, retries, answer: "ok" or the error class, requests sent)
        cases = [
            ("busy twice", [BUSY, BUSY, OK], 4, "ok", 3),
            ("stale twice", [STALE, STALE, OK], 4, "ok", 3),
            ("busy then stale", [BUSY, STALE, OK], 4, "ok", 3),
            ("another conflict", [TOLD, OK], 4, safegp.Conflict, 1),
            ("not found", [(404, {}, {"error": "no such study"}), OK], 4, safegp.NotFound, 1),
            ("no retries", [BUSY, OK], 0, safegp.Unavailable, 1),
            ("retries spent", [BUSY, BUSY, BUSY, OK], 2, safegp.Unavailable, 3),
        ]
        for name, script, retries, want, sent in cases:
            with self.subTest(name):
                got, srv, waits = self.run_script(script, retries)
                if want == "ok":
                    self.assertEqual(got, OK[2])
                else:
                    self.assertIsInstance(got, want)
                self.assertEqual(len(srv.requests), sent)
                self.assertEqual(len(waits), sent - 1)
                # every attempt sends the same request
                self.assertEqual(len({r for r in srv.requests}), 1)

    def test_no_answer(self):
        # A connection the server drops without answering (a server killed
        # mid-request), and a port no server listens on: both Unreachable,
        # a SafegpError with status 0 and a URLError, sent once (the
        # request may have been applied).
        import socket

        drop = socket.socket()
        drop.bind(("127.0.0.1", 0))
        drop.listen()
        self.addCleanup(drop.close)
        accepted = []

        def close_each():
            while True:
                try:
                    conn, _ = drop.accept()
                except OSError:
                    return
                accepted.append(1)
                conn.recv(65536)
                conn.close()

        threading.Thread(target=close_each, daemon=True).start()
        refused = socket.socket()
        refused.bind(("127.0.0.1", 0))
        port = refused.getsockname()[1]
        refused.close()
        for name, url in [("dropped", "http://127.0.0.1:%d" % drop.getsockname()[1]), ("refused", "http://127.0.0.1:%d" % port)]:
            with self.subTest(name):
                client = safegp.Client(url, retries=4, timeout=5)
                client._sleep = lambda w: self.fail("retried after no answer")
                with self.assertRaises(safegp.Unreachable) as cm:
                    client.request("POST", "/v1/studies/s/ask", {})
                e = cm.exception
                self.assertIsInstance(e, safegp.SafegpError)
                self.assertIsInstance(e, urllib.error.URLError)
                self.assertEqual(e.status, 0)
                self.assertIn("no answer", str(e))
        self.assertEqual(len(accepted), 1)

    def test_waits(self):
        # The waits double from 0.25 s with jitter (half to all), capped
        # at 8 s; a Retry-After above that is honoured.
        got, _, waits = self.run_script([BUSY] * 7 + [OK], retries=7)
        self.assertEqual(got, OK[2])
        for k, w in enumerate(waits):
            top = min(8.0, 0.25 * 2**k)
            self.assertTrue(top / 2 <= w <= top, (k, w))
        got, _, waits = self.run_script([(503, {"Retry-After": "3"}, {"error": "busy"}), OK])
        self.assertEqual(waits, [3.0])

    def test_bad_retries(self):
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                safegp.Client("http://127.0.0.1:1", retries=bad)


class TestOptimize(ServerTest):
    def test_named(self):
        client = safegp.Client(self.server.url)
        study = client.create_study("pi", NAMED_SPEC)
        seen = []

        def objective(params):
            settle, over = plant(params)
            return {"settle_time": settle, "overshoot": over}

        answers = study.optimize(objective, 6, callback=lambda s, a, r: seen.append((a.trial, r["trial"])))
        self.assertEqual([r["trial"] for r in answers], list(range(6)))
        self.assertEqual(seen, [(k, k) for k in range(6)])
        trials = study.trials()
        self.assertEqual([t["trial"] for t in trials], list(range(6)))
        for t in trials:
            settle, over = plant(t["params"])
            self.assertEqual(t["values"], {"settle_time": settle, "overshoot": over})
            self.assertFalse(t["violation"])
        study.retract(trial=2)
        self.assertEqual([t["trial"] for t in study.trials(retracted=False)], [0, 1, 3, 4, 5])
        flat = safegp.flatten_trials(study.trials())
        self.assertEqual(flat[0]["params_mode"], trials[0]["params"]["mode"])
        self.assertEqual(flat[0]["values_overshoot"], trials[0]["values"]["overshoot"])
        self.assertNotIn("params", flat[0])
        # The study stops at its horizon of 20: 14 more, not 30.
        more = study.optimize(objective, 30)
        self.assertEqual(len(more), 15)  # the retracted trial freed a round
        with self.assertRaises(TypeError):
            client.create_study("pi2", NAMED_SPEC).optimize(lambda p: 1.0, 1)

    def test_plain(self):
        client = safegp.Client(self.server.url)
        study = client.create_study("gains", SPEC)
        shapes = [lambda f, g: (f, [g]), lambda f, g: (f, g), lambda f, g: {"f": f, "g": [g]}]
        calls = []

        def objective(x):
            f, g = toy(x[0])
            calls.append(x[0])
            return shapes[len(calls) % 3](f, g)

        answers = study.optimize(objective, 5)
        self.assertEqual(len(answers), 5)
        trials = study.trials()
        self.assertEqual([t["x"][0] for t in trials], calls)
        for t in trials:
            self.assertEqual((t["f"], t["g"]), (toy(t["x"][0])[0], [toy(t["x"][0])[1]]))
        flat = safegp.flatten_trials(trials)
        self.assertEqual(flat[0]["x1"], calls[0])
        self.assertIn("g1", flat[0])
        self.assertIn("observation", trials[0])

    def test_dataframe(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas not installed")
        client = safegp.Client(self.server.url)
        study = client.create_study("pi", NAMED_SPEC)
        study.optimize(lambda p: dict(zip(["settle_time", "overshoot"], plant(p))), 3)
        df = study.trials_dataframe()
        self.assertEqual(list(df["trial"]), [0, 1, 2])
        self.assertIn("params_kp", df.columns)


class TestBackend(unittest.TestCase):
    """The in-tree build backend (clients/python/_build/backend.py)."""

    def test_wheel(self):
        with tempfile.TemporaryDirectory() as d:
            name = backend.build_wheel(d)
            self.assertEqual(name, "safegp-%s-py3-none-any.whl" % safegp.__version__)
            with zipfile.ZipFile(os.path.join(d, name)) as z:
                names = set(z.namelist())
                self.assertIn("safegp/__init__.py", names)
                self.assertIn("safegp/py.typed", names)
                info = "safegp-%s.dist-info/" % safegp.__version__
                record = z.read(info + "RECORD").decode().splitlines()
                # RECORD lists every file with its hash and size, itself without.
                self.assertEqual({r.split(",")[0] for r in record}, names)
                for r in record:
                    path, h, size = r.split(",")
                    if path.endswith("RECORD"):
                        self.assertEqual((h, size), ("", ""))
                        continue
                    data = z.read(path)
                    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual((h, size), ("sha256=" + digest, str(len(data))))
                meta = z.read(info + "METADATA").decode()
                self.assertIn("Name: safegp\n", meta)
                self.assertIn("Version: %s\n" % safegp.__version__, meta)
                self.assertIn("Requires-Python: >=3.9\n", meta)
                self.assertIn("Root-Is-Purelib: true", z.read(info + "WHEEL").decode())
                self.assertEqual(z.read("safegp/__init__.py"), (HERE.parent / "src/safegp/__init__.py").read_bytes())

    def test_metadata_readers_agree(self):
        # The reader for Pythons without tomllib gives tomllib's values.
        text = (HERE.parent / "pyproject.toml").read_text()
        mini = backend._read_project(text)
        if tomllib is None:
            self.skipTest("no tomllib to compare with")
        full = tomllib.loads(text)["project"]
        for k in ("name", "version", "description", "readme", "requires-python", "dependencies", "classifiers"):
            self.assertEqual(mini[k], full[k], k)

    def test_sdist_and_editable(self):
        with tempfile.TemporaryDirectory() as d:
            s = backend.build_sdist(d)
            with tarfile.open(os.path.join(d, s)) as t:
                names = set(t.getnames())
            stem = "safegp-%s" % safegp.__version__
            for f in ("PKG-INFO", "pyproject.toml", "README.md", "_build/backend.py", "src/safegp/__init__.py"):
                self.assertIn(stem + "/" + f, names)
            e = backend.build_editable(d)
            with zipfile.ZipFile(os.path.join(d, e)) as z:
                pth = [n for n in z.namelist() if n.endswith(".pth")]
                self.assertEqual(len(pth), 1)
                self.assertEqual(z.read(pth[0]).decode().strip(), str(HERE.parent / "src"))


if __name__ == "__main__":
    unittest.main()
