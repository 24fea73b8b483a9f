package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/safegp/safegp/internal/quote"
	"github.com/safegp/safegp/internal/readlimit"

	"github.com/safegp/safegp/fit"
	"github.com/safegp/safegp/gp"
	"github.com/safegp/safegp/internal/memlimit"
	"github.com/safegp/safegp/kernel"
	"github.com/safegp/safegp/problem"
)

const fitUsage = `Usage: safegp fit DATA.csv [--kernel se|matern32|matern52] [--ard] [--restarts N]
                  [--prior default|none] [--seed S] [--json] [--workers N] [--max-memory SIZE]

Fits one zero-mean GP to each value column of DATA.csv (f, then g1 … gm), each
on its own: the kernel's variance, lengthscale (one per input dimension with
--ard) and noise standard deviation, by maximum a posteriori estimation with
the default priors (--prior none: maximum likelihood). DATA.csv is in the
problem-file format, x1…xd,f[,g1…gm][,seed][,noise_std]; the seed column is
ignored, and a noise_std column gives each measurement's known noise, which is
then not fitted. Repeated inputs are fine.

Prints a model: block to paste into an experiment configuration or a study
specification, with each GP's log marginal likelihood as a comment; --json
prints {"objective": {...}, "constraints": [...]} instead. The values are not
centred: the GP's prior mean is 0, so centre them first, and shift each
safety threshold by the same amount (docs/fitting.md, "Centre the data").

Flags:
`

func fitCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("safegp fit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kern := fs.String("kernel", "se", "kernel: `se`, matern32 or matern52")
	ard := fs.Bool("ard", false, "one lengthscale per input dimension")
	restarts := intFlag(fs, "restarts", fit.DefaultRestarts, "optimizer `runs` per GP: one from a fixed start, the others from the prior")
	priorName := fs.String("prior", "default", "hyperprior: `default` (MAP) or none (maximum likelihood)")
	seed := uint64Flag(fs, "seed", 0, "`seed` of the restarts' start points")
	asJSON := fs.Bool("json", false, "print JSON instead of a model: block")
	workers := intFlag(fs, "workers", runtime.NumCPU(), "restarts run in parallel on `N` workers, and at most N cores are used; the result does not depend on it")
	var maxMem memlimit.Flag
	fs.Var(&maxMem, "max-memory", "refuse a fit whose memory estimate is above `SIZE` (8GiB, 512MiB, bytes)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), fitUsage)
		fs.PrintDefaults()
	}
	pos, ok, err := parse(fs, args)
	if !ok {
		return err
	}
	defer useCores(*workers)()
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "safegp fit: want exactly one DATA.csv file, got %d arguments\n", len(pos))
		return errUsage
	}
	prior, err := fit.ParsePrior(*priorName)
	if err != nil {
		fmt.Fprintf(stderr, "safegp fit: --prior must be default or none, got %s\n", quote.Short(*priorName))
		return errUsage
	}
	if *restarts < 1 || *restarts > fit.MaxRestarts {
		fmt.Fprintf(stderr, "safegp fit: --restarts must be in 1…%d, got %d\n", fit.MaxRestarts, *restarts)
		return errUsage
	}
	switch *kern {
	case "se", "matern32", "matern52":
	default:
		fmt.Fprintf(stderr, "safegp fit: --kernel must be se, matern32 or matern52, got %s\n", quote.Short(*kern))
		return errUsage
	}
	path := pos[0]
	f, err := readlimit.Open(path, readlimit.For(maxMem.Limit()), readlimit.MaxLine)
	if err != nil {
		return err
	}
	p, err := problem.ReadCSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	opt := fit.Options{Kernel: *kern, ARD: *ard, Restarts: *restarts, Prior: prior, Seed: *seed,
		Workers: max(1, *workers), MaxMemory: maxMem.Limit()}
	var noiseVar []float64
	if p.NoiseStds != nil {
		noiseVar = make([]float64, len(p.NoiseStds))
		for i, s := range p.NoiseStds {
			noiseVar[i] = s * s
		}
	}
	if p.N() > 1000 && p.N() <= fit.MaxPoints {
		fmt.Fprintf(stderr, "safegp fit: %d points: each GP's fit costs O(t³) per evaluation and may take minutes\n", p.N())
	}
	cols := append([][]float64{p.F}, p.G...)
	fits := make([]fit.Result, len(cols))
	for c, y := range cols {
		if fits[c], err = fit.Fit(context.Background(), p.X, y, noiseVar, opt); err != nil {
			return fmt.Errorf("%s: %s: %w", path, column(c), err)
		}
	}
	for c, r := range fits {
		for _, w := range r.Warnings {
			fmt.Fprintf(stderr, "safegp fit: %s: warning: %s\n", column(c), w)
		}
	}
	// Each column's Lipschitz estimate, for losbo's bounds (docs/fitting.md).
	var lips [][]float64
	if p.N() <= maxLipschitzPoints {
		for c, y := range cols {
			est, err := lipschitzEstimate(p.X, y, noiseVar, fits[c].Spec)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", path, column(c), err)
			}
			lips = append(lips, est)
		}
	}
	// Everything is written at once, so that an error leaves stdout empty.
	var out bytes.Buffer
	if *asJSON {
		writeFitJSON(&out, fits, lips)
	} else {
		writeFitYAML(&out, fits, lips, fitHeader(path, p, opt), rms(p.NoiseStds))
	}
	_, err = stdout.Write(out.Bytes())
	return err
}

