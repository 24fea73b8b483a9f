#!/usr/bin/env python3
"""Golden traces of constrained expected improvement, for
bandit/ei_golden_test.go.

Gardner, Kusner, Xu, Weinberger and Cunningham, "Bayesian Optimization
with Inequality Constraints" (ICML 2014), as Ax and BoTorch run it: at
each round play argmax over the grid of EI_f(x) · PoF(x), where

    EI_f(x) = (mu - f+) Phi(z) + sigma phi(z),  z = (mu - f+) / sigma,
    PoF(x)  = prod_i Phi((mu_gi(x) - h_i) / sigma_gi(x)),

mu and sigma the posterior mean and standard deviation of the latent
function (exact Gaussian-likelihood GP regression, noise excluded from
sigma), f+ the best f measured among the measurements whose every
constraint held, and, until one has, argmax PoF; the lowest index on
ties. Written here from the paper with numpy, independently of
safegp's code, on 2-D grids with two constraints and SE kernels; the
measurements' noise is drawn once and written out, and a seed's
measurement starts the data.

    python3 bandit/testdata/ei_golden.py > bandit/testdata/ei_golden.json

Needs numpy (Debian: python3-numpy). Run once;
the JSON is committed.
"""
import json
import math

import numpy as np

_erfc = np.vectorize(math.erfc)


def cdf(z):
    """Phi(z), through erfc for accuracy in the lower tail."""
    return 0.5 * _erfc(-np.asarray(z) / math.sqrt(2))


def pdf(z):
    return np.exp(-0.5 * np.asarray(z) ** 2) / math.sqrt(2 * math.pi)


def se(a, b, variance, lengthscale):
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return variance * np.exp(-0.5 * d2 / lengthscale ** 2)


def posterior(X, Xo, y, variance, lengthscale, noise_var):
    K = se(Xo, Xo, variance, lengthscale) + noise_var * np.eye(len(Xo))
    Ks = se(X, Xo, variance, lengthscale)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    mean = Ks @ alpha
    v = np.linalg.solve(L, Ks.T)
    var = np.maximum(variance - (v * v).sum(0), 0.0)
    return mean, np.sqrt(var)


def case(seed, n, lengthscale, noise_std, rounds):
    rng = np.random.RandomState(seed)
    xs = np.linspace(0.0, 1.0, n)
    X = np.array([[a, b] for a in xs for b in xs])
    # Smooth truths: sums of a few bumps.
    def bumps(k):
        c = rng.uniform(0, 1, size=(k, 2))
        w = rng.uniform(-1, 1, size=k)
        return (w[None, :] * np.exp(-((X[:, None, :] - c[None, :, :]) ** 2).sum(-1) / (2 * 0.25 ** 2))).sum(1)
    f, g1, g2 = bumps(4), bumps(3) + 0.3, bumps(3) + 0.3
    h = [0.0, 0.0]
    ok = np.nonzero((g1 > 0.2) & (g2 > 0.2))[0]
    x0 = int(ok[rng.randint(len(ok))])
    noise = rng.normal(scale=noise_std, size=(rounds + 1, 3))
    variance, noise_var = 1.0, noise_std ** 2
    obs = [x0]
    yf, yg1, yg2 = [f[x0] + noise[0, 0]], [g1[x0] + noise[0, 1]], [g2[x0] + noise[0, 2]]
    trace = []
    for k in range(rounds):
        Xo = X[obs]
        mf, sf = posterior(X, Xo, np.array(yf), variance, lengthscale, noise_var)
        m1, s1 = posterior(X, Xo, np.array(yg1), variance, lengthscale, noise_var)
        m2, s2 = posterior(X, Xo, np.array(yg2), variance, lengthscale, noise_var)
        def above(m, s, t):
            return np.where(s > 0, cdf((m - t) / np.where(s > 0, s, 1)), (m >= t).astype(float))
        pof = above(m1, s1, h[0]) * above(m2, s2, h[1])
        feas = [yf[j] for j in range(len(obs)) if yg1[j] >= h[0] and yg2[j] >= h[1]]
        if feas:
            best = max(feas)
            z = np.where(sf > 0, (mf - best) / np.where(sf > 0, sf, 1), 0)
            ei = np.where(sf > 0, (mf - best) * cdf(z) + sf * pdf(z), np.maximum(mf - best, 0))
            score = ei * pof
        else:
            score = pof
        pick = int(np.argmax(score))  # the first of the maxima: the lowest index
        trace.append(pick)
        obs.append(pick)
        yf.append(f[pick] + noise[k + 1, 0])
        yg1.append(g1[pick] + noise[k + 1, 1])
        yg2.append(g2[pick] + noise[k + 1, 2])
    return {"seed_rng": seed, "lengthscale": lengthscale, "variance": variance, "noise_std": noise_std,
            "x": X.tolist(), "f": f.tolist(), "g": [g1.tolist(), g2.tolist()], "h": h, "x0": x0,
            "y0": [yf[0], yg1[0], yg2[0]], "noise": noise[1:].tolist(), "trace": trace}


if __name__ == "__main__":
    cases = [case(*a) for a in [(1, 12, 0.25, 0.05, 30), (2, 15, 0.2, 0.1, 30), (3, 10, 0.3, 0.02, 30)]]
    print(json.dumps({"source": "Gardner et al. 2014 constrained EI, from the paper in numpy (ei_golden.py)", "cases": cases}))
