#!/usr/bin/env python3
"""Golden traces of SafeOptSwarm from the SafeOpt library, for
bandit/swarm_golden_test.go.

The reference is befelix/SafeOpt at 06f4579: class SafeOptSwarm
(safeopt/gp_opt.py, with the parts of its base class
GaussianProcessOptimization it uses) and class SwarmOptimization
(safeopt/swarm.py). They need GPy, which this machine does not have, so
both classes are transcribed below statement by statement onto numpy, in
the library's order, with three substitutions (below); otherwise only
np.float and np.bool become float and bool (numpy has dropped them),
the unreachable raise NotImplemented(...) becomes NotImplementedError,
and the logging calls and the base class's methods SafeOptSwarm never
calls are left out:

- GPy's GPRegression is GPRegression below: an RBF kernel
  variance·exp(−|x − y|²/(2ℓ²)), exact Gaussian-likelihood regression as
  GPy's ExactGaussianInference does it (K + (σ² + 1e-8)·I, GPy's 1e-8
  included, Cholesky factor L, α = K⁻¹Y) and predict_noiseless as GPy's
  Posterior._raw_predict: μ = Kₓᵀα, var = k(x, x) − Σ (L⁻¹Kₓ)², the
  latent variance, noise excluded, not clipped.
- scipy's expit and norm.pdf are written out as scipy defines them
  (1/(1 + exp(−x)); exp(−(x/s)²/2)/√(2π)/s).
- np.random is GoRand below: Go's math/rand/v2 Rand over rand.NewPCG(s1,
  s2) (pcg.go's 128-bit LCG with the DXSM output; rand.go's Float64 =
  (u << 11 >> 11)/2⁵³ and IntN = uint64n, Lemire's multiply with its
  rejection), so that safegp, given the same stream, sees the same
  draws. np.random.randint(n, size=k) becomes k IntN(n) draws and
  np.random.rand(a, b) a·b Float64 draws in row-major order; SafeOpt's
  order of draws is safegp's (the S indices; the velocities row by row;
  per iteration one 2·size × d array, r1 its first size rows), so no
  other adaptation is needed.

SafeOptSwarm's max_iters (100 in __init__) is set on the instance after
construction, as a user may. Each case measures f (and g) — sums of
Gaussian bumps, their parameters written out — with Gaussian noise drawn
once from numpy and written out, from a seed measured first (the GPs'
initial data, which SafeOptSwarm takes as its safe set), with the
library's default β (√β = 2). Per round the JSON holds the point
optimize() returns, the size of S after it, the number of uint64 draws
it took, the point's least slack ℓ_i − fmin_i under the GPs before its
measurement (≥ 0: safe under the model) and whether it is safe under
the true functions; and each stream's seed and first four uint64s,
against which the test checks Go's PCG (the 1.1 million draws the
traces take are too many to write out).

    python3 bandit/testdata/swarm_golden.py > bandit/testdata/swarm_golden.json

Needs numpy (Debian: python3-numpy). Run once; the JSON is committed.
"""
import json
import math
from functools import partial

import numpy as np

# ---------------------------------------------------------------------------
# Go's math/rand/v2 (go1.22+; pcg.go and rand.go), standing in for np.random.

M64 = (1 << 64) - 1
PCG_MUL = (2549297995355413924 << 64) | 4865540595714422341
PCG_INC = (6364136223846793005 << 64) | 1442695040888963407