// rms is the root mean square of s, 0 for none.
func rms(s []float64) float64 {
	var q float64
	for _, v := range s {
		q += v * v
	}
	if len(s) == 0 {
		return 0
	}
	return math.Sqrt(q / float64(len(s)))
}

// column names value column c: f, g1, g2, ….
func column(c int) string {
	if c == 0 {
		return "f"
	}
	return "g" + strconv.Itoa(c)
}

// num writes a fitted value with 6 significant digits: the fit's
// uncertainty is far larger, and the block stays readable.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func fitHeader(path string, p *problem.Problem, opt fit.Options) string {
	ard := ""
	if opt.ARD {
		ard = ", ARD"
	}
	noise := "fitted"
	if p.NoiseStds != nil {
		noise = "known (the file's noise_std column)"
	}
	return fmt.Sprintf("# safegp fit %s: %d points, d = %d; kernel %s%s, prior %v, %d restarts, seed %d; noise %s.\n"+
		"# Prior mean 0: values are used as given, not centred.\n",
		path, p.N(), p.Dim(), opt.Kernel, ard, opt.Prior, opt.Restarts, opt.Seed, noise)
}

// kernelFlow is a fitted kernel in YAML flow style.
func kernelFlow(s kernel.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{kernel: %s, lengthscale: ", s.Kernel)
	if len(s.Lengthscale) == 1 {
		b.WriteString(num(s.Lengthscale[0]))
	} else {
		b.WriteString("[")
		for j, l := range s.Lengthscale {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(num(l))
		}
		b.WriteString("]")
	}
	fmt.Fprintf(&b, ", variance: %s", num(*s.Variance))
	if s.NoiseStd != nil {
		fmt.Fprintf(&b, ", noise_std: %s", num(*s.NoiseStd))
	}
	b.WriteString("}")
	return b.String()
}

func lmlComment(c int, r fit.Result) string {
	s := fmt.Sprintf("%s: log marginal likelihood %.6g", column(c), r.LogMarginalLikelihood)
	if r.LogPosterior != r.LogMarginalLikelihood {
		s += fmt.Sprintf(", log posterior %.6g", r.LogPosterior)
	}
	return s
}

// writeFitYAML writes the model: block. Each kernel carries its own fitted
// noise_std; model.noise_std, which a configuration requires, repeats the
// objective's (or, with known noise, the root mean square of the file's
// noise_std column, rmsNoise, for measurements told without their own). δ is not
// fitted: it is set to docs/fitting.md's example value, to be chosen.
func writeFitYAML(w io.Writer, fits []fit.Result, lips [][]float64, header string, rmsNoise float64) {
	io.WriteString(w, header)
	io.WriteString(w, "model:\n")
	fmt.Fprintf(w, "  # %s\n", lmlComment(0, fits[0]))
	if lips != nil {
		fmt.Fprintf(w, "  # %s\n", lipschitzComment(lips[0]))
	}
	fmt.Fprintf(w, "  objective: %s\n", kernelFlow(fits[0].Spec))
	if len(fits) == 1 {
		io.WriteString(w, "  constraints: []\n")
	} else {
		io.WriteString(w, "  constraints:\n")
		for c, r := range fits[1:] {
			fmt.Fprintf(w, "    # %s\n", lmlComment(c+1, r))
			if lips != nil {
				fmt.Fprintf(w, "    # %s\n", lipschitzComment(lips[c+1]))
			}
			fmt.Fprintf(w, "    - %s\n", kernelFlow(r.Spec))
		}
	}
	if s := fits[0].Spec.NoiseStd; s != nil {
		fmt.Fprintf(w, "  noise_std: %s   # the objective's; each kernel above carries its own\n", num(*s))
	} else {
		fmt.Fprintf(w, "  noise_std: %s   # root mean square of the file's noise_std column\n", num(rmsNoise))
	}
	io.WriteString(w, "  delta: 0.01   # not fitted: the confidence δ of the safety guarantee, yours to choose\n")
}

// fitJSON is one GP in --json output. NoiseStd is null when the noise was
// known (the file's noise_std column) rather than fitted.
type fitJSON struct {
	Kernel                string    `json:"kernel"`
	Lengthscale           []float64 `json:"lengthscale"`
	Variance              float64   `json:"variance"`
	NoiseStd              *float64  `json:"noise_std"`
	NoiseKnown            bool      `json:"noise_known"`
	LogMarginalLikelihood float64   `json:"log_marginal_likelihood"`
	LogPosterior          float64   `json:"log_posterior"`
	Warnings              []string  `json:"warnings,omitempty"`
	// LipschitzEstimate is lipschitzEstimate's, per coordinate: an
	// estimate from the data, not a bound.
	LipschitzEstimate []float64 `json:"lipschitz_estimate,omitempty"`
}

func toJSON(r fit.Result) fitJSON {
	return fitJSON{
		Kernel: r.Spec.Kernel, Lengthscale: r.Spec.Lengthscale, Variance: *r.Spec.Variance,
		NoiseStd: r.Spec.NoiseStd, NoiseKnown: r.Spec.NoiseStd == nil,
		LogMarginalLikelihood: r.LogMarginalLikelihood, LogPosterior: r.LogPosterior, Warnings: r.Warnings,
	}
}

func writeFitJSON(w io.Writer, fits []fit.Result, lips [][]float64) {
	js := make([]fitJSON, len(fits))
	for c, r := range fits {
		js[c] = toJSON(r)
		if lips != nil {
			js[c].LipschitzEstimate = lips[c]
		}
	}
	out := struct {
		Objective   fitJSON   `json:"objective"`
		Constraints []fitJSON `json:"constraints"`
	}{Objective: js[0], Constraints: append([]fitJSON{}, js[1:]...)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // a buffer: cannot fail
}

// maxLipschitzPoints bounds the data lipschitzEstimate reads: its GP
// over the points holds an N × N matrix (32 MiB at 2 000).
const maxLipschitzPoints = 2000

// lipschitzEstimate estimates, per coordinate of the data, the largest
// slope |∂μ/∂x_j| of the fitted GP's posterior mean over the data's
// bounding box: at every data point and 256 points drawn uniformly in
// the box, by central differences of 10⁻⁴ of the box. It is an estimate
// from the data, not a bound: the function may be steeper between or
// beyond the points, and losbo's safety rests on the bound given.
func lipschitzEstimate(x [][]float64, y, noiseVar []float64, s kernel.Spec) ([]float64, error) {
	k, err := kernel.New(s)
	if err != nil {
		return nil, err
	}
	noise := 0.0
	if s.NoiseStd != nil {
		noise = *s.NoiseStd
	}
	g := gp.New(k, x, noise)
	for i := range x {
		if noiseVar != nil {
			g.Add(i, y[i], noiseVar[i])
		} else {
			g.Observe(i, y[i])
		}
	}
	d := len(x[0])
	lo, hi := slices.Clone(x[0]), slices.Clone(x[0])
	for _, p := range x {
		for j, v := range p {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	probes := slices.Clone(x)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 256 {
		p := make([]float64, d)
		for j := range p {
			p[j] = lo[j] + rng.Float64()*(hi[j]-lo[j])
		}
		probes = append(probes, p)
	}
	est := make([]float64, d)
	q := make([]float64, d)
	for _, p := range probes {
		for j := range d {
			h := 1e-4 * max(hi[j]-lo[j], 1e-12)
			copy(q, p)
			q[j] = p[j] + h
			up, _ := g.PredictAt(q)
			q[j] = p[j] - h
			down, _ := g.PredictAt(q)
			est[j] = max(est[j], math.Abs(up-down)/(2*h))
		}
	}
	return est, nil
}

// lipschitzComment is the YAML comment of a column's estimate.
func lipschitzComment(est []float64) string {
	parts := make([]string, len(est))
	for j, v := range est {
		parts[j] = fmt.Sprintf("x%d: %s", j+1, num(v))
	}
	return "lipschitz estimate {" + strings.Join(parts, ", ") + "} (the fitted mean's steepest slope per unit of each x over the data's box: an estimate from the data, not a bound; losbo's safety rests on the bound you give, so give one with margin)"
}
