"""Optuna's TPESampler(constraints_func) on the plants of safegp's tuning
suite (study/tune_test.go, study/tune_public_test.go), with the suite's
protocol: per plant, REALIZATIONS noise realizations (the sampler's seed and
the noise's), the plant's trials, the violations and the best value judged
on the noiseless plant. Prints one line per plant, the columns of
docs/tuning.md's table.

    python3 examples/optuna/tpe_suite.py [--realizations N] [--plants a,b]

Needs Optuna (Debian: python3-optuna) and numpy. The plants are ported
from the Go suite line for line; the optima are the Go suite's (the best
among the 100 × 100 candidate grid's settings that keep every limit,
printed by BenchmarkTuneControllers), so that the two tables compare. Pure
Python simulations: about 2 minutes a plant at 48 realizations.
"""

import argparse
import math
import statistics
import warnings

import numpy as np
import optuna


def step_response(K, tau1, tau2, theta, dt, t_end, control):
    """The process K e^{−θs}/((τ1 s+1)(τ2 s+1)) from rest under control(k, y):
    the settling time (last time |y − 1| > 2 %), the overshoot (peak − 1,
    at most 5); t_end and 5 when |y| passes 6."""
    delay = int(theta / dt)
    buf = [0.0] * (delay + 1)
    x1 = x2 = peak = settle = 0.0
    for k in range(int(t_end / dt)):
        y = x2
        buf[k % (delay + 1)] = control(k, y)
        ud = buf[(k + 1) % (delay + 1)]
        x1 += dt * (K * ud - x1) / tau1
        x2 += dt * (x1 - x2) / tau2
        peak = max(peak, y)
        if abs(y - 1) > 0.02:
            settle = (k + 1) * dt
        if abs(y) > 6 or math.isnan(y):
            return t_end, 5.0
    return settle, min(peak - 1, 5.0)


def loop(kp, ki):
    """The suite's pi plant: settling time within 200 s, overshoot, effort."""
    dt = 0.005
    st = {"integ": 0.0, "effort": 0.0}

    def control(_k, y):
        e = 1 - y
        st["integ"] += e * dt
        u = kp * e + ki * st["integ"]
        st["effort"] = max(st["effort"], abs(u))
        return u

    s, o = step_response(1.5, 2, 0.5, 0.3, dt, 200, control)
    return s, o, st["effort"]


def loop_iae(kp, ki):
    """The suite's pi-iae plant: IAE within 60 s, effort, overshoot."""
    dt = 0.005
    st = {"integ": 0.0, "iae": 0.0, "effort": 0.0}

    def control(_k, y):
        e = 1 - y
        st["integ"] += e * dt
        st["iae"] += abs(e) * dt
        u = kp * e + ki * st["integ"]
        st["effort"] = max(st["effort"], abs(u))
        return u

    _, o = step_response(1.5, 2, 0.5, 0.3, dt, 60, control)
    return st["iae"], st["effort"], o


def camel(x1, x2):
    a2, b2 = x1 * x1, x2 * x2
    y = (4 - 2.1 * a2 + a2 * a2 / 3) * a2 + x1 * x2 + (-4 + 4 * b2) * b2
    return max(-y, -2.5)


LOG_KP, LOG_KI = (0.05, 20), (0.01, 10)


def gains(trial):
    return trial.suggest_float("kp", *LOG_KP, log=True), trial.suggest_float("ki", *LOG_KI, log=True)


# name: (parameters, measure(params) -> (objective as minimized, [constraint
# values, ≤ 0 feasible], noise(values, rng)), optimum as minimized, trials)
def pi_measure(trial):
    s, o, _ = loop(*gains(trial))
    return s, [o - 0.05], lambda rng: (s * (1 + 0.01 * rng.standard_normal()), [o + 0.002 * rng.standard_normal() - 0.05])


def pi_effort_measure(trial):
    s, o, u = loop(*gains(trial))
    return s, [o - 0.05, u - 0.9], lambda rng: (s * (1 + 0.01 * rng.standard_normal()),
                                                [o + 0.002 * rng.standard_normal() - 0.05, u * (1 + 0.01 * rng.standard_normal()) - 0.9])


def pi_iae_measure(trial):
    iae, u, _ = loop_iae(*gains(trial))
    return iae, [u - 1.6], lambda rng: (iae * (1 + 0.01 * rng.standard_normal()), [u * (1 + 0.01 * rng.standard_normal()) - 1.6])