class GoRand(object):
    """rand.New(rand.NewPCG(seed1, seed2)), with numpy's rand/randint."""

    def __init__(self, seed1, seed2):
        self.hi, self.lo = seed1, seed2
        self.count = 0  # uint64s drawn so far

    def uint64(self):
        # PCG.next: state = state·mul + inc mod 2¹²⁸
        state = (((self.hi << 64) | self.lo) * PCG_MUL + PCG_INC) & ((1 << 128) - 1)
        self.hi, self.lo = state >> 64, state & M64
        hi, lo = self.hi, self.lo
        # PCG.Uint64: DXSM
        hi ^= hi >> 32
        hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48
        hi = (hi * (lo | 1)) & M64
        self.count += 1
        return hi

    def float64(self):
        # Rand.Float64: float64(r.Uint64()<<11>>11) / (1 << 53)
        return float(self.uint64() & ((1 << 53) - 1)) / float(1 << 53)

    def intn(self, n):
        # Rand.IntN → uint64n (64-bit: no uint32n path)
        if n <= 0:
            raise ValueError("invalid argument to IntN")
        if n & (n - 1) == 0:
            return self.uint64() & (n - 1)
        p = self.uint64() * n
        hi, lo = p >> 64, p & M64
        if lo < n:
            thresh = ((1 << 64) - n) % n
            while lo < thresh:
                p = self.uint64() * n
                hi, lo = p >> 64, p & M64
        return hi

    # the np.random functions SafeOpt calls
    def rand(self, *shape):
        out = np.empty(shape, dtype=float)
        flat = out.reshape(-1)  # C order: row-major
        for k in range(flat.size):
            flat[k] = self.float64()
        return out

    def randint(self, high, size):
        return np.array([self.intn(int(high)) for _ in range(size)], dtype=int)


RANDOM = None  # the GoRand of the case running: np.random's stand-in

# ---------------------------------------------------------------------------
# GPy stand-ins: GPy.kern.RBF and GPy.models.GPRegression, the parts SafeOpt
# uses (X, Y, input_dim, kern.K, kern.Kdiag, set_XY, predict_noiseless).


class RBF(object):
    def __init__(self, input_dim, variance, lengthscale):
        self.input_dim, self.variance, self.lengthscale = input_dim, variance, lengthscale

    def K(self, X, X2=None):
        if X2 is None:
            X2 = X
        d2 = ((X[:, None, :] - X2[None, :, :]) ** 2).sum(-1)
        return self.variance * np.exp(-0.5 * d2 / self.lengthscale ** 2)

    def Kdiag(self, X):
        return np.full(X.shape[0], self.variance)


class GPRegression(object):
    def __init__(self, X, Y, kernel, noise_var):
        self.kern, self.noise_var = kernel, noise_var
        self.input_dim = kernel.input_dim
        self.set_XY(X, Y)

    def set_XY(self, X, Y):
        self.X, self.Y = np.array(X, dtype=float), np.array(Y, dtype=float)
        # ExactGaussianInference.inference: Ky = K + (variance + 1e-8)·I,
        # pdinv (Cholesky), alpha = dpotrs(LW, Y)
        Ky = self.kern.K(self.X) + (self.noise_var + 1e-8) * np.eye(len(self.X))
        self._L = np.linalg.cholesky(Ky)
        self._alpha = np.linalg.solve(self._L.T, np.linalg.solve(self._L, self.Y))

    def predict_noiseless(self, Xnew):
        # Posterior._raw_predict, full_cov=False
        Kx = self.kern.K(self.X, Xnew)
        mu = Kx.T @ self._alpha
        tmp = np.linalg.solve(self._L, Kx)
        var = (self.kern.Kdiag(Xnew) - np.square(tmp).sum(0))[:, None]
        return mu, var


def expit(x):
    """scipy.special.expit."""
    return 1 / (1 + np.exp(-x))


def norm_pdf(x, scale):
    """scipy.stats.norm.pdf(x, scale=scale)."""
    y = x / scale
    return np.exp(-y ** 2 / 2.0) / np.sqrt(2 * np.pi) / scale

# ---------------------------------------------------------------------------
# safeopt/swarm.py, SwarmOptimization (np.float → float; np.random → RANDOM).


