package fit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/problem"
)

// golden is testdata/sklearn.json, written by testdata/sklearn_golden.py.
type golden struct {
	Versions map[string]string `json:"versions"`
	LML      []goldenLML       `json:"lml"`
	Fits     []goldenFit       `json:"fits"`
}

type goldenLML struct {
	Kernel   string      `json:"kernel"`
	ARD      bool        `json:"ard"`
	X        [][]float64 `json:"x"`
	Y        []float64   `json:"y"`
	NoiseVar []float64   `json:"noise_var"`
	Theta    []float64   `json:"theta"` // log constant, log length scale(s), log noise level
	Value    float64     `json:"lml"`
	Grad     []float64   `json:"grad"`
}

type goldenFit struct {
	File       string    `json:"file"`
	T          int       `json:"t"`
	Kernel     string    `json:"kernel"`
	ARD        bool      `json:"ard"`
	TrueLength []float64 `json:"true_lengthscale"`
	LML        float64   `json:"lml"`
	Restarts   []float64 `json:"restart_lmls"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sklearn.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// checkSklearnLML compares the log marginal likelihood and its gradient
// with scikit-learn's at its parameters (its theta is our log-parameters,
// in our order), to 1e-8 relative as TestLogMLDense.
func checkSklearnLML(t *testing.T, cases []goldenLML) {
	t.Helper()
	if len(cases) != 12 {
		t.Fatalf("%d cases, want 12", len(cases))
	}
	var worstV, worstG float64
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s/ard=%v/known=%v", i, c.Kernel, c.ARD, c.NoiseVar != nil), func(t *testing.T) {
			dt := newData(c.X, c.Y, c.NoiseVar, families[c.Kernel], c.ARD)
			if len(c.Theta) != dt.nparams() {
				t.Fatalf("%d parameters, want %d", len(c.Theta), dt.nparams())
			}
			g := make([]float64, len(c.Theta))
			lml, ok := newWork(dt, 1).grad(g, c.Theta)
			if !ok {
				t.Fatal("not positive definite")
			}
			worstV = math.Max(worstV, math.Abs(lml-c.Value)/math.Abs(c.Value))
			if !closeRel(lml, c.Value, math.Abs(c.Value), 1e-8) {
				t.Errorf("log ML %.15g, scikit-learn %.15g", lml, c.Value)
			}
			checkGrad(t, g, c.Grad, 1e-8)
			for j := range g {
				worstG = math.Max(worstG, math.Abs(g[j]-c.Grad[j])/math.Max(math.Abs(c.Grad[j]), 1e-300))
			}
		})
	}
	t.Logf("largest relative differences from scikit-learn: value %.2g, gradient entry %.2g", worstV, worstG)
}

func TestSklearnLML(t *testing.T) {
	t.Parallel()
	checkSklearnLML(t, readGolden(t).LML)
}

// TestSklearnLive recomputes the LML cases with scikit-learn where a
// Python with it is installed, and compares them with Go, independently of
// the committed file. Skipped elsewhere, and with -short.
func TestSklearnLive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Python")
	}
	var py string
	for _, cand := range []string{"/usr/bin/python3", "python3"} {
		p, err := exec.LookPath(cand)
		if err == nil && exec.Command(p, "-c", "import sklearn").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with scikit-learn")
	}
	out, err := exec.Command(py, filepath.Join("testdata", "sklearn_golden.py"), "--lml").Output()
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatal(err)
	}
	checkSklearnLML(t, g.LML)
}

// readProblemFile reads a testdata CSV file in the problem format.
func readProblemFile(t testing.TB, name string) ([][]float64, []float64) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := problem.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return p.X, p.F
}

// TestSklearnFits checks maximum-likelihood fits (PriorNone, the default
// restarts, seed 0) on data drawn from known GPs against the best of
// scikit-learn's 20 restarts: a log marginal likelihood at least that
// best − 1e-3 (the tolerance), and at t = 300 the drawing
// lengthscales within a factor 1.5 when the kernel is the drawing one.
// The t = 300 cases are skipped with -short.
func TestSklearnFits(t *testing.T) {
	t.Parallel()
	g := readGolden(t)
	if len(g.Fits) != 12 {
		t.Fatalf("%d fits, want 12", len(g.Fits))
	}
	drawn := map[string]string{"gp_d1.csv": "se", "gp_d3.csv": "matern52", "gp_d6.csv": "se"}
	for _, c := range g.Fits {
		t.Run(fmt.Sprintf("%s/%s/ard=%v/t=%d", c.File, c.Kernel, c.ARD, c.T), func(t *testing.T) {
			if testing.Short() && c.T > 100 {
				t.Skip("t = 300 with -short")
			}
			x, y := readProblemFile(t, c.File)
			res, err := Fit(context.Background(), x[:c.T], y[:c.T], nil, Options{Kernel: c.Kernel, ARD: c.ARD, Prior: PriorNone})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("log ML %.6f, scikit-learn's best of 20 %.6f (%+.2g); lengthscale %.3g, drawn with %.3g",
				res.LogMarginalLikelihood, c.LML, res.LogMarginalLikelihood-c.LML, res.Spec.Lengthscale, c.TrueLength)
			if res.LogMarginalLikelihood < c.LML-1e-3 {
				t.Errorf("log ML %.6f below scikit-learn's best %.6f − 1e-3", res.LogMarginalLikelihood, c.LML)
			}
			if res.LogPosterior != res.LogMarginalLikelihood {
				t.Errorf("prior none: log posterior %v ≠ log ML %v", res.LogPosterior, res.LogMarginalLikelihood)
			}
			if c.T == 300 && c.Kernel == drawn[c.File] {
				for j, l := range res.Spec.Lengthscale {
					if r := l / c.TrueLength[j]; r > 1.5 || r < 1/1.5 {
						t.Errorf("lengthscale[%d] %.3g, drawn with %.3g: off by more than a factor 1.5", j, l, c.TrueLength[j])
					}
				}
			}
		})
	}
}