def pi_iae_overshoot_measure(trial):
    iae, u, o = loop_iae(*gains(trial))
    return iae, [u - 1.6, o - 0.1], lambda rng: (iae * (1 + 0.01 * rng.standard_normal()),
                                                 [u * (1 + 0.01 * rng.standard_normal()) - 1.6, o + 0.002 * rng.standard_normal() - 0.1])


def gardner1_measure(trial):
    x1, x2 = trial.suggest_float("x1", 0, 6), trial.suggest_float("x2", 0, 6)
    f = math.cos(2 * x1) * math.cos(x2) + math.sin(x1)
    c = math.cos(x1) * math.cos(x2) - math.sin(x1) * math.sin(x2)
    return f, [c - 0.5], lambda rng: (f + 0.01 * rng.standard_normal(), [c + 0.01 * rng.standard_normal() - 0.5])


def gardner2_measure(trial):
    x1, x2 = trial.suggest_float("x1", 0, 6), trial.suggest_float("x2", 0, 6)
    f, c = math.sin(x1) + x2, math.sin(x1) * math.sin(x2)
    return f, [c + 0.95], lambda rng: (f + 0.01 * rng.standard_normal(), [c + 0.002 * rng.standard_normal() + 0.95])


def tnk_measure(trial):
    x1, x2 = trial.suggest_float("x1", 0, math.pi), trial.suggest_float("x2", 0, math.pi)
    c1 = x1 * x1 + x2 * x2 - 1 - 0.1 * math.cos(16 * math.atan2(x1, x2))
    c2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2
    return x1 + x2, [-c1, c2 - 0.5], lambda rng: (x1 + x2 + 0.01 * rng.standard_normal(),
                                                  [-(c1 + 0.01 * rng.standard_normal()), c2 + 0.01 * rng.standard_normal() - 0.5])


def camelback_measure(trial):
    f = camel(trial.suggest_float("x1", -2, 2), trial.suggest_float("x2", -1, 1))
    return -f, [-f], lambda rng: (-(f + 0.2 * rng.standard_normal()), [-(f + 0.2 * rng.standard_normal())])


# The optima of BenchmarkTuneControllers (its log's "optimum" line), as
# minimized.
PLANTS = {
    "pi": (pi_measure, 3.17, 60),
    "pi-effort": (pi_effort_measure, 4.525, 60),
    "pi-iae": (pi_iae_measure, 1.50383, 60),
    "pi-iae-overshoot": (pi_iae_overshoot_measure, 1.50383, 60),
    "gardner1": (gardner1_measure, -1.99945, 60),
    "gardner2": (gardner2_measure, 0.272838, 60),
    "tnk": (tnk_measure, 1.11066, 60),
    "camelback": (camelback_measure, -1.03103, 60),
}


def run(name, measure, optimum, trials, realization):
    rng = np.random.default_rng([realization, 42])
    truth = {}

    def objective(trial):
        f, cs, noisy = measure(trial)
        nf, ncs = noisy(rng)
        truth[trial.number] = (f, all(c <= 0 for c in cs))
        trial.set_user_attr("c", ncs)
        return nf

    s = optuna.create_study(direction="minimize",
                            sampler=optuna.samplers.TPESampler(constraints_func=lambda t: t.user_attrs["c"], seed=realization))
    s.optimize(objective, n_trials=trials)
    best, trace, violated = math.inf, [], False
    for k in range(trials):
        f, safe = truth[k]
        violated = violated or not safe
        if safe:
            best = min(best, f)
        trace.append(best)
    return violated, trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realizations", type=int, default=48)
    ap.add_argument("--plants", default=",".join(p for p, v in PLANTS.items()))
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    for name in args.plants.split(","):
        measure, optimum, trials = PLANTS[name]
        runs = [run(name, measure, optimum, trials, r) for r in range(args.realizations)]
        opt = optimum
        gap = lambda v: (v - opt) / abs(opt)
        gaps = [gap(t[-1]) for _, t in runs]
        reach = [next((k + 1 for k, v in enumerate(t) if gap(v) <= 0.1), trials + 1) for _, t in runs]
        n = len(runs)
        print(f"{name}: violated {sum(v for v, _ in runs) / n:.0%}, tuned {sum(g <= 0.25 for g in gaps) / n:.0%}, "
              f"median gap {statistics.median(gaps):.3f}, median trials to 10 % {statistics.median(reach):g}, "
              f"15 % at 40 {sum(gap(t[39]) <= 0.15 for _, t in runs) / n:.0%} (optimum {opt:.4g})", flush=True)


if __name__ == "__main__":
    main()