class SwarmOptimization(object):

    def __init__(self, swarm_size, velocity, fitness, bounds=None):
        super(SwarmOptimization, self).__init__()

        self.c1 = self.c2 = 1
        self.fitness = fitness

        self.bounds = bounds
        if self.bounds is not None:
            self.bounds = np.asarray(self.bounds)

        self.initial_inertia = 1.0
        self.final_inertia = 0.1
        self.velocity_scale = velocity

        self.ndim = len(velocity)
        self.swarm_size = swarm_size

        self.positions = np.empty((swarm_size, len(velocity)), dtype=float)
        self.velocities = np.empty_like(self.positions)

        self.best_positions = np.empty_like(self.positions)
        self.best_values = np.empty(len(self.best_positions), dtype=float)
        self.global_best = None

    @property
    def max_velocity(self):
        return 10 * self.velocity_scale

    def init_swarm(self, positions):
        self.positions = positions
        self.velocities = (RANDOM.rand(*self.velocities.shape) *
                           self.velocity_scale)

        values, safe = self.fitness(self.positions)

        # Initialize best estimates
        self.best_positions[:] = self.positions
        self.best_values = values

        self.global_best = self.best_positions[np.argmax(values), :]

    def run_swarm(self, max_iter):
        inertia = self.initial_inertia
        inertia_step = (self.final_inertia - self.initial_inertia) / max_iter

        for _ in range(max_iter):
            # update velocities
            delta_global_best = self.global_best - self.positions
            delta_self_best = self.best_positions - self.positions

            # Random update vectors
            r = RANDOM.rand(2 * self.swarm_size, self.ndim)
            r1 = r[:self.swarm_size]
            r2 = r[self.swarm_size:]

            # Update the velocities
            self.velocities *= inertia
            self.velocities += ((self.c1 * r1 * delta_self_best +
                                 self.c2 * r2 * delta_global_best) /
                                self.velocity_scale)

            inertia += inertia_step

            # clip
            np.clip(self.velocities,
                    -self.max_velocity,
                    self.max_velocity,
                    out=self.velocities)

            # update position
            self.positions += self.velocities

            # Clip particles to domain
            if self.bounds is not None:
                np.clip(self.positions,
                        self.bounds[:, 0],
                        self.bounds[:, 1],
                        out=self.positions)

            # compute fitness
            values, safe = self.fitness(self.positions)

            # find out which particles are improving
            update_set = values > self.best_values

            # update whenever safety and improvement are guaranteed
            update_set &= safe

            self.best_values[update_set] = values[update_set]
            self.best_positions[update_set] = self.positions[update_set]

            best_value_id = np.argmax(self.best_values)
            self.global_best = self.best_positions[best_value_id, :]

# ---------------------------------------------------------------------------
# safeopt/gp_opt.py: GaussianProcessOptimization (what SafeOptSwarm uses)
# and SafeOptSwarm (np.float/np.bool → float/bool; np.random → RANDOM;
# logging dropped).


class GaussianProcessOptimization(object):

    def __init__(self, gp, fmin, beta=2, num_contexts=0, threshold=0,
                 scaling='auto'):
        super(GaussianProcessOptimization, self).__init__()

        if isinstance(gp, list):
            self.gps = gp
        else:
            self.gps = [gp]
        self.gp = self.gps[0]

        self.fmin = fmin
        if not isinstance(self.fmin, list):
            self.fmin = [self.fmin] * len(self.gps)
        self.fmin = np.atleast_1d(np.asarray(self.fmin).squeeze())

        if hasattr(beta, '__call__'):
            self.beta = beta
        else:
            self.beta = lambda t: beta

        if scaling == 'auto':
            dummy_point = np.zeros((1, self.gps[0].input_dim))
            self.scaling = [gpm.kern.Kdiag(dummy_point)[0] for gpm in self.gps]
            self.scaling = np.sqrt(np.asarray(self.scaling))
        else:
            self.scaling = np.asarray(scaling)

        self.threshold = threshold
        self._parameter_set = None
        self.bounds = None
        self.num_samples = 0
        self.num_contexts = num_contexts

        self._x = None
        self._y = None
        self._get_initial_xy()

    @property
    def t(self):
        return self._x.shape[0]

    def _get_initial_xy(self):
        self._x = self.gp.X
        y = [self.gp.Y]
        for gp in self.gps[1:]:
            if np.allclose(self._x, gp.X):
                y.append(gp.Y)
            else:
                raise NotImplementedError('The GPs have different measurements.')
        self._y = np.concatenate(y, axis=1)

    def _add_data_point(self, gp, x, y, context=None):
        gp.set_XY(np.vstack([gp.X, x]),
                  np.vstack([gp.Y, y]))

    def add_new_data_point(self, x, y, context=None):
        x = np.atleast_2d(x)
        y = np.atleast_2d(y)

        for i, gp in enumerate(self.gps):
            not_nan = ~np.isnan(y[:, i])
            if np.any(not_nan):
                self._add_data_point(gp, x[not_nan, :], y[not_nan, [i]])

        self._x = np.concatenate((self._x, x), axis=0)
        self._y = np.concatenate((self._y, y), axis=0)


