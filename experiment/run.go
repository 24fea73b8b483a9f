package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/safegp/safegp/bandit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

// Run is one algorithm played on one realization (SPEC §9).
type Run struct {
	Algorithm         string    `json:"algorithm"`
	Label             string    `json:"label"`
	Realization       int       `json:"realization"`
	Actions           []int     `json:"actions"`
	Regret            []float64 `json:"regret"`
	ReachableRegret   []float64 `json:"reachable_regret"`
	Violations        int       `json:"violations"`
	SafeSetSize       []int     `json:"safe_set_size"`
	ExplorationRounds int       `json:"exploration_rounds"`

	violationRounds []int // 0-based rounds that violated a constraint
}

// Results is the content of results.json.
type Results struct {
	Config *Config `json:"config"`
	Runs   []Run   `json:"runs"`
}

// Options tune how an experiment runs; they never change its results.
type Options struct {
	// Workers is the number of goroutines; 0 means all cores.
	Workers int
	// Progress, if set, is called (from any goroutine) after each run.
	Progress func()
}

// Random streams: realization r of an experiment with root seed s draws
// from PCG(s, mix(r, purpose)), so a stream depends only on (s, r) and its
// purpose — never on worker count or on the other algorithms (SPEC §6).
// Every algorithm of a realization sees the same noise sequence and the same
// policy stream.
const (
	streamProblem = 1
	streamNoise   = 2
	streamPolicy  = 3
)

func stream(seed uint64, r, purpose int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix(uint64(r)<<8|uint64(purpose))))
}

// splitmix is SplitMix64's finalizer: distinct inputs give well-mixed,
// distinct PCG sequence selectors.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Instance is one realization's problem with its derived quantities.
type Instance struct {
	Problem *problem.Problem
	Info    *problem.Info
}

// Instance draws (or reads) the problem of realization r; fixed, if not
// nil, is the problem file's content, shared by every realization.
func (c *Config) Instance(r int, fixed *problem.Problem) (Instance, error) {
	p := fixed
	if p == nil {
		var err error
		p, err = problem.Generate(c.Problem.Generate, c.Problem.Thresholds, c.Problem.Epsilon, c.Problem.NoiseStd, stream(c.Seed, r, streamProblem))
		if err != nil {
			return Instance{}, fmt.Errorf("realization %d: problem.generate: %w", r, err)
		}
	}
	info, err := p.Analyze()
	if err != nil {
		return Instance{}, fmt.Errorf("realization %d: %w", r, err)
	}
	return Instance{p, info}, nil
}

// Env is what every algorithm knows of realization r: the model kernels of
// the configuration and the realization's problem and policy stream.
func (c *Config) Env(r int, in Instance) *bandit.Env {
	kf, _ := kernel.New(c.objectiveKernel())
	var kg []kernel.Kernel
	for _, s := range c.constraintKernels() {
		k, _ := kernel.New(s)
		kg = append(kg, k)
	}
	return &bandit.Env{
		X:           in.Problem.X,
		Seed:        in.Problem.Seed,
		H:           in.Problem.H,
		Epsilon:     in.Problem.Epsilon,
		Objective:   kf,
		Constraints: kg,
		NoiseStd:    *c.Model.NoiseStd,
		Delta:       c.Model.Delta,
		Beta:        c.beta(),
		Horizon:     c.Horizon,
		Rand:        stream(c.Seed, r, streamPolicy),
		TrueSafe:    in.Info.SafeTrue,
		Lipschitz:   in.Info.Lipschitz,
	}
}

// Noise is the observation-noise stream of realization r.
func (c *Config) Noise(r int) *rand.Rand { return stream(c.Seed, r, streamNoise) }

// Execute runs every configured algorithm on every realization.
func Execute(ctx context.Context, c *Config, opt Options) (*Results, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	fixed, err := c.LoadProblem()
	if err != nil {
		return nil, err
	}
	insts := make([]Instance, c.Realizations)
	if err := parallel(ctx, workers, c.Realizations, func(r int) error {
		var err error
		insts[r], err = c.Instance(r, fixed)
		return err
	}); err != nil {
		return nil, err
	}
	na := len(c.Algorithms)
	runs := make([]Run, na*c.Realizations)
	err = parallel(ctx, workers, len(runs), func(j int) error {
		a, r := j/c.Realizations, j%c.Realizations
		run, err := Play(&c.Algorithms[a], c.Env(r, insts[r]), insts[r].Problem, insts[r].Info, c.Noise(r))
		if err != nil {
			return fmt.Errorf("algorithms[%d] (%s), realization %d: %w", a, c.Algorithms[a].DisplayLabel(), r, err)
		}
		run.Realization = r
		runs[j] = *run
		if opt.Progress != nil {
			opt.Progress()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Results{Config: c, Runs: runs}, nil
}

// Play drives one policy for env.Horizon rounds against the true problem,
// drawing observation noise from noise (1 + m normal draws per round when
// the noise is not zero).
func Play(s *bandit.Spec, env *bandit.Env, p *problem.Problem, info *problem.Info, noise *rand.Rand) (*Run, error) {
	pol, err := bandit.New(s, env)
	if err != nil {
		return nil, err
	}
	T := env.Horizon
	run := &Run{
		Algorithm:       s.Name,
		Label:           s.DisplayLabel(),
		Actions:         make([]int, T),
		Regret:          make([]float64, T),
		ReachableRegret: make([]float64, T),
		SafeSetSize:     make([]int, T),
	}
	z := make([]float64, p.M())
	for t := 0; t < T; t++ {
		a := pol.Next()
		if a < 0 || a >= p.N() {
			return nil, fmt.Errorf("%s chose action %d outside 0…%d in round %d", s.DisplayLabel(), a, p.N()-1, t+1)
		}
		run.Actions[t] = a
		run.SafeSetSize[t] = pol.SafeSetSize()
		run.Regret[t] = info.FStar - p.F[a]
		run.ReachableRegret[t] = info.FReach - p.F[a]
		if !p.Safe(a, 0) {
			run.Violations++
			run.violationRounds = append(run.violationRounds, t)
		}
		y := p.F[a]
		for i := range z {
			z[i] = p.G[i][a]
		}
		if p.NoiseStd > 0 {
			y += p.NoiseStd * noise.NormFloat64()
			for i := range z {
				z[i] += p.NoiseStd * noise.NormFloat64()
			}
		}
		pol.Observe(a, y, z)
	}
	run.ExplorationRounds = pol.ExplorationRounds()
	return run, nil
}

// parallel calls fn(0) … fn(n−1) on up to workers goroutines and returns
// the error of the lowest failing index, so that errors do not depend on
// scheduling. It stops handing out work after a failure or cancellation.
func parallel(ctx context.Context, workers, n int, fn func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := false
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					errs[i] = err
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		mu.Lock()
		stop := failed
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
