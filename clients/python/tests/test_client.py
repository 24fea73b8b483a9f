"""End-to-end tests of the safegp Python client against the real server.

The binary is $SAFEGP_BIN, or is built with ``go build`` from the repository
holding this file. Each test class starts ``safegp serve`` on a free loopback
port with a temporary database and stops it afterwards. Standard library only:

    python3 -m unittest discover -s clients/python/tests
"""

import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import safegp  # noqa: E402

REPO = HERE.parent.parent.parent

SPEC = {
    "decision_set": {"grid": {"bounds": [[0, 4]], "points": [41]}},
    "seed_actions": [10, 11],
    "thresholds": [0.0],
    "model": {
        "objective": {"kernel": "se", "lengthscale": 1},
        "constraints": [{"kernel": "se", "lengthscale": 1}],
        "noise_std": 0.05,
        "delta": 0.01,
    },
    "algorithm": {"name": "safeopt", "safe_set": "gp"},
    "horizon": 100,
    "seed": 7,
}


def toy(x):
    """A toy objective (maximum at x = 2.5) and constraint (safe for |x − 2| ≤ 1.5)."""
    return -((x - 2.5) ** 2), 1.5 - abs(x - 2.0)


_built = None


def safegp_binary(tmp):
    global _built
    env = os.environ.get("SAFEGP_BIN")
    if env:
        return env
    if _built is None:
        go = shutil.which("go") or "/usr/local/go/bin/go"
        out = os.path.join(tmp, "safegp")
        subprocess.run([go, "build", "-o", out, "./cmd/safegp"], cwd=REPO, check=True)
        _built = out
    return _built


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A ``safegp serve`` process on a free loopback port."""

    def __init__(self, bin_dir, token=None):
        self.dir = tempfile.mkdtemp(prefix="safegp-py-")
        args = [safegp_binary(bin_dir), "serve", "--db", os.path.join(self.dir, "t.db")]
        if token is not None:
            tf = os.path.join(self.dir, "token.txt")
            # serve refuses a token file other users can read.
            fd = os.open(tf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(token + "\n")
            args += ["--token-file", tf]
        self.url = ""
        for _ in range(5):  # a free port may be taken between probe and bind
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            self.log = open(os.path.join(self.dir, "serve.log"), "w+b")
            self.proc = subprocess.Popen(args + ["--addr", f"127.0.0.1:{port}"], stderr=self.log)
            if self._ready():
                return
            self.stop(clean=False)
        raise RuntimeError("safegp serve did not start")

    def _ready(self):
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if json.load(r).get("status") == "ok":
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self, clean=True):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        if clean:
            shutil.rmtree(self.dir, ignore_errors=True)


class ServerTest(unittest.TestCase):
    token = None

    @classmethod
    def setUpClass(cls):
        cls.bin_dir = tempfile.mkdtemp(prefix="safegp-bin-")

    def setUp(self):
        self.server = Server(self.bin_dir, self.token)

    def tearDown(self):
        self.server.stop()


class TestStudy(ServerTest):
    def test_whole_study(self):
        client = safegp.Client(self.server.url)
        self.assertEqual(client.health(), {"status": "ok"})
        study = client.create_study("gains", SPEC)
        violations = 0
        best = float("-inf")
        for _ in range(15):
            a = study.ask()
            self.assertIsInstance(a, safegp.Ask)
            self.assertIsInstance(a.index, int)
            self.assertEqual(len(a.x), 1)
            f, g = toy(a.x[0])
            r = study.tell(a, f, [g])
            violations += r["violation"]
            best = max(best, f)
        self.assertGreater(best, -0.1)  # found the region of the maximum at 2.5

        # a measurement outside the loop, by x and by index, then retracted
        f2, g2 = toy(2.0)
        r = study.tell_at(2.0, f2, [g2])
        self.assertEqual(r["index"], 20)
        r2 = study.tell_index(20, -0.25, [1.5], noise_std=0.1)
        study.retract(r2["observation"])
        with self.assertRaises(safegp.Conflict):
            study.retract(r2["observation"])

        s = study.summary()
        obs = study.observations()
        self.assertEqual(s["study"], "gains")
        self.assertEqual(s["rounds"], 16)
        self.assertEqual(s["retracted"], 1)
        self.assertEqual(len(obs), 17)
        live = [o for o in obs if not o["retracted"]]
        self.assertEqual(len(live), s["rounds"])
        self.assertEqual(sum(o["violation"] for o in live), s["violations"])
        self.assertEqual(s["violations"], violations)

        p = study.posterior([[2.5], [1.0]])
        self.assertEqual(len(p["points"]), 2)
        self.assertIn("mean", p["points"][0]["f"])

        # the same study through a fresh handle
        self.assertEqual(client.study("gains").summary()["rounds"], 16)

    def test_bad_input(self):
        client = safegp.Client(self.server.url)
        study = client.create_study("s", SPEC)

        with self.assertRaises(safegp.NotFound) as cm:
            client.study("nope").ask()
        self.assertEqual(cm.exception.status, 404)
        self.assertTrue(cm.exception.message)

        with self.assertRaises(safegp.Conflict) as cm:
            client.create_study("s", SPEC)
        self.assertEqual(cm.exception.status, 409)
        self.assertIn("s", cm.exception.message)

        bad = dict(SPEC, thresholds=[0.0, 1.0])
        with self.assertRaises(safegp.SafegpError) as cm:
            client.create_study("bad", bad)
        self.assertEqual(cm.exception.status, 400)

        a = study.ask()
        with self.assertRaises(ValueError):
            study.tell(a, float("nan"), [1.0])
        with self.assertRaises(ValueError):
            study.tell(a, 1.0, [float("inf")])

        with self.assertRaises(safegp.NotFound) as cm:
            study.tell(999, 1.0, [1.0])
        self.assertEqual(cm.exception.status, 404)

        with self.assertRaises(safegp.SafegpError) as cm:
            study.tell(a, 1.0, [])  # one constraint expected
        self.assertEqual(cm.exception.status, 400)

        study.tell(a, -1.0, [1.0])
        with self.assertRaises(safegp.Conflict):
            study.tell(a, -1.0, [1.0])  # already told

        with self.assertRaises(safegp.SafegpError) as cm:
            study.tell_at([1.0, 2.0], 1.0, [1.0])  # two coordinates in a 1-D study
        self.assertEqual(cm.exception.status, 400)

        # the server itself answers 400 to a NaN that bypasses the client's check
        req = urllib.request.Request(
            self.server.url + "/v1/studies/s/tell",
            data=b'{"ask": 1, "f": NaN, "g": [1]}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with self.assertRaises(urllib.error.HTTPError) as cm:
            urllib.request.urlopen(req)
        self.assertEqual(cm.exception.code, 400)


CONTEXT_SPEC = dict(
    SPEC,
    context={"names": ["temperature"], "kernel": {"kernel": "se", "lengthscale": 10}},
)


def toy_at(x, temperature):
    """toy, shifted by the temperature: the safe region and the maximum
    move left as it warms (safe for |x − 2 + T/20| ≤ 1.5)."""
    return toy(x + temperature / 20)


NAMED_SPEC = {
    "parameters": [
        {"name": "kp", "low": 0.05, "high": 20, "scale": "log"},
        {"name": "filter", "type": "int", "low": 1, "high": 8},
        {"name": "mode", "type": "choice", "values": ["pi", "pid"]},
    ],
    "objective": {"name": "settle_time", "goal": "minimize"},
    "constraints": [{"name": "overshoot", "max": 0.05}],
    "seeds": [{"kp": 0.3, "filter": 2, "mode": "pi"}],
    "horizon": 20,
}


def plant(params):
    """A made-up plant: faster and more overshoot with a higher gain."""
    kp = params["kp"]
    boost = 1.3 if params["mode"] == "pid" else 1.0
    return 10.0 / (1 + kp * boost) + 0.1 * params["filter"], 0.02 * kp * boost - 0.01


class TestNamedStudy(ServerTest):
    def test_scale_note_warns(self):
        client = safegp.Client(self.server.url)
        linear = copy.deepcopy(NAMED_SPEC)
        del linear["parameters"][0]["scale"]  # kp 0.05…20 linear, its seed 0.3
        with self.assertWarnsRegex(UserWarning, r"study 'lin': kp runs from 0\.05 to 20 on a linear scale.*scale: log"):
            client.create_study("lin", linear)
        # On the log scale, no note on kp; filter's integers and the
        # choice's pid, which no seed has, have theirs.
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            client.create_study("log", NAMED_SPEC)
        notes = [str(w.message) for w in got]
        self.assertEqual(len(notes), 2, notes)
        self.assertIn("filter's integers lie 0.143 of its scale apart", notes[0])
        self.assertIn("give a seed with each mode you want tried (pid)", notes[1])

    def test_named_study(self):
        client = safegp.Client(self.server.url)
        study = client.create_study("pi", NAMED_SPEC)
        trials = []
        for k in range(8):
            a = study.ask()
            self.assertEqual(a.trial, k)
            self.assertIsNone(a.x)
            p = a.params
            self.assertEqual(set(p), {"kp", "filter", "mode"})
            self.assertTrue(0.05 <= p["kp"] <= 20)
            self.assertIsInstance(p["filter"], int)  # an int parameter comes back as a JSON integer
            self.assertIn(p["mode"], ["pi", "pid"])
            settle, over = plant(p)
            r = study.tell(a, values={"settle_time": settle, "overshoot": over})
            self.assertEqual(r["trial"], k)
            self.assertFalse(r["violation"])
            trials.append((settle, k))
        # measured outside the loop, then retracted by its trial
        r = study.tell_params({"kp": 1.0, "filter": 3, "mode": "pid"}, {"settle_time": 5.0, "overshoot": 0.02})
        self.assertEqual(r["trial"], 8)
        self.assertEqual(study.retract(trial=8)["trial"], 8)
        best = study.best()
        self.assertEqual(best["trial"], min(trials)[1])  # the lowest settling time, every trial being safe
        self.assertEqual(best["values"]["settle_time"], min(trials)[0])
        with self.assertRaises(ValueError):
            study.tell(1, values={"settle_time": "fast"})
        with self.assertRaises(safegp.SafegpError):  # an unknown outcome
            study.tell_params({"kp": 1.0, "filter": 3, "mode": "pid"}, {"settle": 5.0, "overshoot": 0.02})

        # management: list, rename, delete (refused while an ask is leased)
        self.assertEqual([s["study"] for s in client.studies()], ["pi"])
        study = client.rename_study("pi", "pi2")
        self.assertEqual([s["study"] for s in client.studies()], ["pi2"])
        study.ask(lease_seconds=600)
        with self.assertRaises(safegp.Conflict):
            client.delete_study("pi2")
        d = client.delete_study("pi2", force=True)
        self.assertEqual(d["deleted"], "pi2")
        self.assertEqual(client.studies(), [])
        with self.assertRaises(safegp.NotFound):
            study.summary()


class TestContextStudy(ServerTest):
    def test_context_study(self):
        client = safegp.Client(self.server.url)
        study = client.create_study("ctx", CONTEXT_SPEC)
        temperatures = [0.0, 10.0, 20.0]
        for k in range(12):
            t = temperatures[k % 3]
            a = study.ask(context={"temperature": t})
            self.assertEqual(a.context, {"temperature": t})
            self.assertEqual(study.ask(context={"temperature": t}).id, a.id)  # pending
            if k == 0:
                # another context while a is pending: a new ask there, a
                # stays pending in its own; both told, each in its context
                b = study.ask(context={"temperature": t + 1})
                self.assertNotEqual(b.id, a.id)
                self.assertEqual(b.context, {"temperature": t + 1})
                f, g = toy_at(b.x[0], t + 1)
                study.tell(b, f, [g])
            f, g = toy_at(a.x[0], t)
            r = study.tell(a, f, [g])
            self.assertFalse(r["violation"])

        # outside the loop, in a context of their own
        f, g = toy_at(1.5, 5.0)
        study.tell_at(1.5, f, [g], context={"temperature": 5.0})
        f, g = toy_at(2.0, 15.0)
        study.tell_index(20, f, [g], context={"temperature": 15.0})
        study.import_observations([{"x": [1.7], "f": -0.64, "g": [1.2], "context": {"temperature": 0}}])

        obs = study.observations()
        self.assertEqual(len(obs), 16)
        self.assertEqual([o["context"]["temperature"] for o in obs[:5]], [1, 0, 10, 20, 0])
        self.assertEqual(obs[14]["context"], {"temperature": 15})
        s = study.summary()
        self.assertEqual(s["context_names"], ["temperature"])
        self.assertEqual(s["context"], {"temperature": 20})
        p = study.posterior([[2.0]], context={"temperature": 10})
        self.assertEqual(p["context"], {"temperature": 10})

        # bad contexts: named by the server, refused by the client
        for bad, word in [(None, "context is missing"), ({}, "context.temperature is missing"),
                          ({"temperature": 1, "load": 2}, "context.load is not a context variable")]:
            with self.assertRaises(safegp.SafegpError) as cm:
                study.ask(context=bad)
            self.assertEqual(cm.exception.status, 400)
            self.assertIn(word, cm.exception.message)
        with self.assertRaises(ValueError):
            study.ask(context={"temperature": float("nan")})
        with self.assertRaises(safegp.SafegpError) as cm:
            study.tell_at(1.0, 1.0, [1.0])  # outside the loop, without its context
        self.assertEqual(cm.exception.status, 400)
        plain = client.create_study("plain", SPEC)
        with self.assertRaises(safegp.SafegpError) as cm:
            plain.ask(context={"temperature": 1})
        self.assertEqual(cm.exception.status, 400)
        self.assertIn("has no context", cm.exception.message)


class TestBatch(ServerTest):
    def test_batch_and_leases(self):
        study = safegp.Client(self.server.url).create_study("b", SPEC)
        # the seeds are the only safe actions at first: a batch of 2
        first = study.ask_batch(4)
        self.assertEqual([a.index for a in first], [10, 11])
        self.assertTrue(all(a.lease_until is None for a in first))
        for a in first:
            f, g = toy(a.x[0])
            study.tell(a, f, [g])
        for _ in range(6):  # widen the safe set
            a = study.ask()
            f, g = toy(a.x[0])
            study.tell(a, f, [g])
        leased = study.ask_batch(3, lease_seconds=60)
        self.assertEqual(len(leased), 3)
        self.assertEqual(len({a.index for a in leased}), 3)  # distinct
        for a in leased:
            self.assertIsInstance(a.lease_until, str)
            self.assertTrue(a.lease_until.endswith("Z"))
        # a plain ask never gets a leased ask
        plain = study.ask()
        self.assertNotIn(plain.id, [a.id for a in leased])
        self.assertIsNone(plain.lease_until)
        self.assertEqual(study.ask().id, plain.id)  # idempotent without a lease
        one = study.ask(lease_seconds=30)
        self.assertEqual(one.id, plain.id)  # the pending, unleased ask, now leased
        self.assertIsNotNone(one.lease_until)

        r = study.heartbeat(leased[0], 120)
        self.assertEqual(r["ask"], leased[0].id)
        self.assertGreater(r["lease_until"], leased[0].lease_until)
        with self.assertRaises(safegp.NotFound):
            study.heartbeat(999, 10)
        f, g = toy(leased[1].x[0])
        study.tell(leased[1], f, [g])  # a leased ask is told as any
        with self.assertRaises(safegp.Conflict):
            study.heartbeat(leased[1], 10)  # told already
        for bad in (0, 65):
            with self.assertRaises(safegp.SafegpError) as cm:
                study.ask_batch(bad)
            self.assertEqual(cm.exception.status, 400)
            self.assertIn("count", cm.exception.message)
        with self.assertRaises(safegp.SafegpError) as cm:
            study.ask(lease_seconds=-1)
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(study.summary()["pending_asks"], [a.id for a in (leased[0], leased[2], plain)])

    def test_lease_token(self):
        """The review's case (issue 12): worker A's lease ends, worker B is
        handed the ask; A's heartbeat raises Conflict instead of taking the
        ask back, B's keeps its token, an id alone renews whoever holds it.
        Counts must be integers; lease_seconds=0 is no lease; a retraction
        names every ask it withdraws."""
        study = safegp.Client(self.server.url).create_study("t", SPEC)
        a = study.ask(lease_seconds=0.05)
        self.assertRegex(a.lease_token, r"^[0-9a-f]{16}$")
        time.sleep(0.2)
        b = study.ask(lease_seconds=600)
        self.assertEqual(b.id, a.id)
        self.assertNotEqual(b.lease_token, a.lease_token)
        with self.assertRaises(safegp.Conflict) as cm:
            study.heartbeat(a, 600)
        self.assertIn("was handed to another caller", cm.exception.message)
        r = study.heartbeat(b, 600)
        self.assertEqual(r["lease"], b.lease_token)
        r = study.heartbeat(b.id, 60)  # no token: renews whoever holds it
        self.assertEqual(r["lease"], b.lease_token)
        with self.assertRaises(safegp.Conflict):
            study.heartbeat(b.id, 60, lease_token=a.lease_token)

        for bad in (2.5, True, "2", float("nan")):
            with self.assertRaises(ValueError):
                study.ask_batch(bad)
        with self.assertRaises(ValueError):
            study.tell_index(2.5, 0.0, [1.0])
        second = study.ask_batch(2.0)  # integral: 2 (ask 1 is leased, the other seed is new)
        self.assertEqual(len(second), 1)
        self.assertNotEqual(second[0].id, a.id)
        plain = study.ask(lease_seconds=0)
        self.assertIsNone(plain.lease_until)
        self.assertIsNone(plain.lease_token)

        f, g = toy(1.0)
        r = study.tell_index(10, f, [g])  # a measurement outside the loop, then retracted
        out = study.retract(r["observation"])
        self.assertEqual(out["withdrawn_asks"], [a.id, second[0].id])
        self.assertEqual(out["withdrawn_ask"], a.id)

    def test_parallel_workers(self):
        """Workers in threads take leased batches and tell them until the
        horizon: no ask goes to two workers, and each is told once."""
        import threading

        spec = dict(SPEC, horizon=16)
        study = safegp.Client(self.server.url).create_study("w", spec)
        got = {}  # ask id -> worker
        told = []
        errors = []
        lock = threading.Lock()

        def worker(w):
            s = safegp.Client(self.server.url).study("w")
            while True:
                try:
                    batch = s.ask_batch(2, lease_seconds=60)
                except safegp.Conflict as e:
                    if "horizon" in e.message:
                        return
                    time.sleep(0.02)  # every pending ask leased: retry
                    continue
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(repr(e))
                    return
                for a in batch:
                    with lock:
                        if a.id in got:
                            errors.append(f"ask {a.id} handed to workers {got[a.id]} and {w}")
                        got[a.id] = w
                    f, g = toy(a.x[0])
                    s.tell(a, f, [g])
                    with lock:
                        told.append(a.id)

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(sorted(told), sorted(got))
        self.assertEqual(len(told), len(set(told)))
        self.assertEqual(study.summary()["rounds"], 16)


class TestToken(ServerTest):
    token = "s3cret-token-of-32-bytes-long!!"

    def test_token(self):
        with self.assertRaises(safegp.Unauthorized) as cm:
            safegp.Client(self.server.url).create_study("t", SPEC)
        self.assertEqual(cm.exception.status, 401)
        with self.assertRaises(safegp.Unauthorized):
            safegp.Client(self.server.url, token="wrong").study("t").summary()
        study = safegp.Client(self.server.url, token=self.token).create_study("t", SPEC)
        a = study.ask()
        f, g = toy(a.x[0])
        study.tell(a, f, [g])
        self.assertEqual(study.summary()["rounds"], 1)


if __name__ == "__main__":
    unittest.main()
