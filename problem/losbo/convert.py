#!/usr/bin/env python3
"""Converts the LoSBO suite's functions into problem/losbo/functions.json.

The functions are data of the LoSBO authors' repository,
Data-Science-in-Mechanical-Engineering/LoSBO (MIT licence, copied beside
this script as LICENSE), commit 7cfb0ca846a5264add01da0070bae992df4519d2:
config/rkhs_function_configs/<set>/function_<k>.yaml (threshold, Lipschitz
constant, optimum, reachable safe set) and coeffs/coeffs_function_<k>.pkl
(the coefficients). Run once, from a checkout of that repository:

    python3 problem/losbo/convert.py PATH/TO/LoSBO > problem/losbo/functions.json
    python3 problem/losbo/convert.py --golden PATH/TO/LoSBO > problem/losbo/testdata/golden.json

Needs numpy and PyYAML (Debian's python3-numpy, python3-yaml); --golden
also scikit-learn (python3-sklearn), whose Matern kernel the authors
evaluate their pre-RKHS functions with.
"""
import glob
import json
import math
import os
import pickle
import sys

import numpy as np
import yaml

SETS = {"onb-se": "onb_rkhs_se", "matern32": "pre_rkhs_matern32"}


def load(root, folder, k):
    base = os.path.join(root, "config", "rkhs_function_configs", folder)
    with open(os.path.join(base, f"function_{k}.yaml")) as fh:
        meta = yaml.safe_load(fh)
    with open(os.path.join(base, "coeffs", f"coeffs_function_{k}.pkl"), "rb") as fh:
        coeffs = pickle.load(fh)
    return meta, coeffs


def count(root, folder):
    return len(glob.glob(os.path.join(root, "config", "rkhs_function_configs", folder, "function_*.yaml")))


def functions(root):
    out = {"source": "github.com/Data-Science-in-Mechanical-Engineering/LoSBO@7cfb0ca846a5264add01da0070bae992df4519d2 (MIT)", "sets": {}}
    for name, folder in SETS.items():
        fs = []
        for k in range(count(root, folder)):
            meta, c = load(root, folder, k)
            f = {
                "index": k,
                "gamma": meta["gamma"],
                "threshold": meta["safety_threshold"],
                "lipschitz": meta["lipschitz_constant"],
                "optimum": meta["optimum"],
                "reach": [float(v) for v in meta["reachable_safe_set"]],
                "noise": meta["noise_lvl"],
                "rkhs_norm": meta["rkhs_norm"],
            }
            if name == "onb-se":
                f["degrees"] = [int(v) for v in c["indices_bfuncs"]]
                f["coeffs"] = [float(v) for v in np.asarray(c["coeffs"]).ravel()]
            else:
                f["nu"] = meta["nu"]
                f["base_points"] = [float(v) for v in np.asarray(c["base_points"]).ravel()]
                f["coeffs"] = [float(v) for v in np.asarray(c["coeffs"]).ravel()]
            fs.append(f)
        out["sets"][name] = fs
    return out


def golden(root):
    """f at 11 points for functions 0, 1, 17, 99 of each set, evaluated as
    the authors' code does: se_bfunc_1d's formula for the ONB functions,
    scikit-learn's Matern for the pre-RKHS ones."""
    from sklearn.gaussian_process.kernels import Matern

    xs = np.linspace(0, 1, 11)
    out = {"x": xs.tolist(), "sets": {}}
    for name, folder in SETS.items():
        rows = []
        for k in (0, 1, 17, 99):
            meta, c = load(root, folder, k)
            g = meta["gamma"]
            if name == "onb-se":
                ys = np.zeros_like(xs)
                for n, a in zip(c["indices_bfuncs"], np.asarray(c["coeffs"]).ravel()):
                    n = int(n)
                    ys += a * np.sqrt(2.0 ** n / (g ** (2 * n) * math.factorial(n))) * xs ** n * np.exp(-xs ** 2 / g ** 2)
            else:
                kern = Matern(length_scale=g / math.sqrt(2), nu=meta["nu"])
                ys = (kern(xs.reshape(-1, 1), np.asarray(c["base_points"]).reshape(-1, 1)) @ np.asarray(c["coeffs"]).reshape(-1, 1)).ravel()
            rows.append({"index": k, "f": ys.tolist()})
        out["sets"][name] = rows
    return out


def main():
    args = sys.argv[1:]
    if args and args[0] == "--golden":
        doc = golden(args[1])
    else:
        doc = functions(args[0])
    json.dump(doc, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