class SafeOptSwarm(GaussianProcessOptimization):

    def __init__(self, gp, fmin, bounds, beta=2, scaling='auto', threshold=0,
                 swarm_size=20):
        super(SafeOptSwarm, self).__init__(gp,
                                           fmin=fmin,
                                           beta=beta,
                                           num_contexts=0,
                                           threshold=threshold,
                                           scaling=scaling)

        # Safe set
        self.S = np.asarray(self.gps[0].X)

        self.swarm_size = swarm_size
        self.max_iters = 100  # number of swarm iterations

        if not isinstance(bounds, list):
            self.bounds = [bounds] * self.S.shape[1]
        else:
            self.bounds = bounds

        # These are estimates of the best lower bound, and its location
        self.best_lower_bound = -np.inf
        self.greedy_point = self.S[0, :]

        self.optimal_velocities = self.optimize_particle_velocity()

        swarm_types = ['greedy', 'maximizers', 'expanders']

        self.swarms = {swarm_type:
                       SwarmOptimization(
                           swarm_size,
                           self.optimal_velocities,
                           partial(self._compute_particle_fitness,
                                   swarm_type),
                           bounds=self.bounds)
                       for swarm_type in swarm_types}

    def optimize_particle_velocity(self):
        parameters = np.zeros((1, self.gp.input_dim), dtype=float)
        velocities = np.empty((len(self.gps), self.gp.input_dim),
                              dtype=float)

        for i, gp in enumerate(self.gps):
            for j in range(self.gp.input_dim):
                tmp_velocities = np.zeros((1, self.gp.input_dim),
                                          dtype=float)

                # lower and upper bounds on velocities
                upper_velocity = 1000.
                lower_velocity = 0.

                # Binary search over optimal velocities
                while True:
                    mid = (upper_velocity + lower_velocity) / 2
                    tmp_velocities[0, j] = mid

                    kernel_matrix = gp.kern.K(parameters, tmp_velocities)
                    covariance = kernel_matrix.squeeze() / self.scaling[i] ** 2

                    # Make sure the correlation is in the sweet spot
                    velocity_enough = covariance > 0.94
                    not_too_fast = covariance < 0.95

                    if not_too_fast:
                        upper_velocity = mid
                    elif velocity_enough:
                        lower_velocity = mid

                    if ((not_too_fast and velocity_enough) or
                            upper_velocity - lower_velocity < 1e-5):
                        break

                # Store optimal velocity
                velocities[i, j] = mid

        # Select the minimal velocity (for the toughest safety constraint)
        velocities = np.min(velocities, axis=0)

        # Scale for number of parameters
        velocities /= np.sqrt(self.gp.input_dim)
        return velocities

    def _compute_penalty(self, slack):
        penalties = np.atleast_1d(np.clip(slack, None, 0))

        penalties[(slack < 0) & (slack > -0.001)] *= 2
        penalties[(slack <= -0.001) & (slack > -0.1)] *= 5
        penalties[(slack <= -0.1) & (slack > -1)] *= 10

        slack_id = slack < -1
        penalties[slack_id] = -300 * penalties[slack_id] ** 2
        return penalties

    def _compute_particle_fitness(self, swarm_type, particles):
        beta = self.beta(self.t)

        # classify the particle's function values
        mean, var = self.gps[0].predict_noiseless(particles)
        mean = mean.squeeze()
        std_dev = np.sqrt(var.squeeze())

        # compute the confidence interval
        lower_bound = np.atleast_1d(mean - beta * std_dev)
        upper_bound = np.atleast_1d(mean + beta * std_dev)

        # the greedy swarm optimizes for the lower bound
        if swarm_type == 'greedy':
            return lower_bound, np.broadcast_to(True, len(lower_bound))

        # value we are optimizing for. Expanders and maximizers seek high
        # variance points
        values = std_dev / self.scaling[0]

        is_safe = swarm_type == 'safe_set'
        is_expander = swarm_type == 'expanders'
        is_maximizer = swarm_type == 'maximizers'

        if is_safe:
            interest_function = None
        else:
            if is_expander:
                interest_function = (len(self.gps) *
                                     np.ones(np.shape(values), dtype=float))
            elif is_maximizer:
                improvement = upper_bound - self.best_lower_bound
                interest_function = expit(10 * improvement / self.scaling[0])
            else:
                raise AssertionError("Invalid swarm type")

        # boolean mask that tell if the particles are safe according to all gps
        global_safe = np.ones(particles.shape[0], dtype=bool)
        total_penalty = np.zeros(particles.shape[0], dtype=float)

        for i, (gp, scaling) in enumerate(zip(self.gps, self.scaling)):
            # Only recompute confidence intervals for constraints
            if i > 0:
                mean, var = gp.predict_noiseless(particles)
                mean = mean.squeeze()
                std_dev = np.sqrt(var.squeeze())
                lower_bound = mean - beta * std_dev

                values = np.maximum(values, std_dev / scaling)

            # if the current GP has no safety constrain, we skip it
            if self.fmin[i] == -np.inf:
                continue

            slack = np.atleast_1d(lower_bound - self.fmin[i])

            # computing penalties
            global_safe &= slack >= 0

            # Skip cost update for safety evaluation
            if is_safe:
                continue

            # Normalize the slack somewhat
            slack /= scaling

            total_penalty += self._compute_penalty(slack)

            if is_expander:
                interest_function *= norm_pdf(slack, scale=0.2)

        if is_safe:
            return lower_bound, global_safe

        # add penalty
        values += total_penalty

        # apply the mask for current interest function
        values *= interest_function

        return values, global_safe

    def get_new_query_point(self, swarm_type):
        beta = self.beta(self.t)
        safe_size, input_dim = self.S.shape

        # Make sure the safe set is still safe
        _, safe = self._compute_particle_fitness('safe_set', self.S)

        num_safe = safe.sum()
        if num_safe == 0:
            raise RuntimeError('The safe set is empty.')

        # Prune safe set if points in the discrete approximation of the safe
        # ended up being unsafe, but never prune below swarm size to avoid
        # empty safe set.
        if num_safe >= self.swarm_size and num_safe != len(safe):
            # Remove unsafe points
            self.S = self.S[safe]
            safe_size = self.S.shape[0]

        # initialize particles
        if swarm_type == 'greedy':
            # we pick particles u.a.r in the safe set
            random_id = RANDOM.randint(safe_size, size=self.swarm_size - 3)
            best_sampled_point = np.argmax(self.gp.Y)

            particles = np.vstack((self.S[random_id, :],
                                   self.greedy_point,
                                   self.gp.X[-1, :],
                                   self.gp.X[best_sampled_point]))
        else:
            # we pick particles u.a.r in the safe set
            random_id = RANDOM.randint(safe_size, size=self.swarm_size)
            particles = self.S[random_id, :]

        # Run the swarm optimization
        swarm = self.swarms[swarm_type]
        swarm.init_swarm(particles)
        swarm.run_swarm(self.max_iters)

        # expand safe set
        if swarm_type != 'greedy':
            num_added = 0

            # compute correlation between new candidates and current safe set
            covariance = self.gp.kern.K(swarm.best_positions,
                                        np.vstack((self.S,
                                                   swarm.best_positions)))
            covariance /= self.scaling[0] ** 2

            initial_safe = len(self.S)
            n, m = np.shape(covariance)

            # this mask keeps track of the points that we have added in the
            # safe set to account for them when adding a new point
            mask = np.zeros(m, dtype=bool)
            mask[:initial_safe] = True

            for j in range(n):
                # make sure correlation with old points is relatively low
                if np.all(covariance[j, mask] <= 0.95):
                    self.S = np.vstack((self.S, swarm.best_positions[[j], :]))
                    num_added += 1
                    mask[initial_safe + j] = True
        else:
            # check whether we found a better estimate of the lower bound
            mean, var = self.gp.predict_noiseless(self.greedy_point[None, :])
            mean = mean.squeeze()
            std_dev = np.sqrt(var.squeeze())

            lower_bound = mean - beta * std_dev
            if lower_bound < np.max(swarm.best_values):
                self.greedy_point = swarm.global_best.copy()

        if swarm_type == 'greedy':
            return swarm.global_best.copy(), np.max(swarm.best_values)

        # compute the variance of the point picked
        var = np.empty(len(self.gps), dtype=float)
        for i, (gp, scaling) in enumerate(zip(self.gps, self.scaling)):
            var[i] = gp.predict_noiseless(swarm.global_best[None, :])[1]

        return swarm.global_best, np.sqrt(var)

    def optimize(self, ucb=False):
        # compute estimate of the lower bound
        self.greedy, self.best_lower_bound = self.get_new_query_point('greedy')

        # Run both swarms:
        x_maxi, std_maxi = self.get_new_query_point('maximizers')
        if ucb:
            return x_maxi

        x_exp, std_exp = self.get_new_query_point('expanders')

        # Remove expanders below threshold or without safety constraint.
        std_exp[(std_exp < self.threshold) | (self.fmin == -np.inf)] = 0

        # Apply scaling
        std_exp /= self.scaling
        std_exp = np.max(std_exp)

        std_maxi = std_maxi[0] / self.scaling[0]

        if std_maxi > std_exp:
            return x_maxi
        else:
            return x_exp

