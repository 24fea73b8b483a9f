#!/usr/bin/env python3
"""Golden traces of LoSBO from the authors' code, for bandit/losbo_golden_test.go.

The authors' implementation (osisbo/on-safety-in-safe-bayesian-optimization,
losbo/gp_opt.py, class SafeOpt with beta_dict["safety"] = "pure-lipschitz")
needs GPy, which this machine does not have. This script is that class's
LoSBO path transcribed statement by statement onto numpy — the GP's
posterior (GPy's predict_noiseless: exact Gaussian-likelihood regression)
written out — and run on its experiments' setting (experiments_losbo.py):
an RKHS function of the SE kernel with variance 2 and a fixed RKHS norm
(utilities.sample_function_with_fixed_B), a seed with f > 0.5, threshold 0,
noise uniform in [-R, R], the Lipschitz-expander SafeOpt choice with the
confidence multiplier 2 (the code's fallback beta), 100 rounds. It writes,
per case, the grid, the function's values, the seed and its measurement,
the noise drawn per round, and the actions the code plays with its safe
set's size — as the code is, and with the one line that puts the seed x0
in S from the start (trace_seeded: the code never lets x0 into S), with
the first round where the two differ.

    python3 bandit/testdata/losbo_golden.py > bandit/testdata/losbo_golden.json

Needs numpy (Debian: python3-numpy). Run once; the JSON is committed.
"""
import json
import math

import numpy as np


def rbf(a, b, variance, lengthscale):
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return variance * np.exp(-0.5 * d2 / lengthscale ** 2)


def case(seed, n, lengthscale, B, R, rounds, beta=2.0, seeded=False):
    rng = np.random.RandomState(seed)
    xs = np.linspace(0.0, 1.0, n)
    # safeopt.linearly_spaced_combinations: the first coordinate slowest
    X = np.array([[a, b] for a in xs for b in xs])
    variance = 2.0
    noise_var = (R / 2) ** 2  # GPy's likelihood variance, the experiments' noise_std**2
    # utilities.sample_function_with_fixed_B on the grid itself
    cov = rbf(X, X, variance, lengthscale) + np.eye(len(X)) * 1e-6
    alpha = rng.normal(scale=1.0, size=(len(X), 1))
    alpha = (B / math.sqrt(float(alpha.T @ cov @ alpha))) * alpha
    fvals = (rbf(X, X, variance, lengthscale) @ alpha).ravel()
    # experiments_losbo.get_fun_with_safe_grid_seeds_np: a seed with f > 0.5
    ok = np.nonzero(fvals > 0.5)[0]
    x0 = int(ok[rng.randint(len(ok))])
    # L: the smallest Lipschitz constant on the grid (max slope over pairs)
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    L = float(np.max(np.abs(fvals[:, None] - fvals[None, :]) / d))
    noise = rng.uniform(-R, R, size=rounds + 1)
    y0 = float(fvals[x0] + noise[0])

    # losbo/gp_opt.py, SafeOpt, safety "pure-lipschitz", one GP, fmin [0]
    fmin = 0.0
    gx, gy = [x0], [y0]
    S = np.zeros(len(X), dtype=bool)
    S_x0 = S.copy()
    S_x0[x0] = True
    if seeded:
        # The one change: x0, measured and known safe, starts in S (the
        # code leaves it out of every update, so it never enters S, and
        # counts as unsafe when expanders are sought).
        S[x0] = True
    last_y, last_x = y0, x0
    scaling = math.sqrt(variance)  # scaling 'auto': sqrt(Kdiag)
    trace, sizes = [], []
    for k in range(rounds):
        # update_confidence_intervals: predict_noiseless
        Xo = X[gx]
        K = rbf(Xo, Xo, variance, lengthscale) + noise_var * np.eye(len(gx))
        Ks = rbf(X, Xo, variance, lengthscale)
        Kinv = np.linalg.inv(K)
        mean = Ks @ Kinv @ np.array(gy)
        var = variance - np.einsum("ij,jk,ik->i", Ks, Kinv, Ks)
        std = np.sqrt(var)
        lo, up = mean - beta * std, mean + beta * std
        # compute_safe_set, pure-lipschitz: the last measurement only
        nxt = np.nonzero(~np.logical_or(S, S_x0))[0]
        dS = last_y - R - L * np.linalg.norm(X[last_x] - X[nxt], axis=1) >= fmin
        S[nxt] = dS
        if not np.any(S):
            break
        # compute_sets
        M = np.zeros(len(X), dtype=bool)
        M[S] = up[S] >= np.max(lo[S])
        max_var = np.max(up[M] - lo[M]) / scaling
        G = np.zeros(len(X), dtype=bool)
        s = np.logical_and(S, ~M)
        s[s] = (up[s] - lo[s]) / scaling > max_var
        s[s] = (up[s] - lo[s]) > 0 * beta
        if np.any(s):
            Gs = np.zeros(np.count_nonzero(s), dtype=bool)
            order = np.argsort(up[s] - lo[s])[::-1]
            for idx in order:
                dd = np.linalg.norm(X[s][idx] - X[~S], axis=1)
                Gs[idx] = np.any(up[s][idx] - L * dd >= fmin)
                if Gs[idx]:
                    break
            G[s] = Gs
        # get_new_query_point
        MG = np.logical_or(M, G)
        ids = np.nonzero(MG)[0]
        pick = int(ids[np.argmax((up[MG] - lo[MG]) / scaling)])
        y = float(fvals[pick] + noise[k + 1])
        gx.append(pick)
        gy.append(y)
        last_y, last_x = y, pick
        trace.append(pick)
        sizes.append(int(np.count_nonzero(S)))
    return {"seed_rng": seed, "lengthscale": lengthscale, "variance": variance, "noise_var": noise_var,
            "B": B, "R": R, "L": L, "beta": beta, "x": X.tolist(), "f": fvals.tolist(), "x0": x0, "y0": y0,
            "noise": noise[1:].tolist(), "trace": trace, "safe_sizes": sizes}


if __name__ == "__main__":
    cases = []
    for args in [(1, 15, 0.2, 3.0, 0.1, 100), (2, 15, 0.15, 2.0, 0.05, 100), (3, 20, 0.3, 5.0, 0.2, 100)]:
        c, s = case(*args), case(*args, seeded=True)
        c["trace_seeded"], c["safe_sizes_seeded"] = s["trace"], s["safe_sizes"]
        # the first round (1-based) where the two differ, 0 if none
        c["first_difference"] = next((k + 1 for k, (a, b) in enumerate(zip(c["trace"], s["trace"])) if a != b), 0)
        cases.append(c)
    print(json.dumps({"source": "osisbo/on-safety-in-safe-bayesian-optimization@cd0d990 losbo/gp_opt.py, transcribed to numpy (losbo_golden.py)", "cases": cases}))
