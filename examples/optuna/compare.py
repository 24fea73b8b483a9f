"""The same constrained problem tuned with Optuna's default TPESampler
(constraints_func) and with safegp's SafeSampler; prints how many trials of
each broke the limit.

    python3 examples/optuna/compare.py [--safegp PATH] [--trials N]

Needs Optuna (Debian: python3-optuna) and the safegp binary (--safegp, or
$SAFEGP, or `safegp` on PATH); it starts `safegp serve` on a free loopback
port with a temporary database and stops it at the end.

The problem: a controller's two gains, kp in [0.05, 5] (log scale) and ki
in [0, 2]; minimize the settling time 1/kp + 0.5/(ki + 0.2) + 0.3·ki,
subject to an overshoot of 0.04·kp·(1 + ki) at most 0.1, which binds at the
optimum (settling time 1.443 at kp = 1.52, ki = 0.645, on the limit). The
known-safe setting kp = 0.2, ki = 0.1 starts the safe sampler.
"""

import argparse
import os
import warnings
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))

import optuna  # noqa: E402

import safegp.optuna  # noqa: E402

LIMIT = 0.1


def objective(trial):
    kp = trial.suggest_float("kp", 0.05, 5.0, log=True)
    ki = trial.suggest_float("ki", 0.0, 2.0)
    trial.set_user_attr("overshoot", 0.04 * kp * (1 + ki))
    return 1 / kp + 0.5 / (ki + 0.2) + 0.3 * ki


def constraints(trial):
    return [trial.user_attrs["overshoot"] - LIMIT]  # ≤ 0 is feasible


def serve(binary, db):
    for _ in range(5):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([binary, "serve", "--db", db, "--addr", f"127.0.0.1:{port}"], stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None:
            try:
                urllib.request.urlopen(url + "/healthz", timeout=1).close()
                return proc, url
            except OSError:
                time.sleep(0.05)
        proc.kill()
    raise SystemExit("safegp serve did not start")


def report(name, study):
    trials = study.trials
    broken = [t for t in trials if t.user_attrs["overshoot"] > LIMIT]
    feasible = [t.value for t in trials if t.user_attrs["overshoot"] <= LIMIT]
    best = min(feasible) if feasible else float("nan")
    print(f"{name}: {len(trials)} trials, {len(broken)} violations, best feasible settling time {best:.3f} (optimum 1.443)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--safegp", default=os.environ.get("SAFEGP") or shutil.which("safegp") or "safegp")
    ap.add_argument("--trials", type=int, default=40)
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

    tpe = optuna.create_study(sampler=optuna.samplers.TPESampler(constraints_func=constraints, seed=0), direction="minimize")
    tpe.optimize(objective, n_trials=args.trials)
    report("optuna TPESampler(constraints_func)", tpe)

    with tempfile.TemporaryDirectory() as d:
        proc, url = serve(args.safegp, os.path.join(d, "optuna.db"))
        try:
            sampler = safegp.optuna.SafeSampler(url, seeds=[{"kp": 0.2, "ki": 0.1}], constraints_func=constraints, horizon=args.trials)
            safe = optuna.create_study(sampler=sampler, direction="minimize", study_name="compare")
            safe.optimize(objective, n_trials=args.trials)
            report("safegp SafeSampler", safe)
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