# ---------------------------------------------------------------------------
# The cases.


def bumps(p, x):
    """offset + Σ_k w_k exp(−|x − c_k|²/(2 s²)), the truths (the Go test
    evaluates the same sum)."""
    v = p["offset"]
    for c, w in zip(p["c"], p["w"]):
        d2 = 0.0
        for xj, cj in zip(x, c):
            d2 += (xj - cj) * (xj - cj)
        v += w * math.exp(-d2 / (2 * p["s"] * p["s"]))
    return v


def case(seed, bounds, lengthscale, noise_std, swarm_size, iters, rounds,
         constraint=True, objective_threshold=None):
    global RANDOM
    rng = np.random.RandomState(seed)
    d = len(bounds)
    lo, hi = np.array(bounds, dtype=float).T
    width = hi - lo
    s = 0.25 * float(np.mean(width))

    def truth(k, offset):
        return {"c": (lo + width * rng.uniform(0, 1, size=(k, d))).tolist(),
                "w": rng.uniform(-1, 1, size=k).tolist(), "s": s, "offset": offset}

    f = truth(4, 0.0)
    g = truth(3, 0.2) if constraint else None
    # A seed well inside the safe set: g ≥ 0.3 and f ≥ h_f + 0.3.
    for _ in range(1000):
        x0 = (lo + width * rng.uniform(0.2, 0.8, size=d)).tolist()
        if (g is None or bumps(g, x0) >= 0.3) and (
                objective_threshold is None or bumps(f, x0) >= objective_threshold + 0.3):
            break
    else:
        raise ValueError("case %d: no seed" % seed)
    gps_n = 2 if constraint else 1
    noise = rng.normal(scale=noise_std, size=(rounds + 1, gps_n))
    variance, noise_var = 1.0, noise_std ** 2
    y0 = [bumps(f, x0) + noise[0, 0]] + ([bumps(g, x0) + noise[0, 1]] if constraint else [])

    pcg = [seed, 0x5AFE]
    RANDOM = GoRand(*pcg)
    probe = GoRand(*pcg)
    first = [probe.uint64() for _ in range(4)]

    kern = RBF(d, variance, lengthscale)
    X0 = np.array([x0])
    gps = [GPRegression(X0, np.array([[y0[0]]]), kern, noise_var)]
    if constraint:
        gps.append(GPRegression(X0, np.array([[y0[1]]]), kern, noise_var))
    fmin = [-np.inf if objective_threshold is None else objective_threshold]
    if constraint:
        fmin.append(0.0)
    opt = SafeOptSwarm(gps if constraint else gps[0], fmin=fmin, bounds=[list(b) for b in bounds],
                       beta=2, swarm_size=swarm_size)
    opt.max_iters = iters

    trace, sizes, draws, model_slack, true_safe = [], [], [], [], []
    for r in range(rounds):
        c0 = RANDOM.count
        x = np.array(opt.optimize(), dtype=float)
        draws.append(RANDOM.count - c0)
        trace.append(x.tolist())
        sizes.append(int(len(opt.S)))
        # the least slack ℓ_i − fmin_i over the GPs with a threshold, before
        # the point's measurement
        slack = math.inf
        for gp, fm in zip(opt.gps, opt.fmin):
            if fm == -np.inf:
                continue
            m, v = gp.predict_noiseless(x[None, :])
            slack = min(slack, float(m[0, 0]) - 2 * math.sqrt(float(v[0, 0])) - fm)
        model_slack.append(slack)
        fx = bumps(f, x.tolist())
        safe = (g is None or bumps(g, x.tolist()) >= 0) and (objective_threshold is None or fx >= objective_threshold)
        true_safe.append(bool(safe))
        y = [fx + noise[r + 1, 0]] + ([bumps(g, x.tolist()) + noise[r + 1, 1]] if constraint else [])
        opt.add_new_data_point(x, np.array([y]))
    return {"seed_rng": seed, "bounds": [list(map(float, b)) for b in bounds], "variance": variance,
            "lengthscale": lengthscale, "noise_var": noise_var, "swarm_size": swarm_size, "iterations": iters,
            "sqrt_beta": 2.0, "objective_threshold": objective_threshold, "f": f, "g": g, "x0": x0, "y0": y0,
            "noise": noise[1:].tolist(), "pcg": pcg, "first_uint64": first,
            "velocity": opt.optimal_velocities.tolist(), "trace": trace, "safe_sizes": sizes, "draws": draws,
            "model_slack": model_slack, "true_safe": true_safe}


if __name__ == "__main__":
    cases = [
        # 1-D, f and one constraint g ≥ 0
        case(1, [(-2.0, 2.0)], 0.5, 0.05, 10, 30, 30),
        # 2-D, f and one constraint, SafeOpt's default swarm (20 particles, 100 iterations)
        case(2, [(0.0, 1.0), (0.0, 1.0)], 0.25, 0.02, 20, 100, 30),
        # 2-D, f ≥ h_f as its own constraint, and g ≥ 0
        case(7, [(-1.0, 1.0), (0.0, 2.0)], 0.4, 0.03, 15, 50, 30, objective_threshold=0.0),
        # 1-D, f ≥ h_f alone (no constraint GP)
        case(14, [(0.0, 3.0)], 0.4, 0.05, 10, 40, 25, constraint=False, objective_threshold=-0.1),
    ]
    print(json.dumps({"source": "befelix/SafeOpt@06f4579 safeopt/gp_opt.py SafeOptSwarm + safeopt/swarm.py, "
                      "transcribed to numpy (swarm_golden.py)", "cases": cases}))
