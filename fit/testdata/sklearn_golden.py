#!/usr/bin/env python3
"""Golden values for package fit, from scikit-learn.

Writes, into the folder of this script:

  gp_d1.csv, gp_d3.csv, gp_d6.csv   300 points drawn from a known GP each
                                    (problem-file format x1..xd,f)
  sklearn.json                      the expected values (below)

sklearn.json holds
  lml:    GaussianProcessRegressor.log_marginal_likelihood(theta,
          eval_gradient=True) at random parameters, for se (RBF) and
          matern32/matern52 (Matern nu=1.5/2.5), isotropic and ARD, with the
          noise a WhiteKernel or known per observation (alpha); theta is
          sklearn's: the logs of (constant, length scale(s), noise level);
  fits:   the best of 20 restarts (n_restarts_optimizer=19) of sklearn's
          maximum-likelihood fit on the first t = 30, 100, 300 points of
          each file, with every restart's log marginal likelihood;
  timing: wall and CPU seconds, evaluations per restart and the log marginal
          likelihood reached, of sklearn's fit with 5 restarts
          (n_restarts_optimizer = 4) on the d = 6, t = 300 data, ARD se,
          seeds 0, 1, ….

Run with the system Python that has scikit-learn (Debian: python3-sklearn):

  /usr/bin/python3 fit/testdata/sklearn_golden.py           # everything
  /usr/bin/python3 fit/testdata/sklearn_golden.py --lml     # only the lml
                                                            # cases, as JSON
                                                            # on stdout
  /usr/bin/python3 fit/testdata/sklearn_golden.py --timing [N]  # only the
                                                            # timing, N fits

Everything is seeded, so a rerun writes the same data and the same lml
values; the fits and the timing depend on the machine's BLAS and load.
"""

import json
import os
import sys
import time

import numpy as np
import scipy
import scipy.optimize
import sklearn
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel

HERE = os.path.dirname(os.path.abspath(__file__))

# sklearn's default bounds for every hyperparameter.
BOUNDS = (1e-5, 1e5)


def base_kernel(name, length_scale):
    if name == "se":
        return RBF(length_scale, BOUNDS)
    nu = {"matern32": 1.5, "matern52": 2.5}[name]
    return Matern(length_scale, BOUNDS, nu=nu)


def lml_cases():
    """LML and gradient at random parameters."""
    rng = np.random.default_rng(20261122)
    cases = []
    t, d = 20, 3
    for name in ("se", "matern32", "matern52"):
        for ard in (False, True):
            for known in (False, True):
                x = rng.random((t, d))
                x[-1] = x[0]  # a repeated measurement
                y = np.sin(3 * x[:, 0]) + 0.3 * rng.standard_normal(t)
                v = float(np.exp(rng.uniform(np.log(0.1), np.log(10))))
                p = d if ard else 1
                ls = np.exp(rng.uniform(np.log(0.1), np.log(2), p))
                length_scale = ls if ard else float(ls[0])
                k = ConstantKernel(v, BOUNDS) * base_kernel(name, length_scale)
                if known:
                    noise = 0.01 + 0.1 * rng.random(t)
                    gp = GaussianProcessRegressor(k, alpha=noise, optimizer=None)
                else:
                    noise = None
                    s2 = float(np.exp(rng.uniform(np.log(1e-4), np.log(1))))
                    k = k + WhiteKernel(s2, BOUNDS)
                    gp = GaussianProcessRegressor(k, alpha=0.0, optimizer=None)
                gp.fit(x, y)
                theta = gp.kernel_.theta
                lml, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
                cases.append({
                    "kernel": name, "ard": ard,
                    "x": x.tolist(), "y": y.tolist(),
                    "noise_var": None if noise is None else noise.tolist(),
                    "theta": theta.tolist(),
                    "lml": float(lml), "grad": grad.tolist(),
                })
    return cases


# The drawing GPs: variance 1, noise standard deviation 0.1, inputs uniform
# on [0, 1]^d.
DRAWS = [
    ("gp_d1.csv", 1, "se", [0.2]),
    ("gp_d3.csv", 3, "matern52", [0.2, 0.4, 0.8]),
    ("gp_d6.csv", 6, "se", [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]),
]
NOISE_STD = 0.1
T = 300

# The fits: (file, kernel, ARD); each on t = 30, 100, 300.
FITS = [
    ("gp_d1.csv", "se", False),
    ("gp_d3.csv", "matern52", True),
    ("gp_d3.csv", "matern32", False),
    ("gp_d6.csv", "se", True),
]


def draw_files():
    rng = np.random.default_rng(7)
    data = {}
    for fname, d, name, ls in DRAWS:
        x = rng.random((T, d))
        k = base_kernel(name, np.array(ls) if d > 1 else ls[0])
        K = k(x) + 1e-8 * np.eye(T)
        f = np.linalg.cholesky(K) @ rng.standard_normal(T)
        y = f + NOISE_STD * rng.standard_normal(T)
        with open(os.path.join(HERE, fname), "w") as out:
            out.write("# %d points drawn from a zero-mean GP, kernel %s, variance 1, "
                      "lengthscale %s, noise std %g, inputs uniform on [0,1]^%d "
                      "(sklearn_golden.py)\n" % (T, name, ls, NOISE_STD, d))
            out.write(",".join(["x%d" % (j + 1) for j in range(d)] + ["f"]) + "\n")
            for i in range(T):
                out.write(",".join(repr(float(v)) for v in list(x[i]) + [y[i]]) + "\n")
        data[fname] = (x, y, ls)
    return data


def fit(x, y, name, ard, restarts, seed, evals=None):
    """sklearn's maximum-likelihood fit; returns the fitted GP and every
    restart's log marginal likelihood, and appends to evals, if given, the
    evaluations (each with its gradient) of each restart."""
    runs = []

    def optimizer(obj_func, initial_theta, bounds):
        # sklearn's own default ("fmin_l_bfgs_b"), recording each restart.
        res = scipy.optimize.minimize(obj_func, initial_theta, method="L-BFGS-B",
                                      jac=True, bounds=bounds)
        runs.append(float(-res.fun))
        if evals is not None:
            evals.append(int(res.nfev))
        return res.x, res.fun

    d = x.shape[1]
    ls = np.ones(d) if ard else 1.0
    k = ConstantKernel(1.0, BOUNDS) * base_kernel(name, ls) + WhiteKernel(1.0, BOUNDS)
    gp = GaussianProcessRegressor(k, alpha=0.0, optimizer=optimizer,
                                  n_restarts_optimizer=restarts - 1, random_state=seed)
    gp.fit(x, y)
    return gp, runs


def timing(data, reps=5):
    """Wall and CPU seconds (all of the process's threads: numpy's BLAS
    may use both cores) of sklearn's 5-restart fit, seeds 0 … reps−1."""
    x, y = data
    secs, cpu, evals, lmls = [], [], [], []
    for rep in range(reps):
        ev = []
        start, start_cpu = time.perf_counter(), time.process_time()
        gp, _ = fit(x, y, "se", True, 5, rep, ev)
        secs.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        evals.append(ev)
        lmls.append(float(gp.log_marginal_likelihood_value_))
    return {"file": "gp_d6.csv", "t": T, "kernel": "se", "ard": True,
            "restarts": 5, "seconds": secs, "cpu_seconds": cpu,
            "evaluations": evals, "lml": lmls}


def read_csv(fname):
    a = np.loadtxt(os.path.join(HERE, fname), delimiter=",", skiprows=2)
    return a[:, :-1], a[:, -1]


def main():
    if sys.argv[1:] == ["--lml"]:
        json.dump({"lml": lml_cases()}, sys.stdout)
        return
    if sys.argv[1:2] == ["--timing"]:
        # Only the timing again, on the files already written; with a
        # number, that many fits.
        path = os.path.join(HERE, "sklearn.json")
        with open(path) as f:
            out = json.load(f)
        reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
        out["timing"] = timing(read_csv("gp_d6.csv"), reps)
        print(out["timing"], file=sys.stderr)
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        return
    out = {
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scipy": scipy.__version__, "sklearn": sklearn.__version__},
        "lml": lml_cases(),
    }
    data = draw_files()
    fits = []
    for fname, name, ard in FITS:
        x, y, ls = data[fname]
        for t in (30, 100, 300):
            gp, runs = fit(x[:t], y[:t], name, ard, 20, 0)
            fits.append({
                "file": fname, "t": t, "kernel": name, "ard": ard,
                "true_lengthscale": ls,
                "lml": float(gp.log_marginal_likelihood_value_),
                "theta": gp.kernel_.theta.tolist(),
                "restart_lmls": runs,
            })
            print(fname, t, name, ard, fits[-1]["lml"], file=sys.stderr)
    out["fits"] = fits
    out["timing"] = timing(data["gp_d6.csv"][:2])
    with open(os.path.join(HERE, "sklearn.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
