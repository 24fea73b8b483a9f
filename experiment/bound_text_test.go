package experiment_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/safegp/safegp/experiment"
	"github.com/safegp/safegp/theory"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestBoundReportWriteText: the table `safegp bound` prints, compared byte
// for byte with testdata/bound-*.golden (go test -run WriteText -update
// rewrites them; review the diff). The reports are built by hand so that
// every row appears: Theorem 2 with scaled kernels, Theorem 4 with QFF and
// RFF maps short of the guarantee and a σ per GP, constraints without a T', rules that
// ended and one that failed.
func TestBoundReportWriteText(t *testing.T) {
	t.Parallel()
	head := experiment.BoundReport{
		Realization: 3, N: 102, Dim: 2, M: 1, SeedSize: 21, Horizon: 500,
		NoiseStd: 0.1, Delta: 0.01, Epsilon: 0.01,
		BetaT: 45.70312, GammaT: 1575.4444, B: 652.33333, C1: 1.7328679,
	}
	theorem2 := head
	theorem2.Constraints = []experiment.ConstraintBound{{Exploration: &theory.Exploration{
		Theorem: 2, Features: "linear", Dim: 2, Lambda: 0.23116, BetaT: 45.70312, Guarantee: true,
		KMax: 4, RMax: 2.5, TEps: 158123.4, TDelta: 183.2999, TPrime: 500,
	}}}
	theorem2.TPrime, theorem2.Regret, theorem2.Guarantee = 500, 333987.1, true
	theorem2.Rules = []experiment.RuleLength{
		{Label: "sgp-ucb", Rule: "plateau window 20 cap 100", Rounds: 20},
		{Label: "fixed", Rule: "fixed 30", Rounds: 30},
		{Label: "stageopt", Rule: "plateau window 5 cap 10", Error: "problem: empty ε-safe set"},
		{Label: "safeopt-mc", Rule: "theory (t*)", Rounds: 321},
	}
	// SafeOpt-MC's t* within the horizon, and (below) beyond it, none
	// (ε = 0) and refused (σ = 0).
	theorem2.TStar = &theory.TStar{Reach0: 37, GPs: 2, C1: 1.7328679, Epsilon: 2.5, Target: 10.538, T: 321, BetaT: 0.5, GammaT: 60.9, Ratio: 10.541}

	theorem4 := head
	theorem4.M = 2
	theorem4.NoiseStds = []float64{0.1, 0.05, 0.2} // the constraints' sensors differ
	theorem4.Constraints = []experiment.ConstraintBound{
		{Exploration: &theory.Exploration{
			Theorem: 4, Features: "qff", Nodes: 4, Dim: 16, Lambda: 0.0123, BetaT: 46.1,
			Eps0Target: 5.48e-18, Eps0Bound: 0.00123, Eps0Measured: 0.000456,
			KMax: 1, RMax: 1, TEps: 1.2e9, TDelta: 4321.5, TPrime: 500,
		}},
		{Exploration: &theory.Exploration{
			Theorem: 4, Features: "rff", Dim: 20, Lambda: 0.5, BetaT: 46.1,
			Eps0Target: 5.48e-18, Eps0Measured: 0.31, KMax: 1, RMax: 1, TEps: 77.7, TDelta: 66.6, TPrime: 78,
		}},
	}
	theorem4.TPrime, theorem4.Regret, theorem4.Guarantee = 500, 412345.6, false
	theorem4.TStar = &theory.TStar{Reach0: 21, GPs: 3, C1: 1.7328679, Epsilon: 0.01, Target: 381231, T: 361140257710, BetaT: 127.3, GammaT: 7442, Ratio: 381232}

	none := head
	none.Constraints = []experiment.ConstraintBound{
		{Error: "theory: no explicit feature map for kernel \"matern32\""},
		{Exploration: &theory.Exploration{Theorem: 4, Features: "qff", BetaT: 45.7, Eps0Target: 5.48e-18, Guarantee: true},
			Error: "no feature map meets Theorem 4's ε_0 condition: no QFF with up to 64 nodes per dimension reaches ε_0 ≤ 5.48e-18"},
		{Exploration: &theory.Exploration{Theorem: 2, Features: "polynomial", Dim: 10, BetaT: 45.7, Guarantee: true},
			Error: "seed set too small for the guarantee: λ_− = 0 for the polynomial feature map of dimension 10 over 3 seed actions"},
	}
	none.TStarError = "no t* for this setting: noise σ = 0: C_1 = 8/log(1 + σ⁻²) and γ_t need a finite σ > 0 (Berkenkamp et al. 2016, Theorem 1)"

	// An objective threshold without constraints: f's row, named so.
	objective := head
	objective.M, objective.ObjectiveThreshold = 0, new(-0.5)
	objective.Constraints = []experiment.ConstraintBound{{Objective: true, Exploration: &theory.Exploration{
		Theorem: 2, Features: "linear", Dim: 2, Lambda: 0.23116, BetaT: 44.31683, Guarantee: true,
		KMax: 1, RMax: 1, TEps: 153.3, TDelta: 183.2999, TPrime: 184,
	}}}
	objective.TPrime, objective.Regret, objective.Guarantee = 184, 123456.7, true
	objective.TStar = &theory.TStar{Reach0: 5, GPs: 1, C1: 1.7328679, Target: math.Inf(1)}

	for _, c := range []struct {
		name string
		rep  *experiment.BoundReport
	}{{"theorem2", &theorem2}, {"theorem4", &theorem4}, {"no-tprime", &none}, {"objective", &objective}} {
		t.Run(c.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := c.rep.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "bound-"+c.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run WriteText -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("WriteText differs from %s (go test -run WriteText -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got.Bytes(), want)
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestBoundReportWriteTextError: a failed write is returned, not lost.
func TestBoundReportWriteTextError(t *testing.T) {
	t.Parallel()
	rep := &experiment.BoundReport{N: 2}
	if err := rep.WriteText(failingWriter{}); err == nil {
		t.Error("WriteText to a failing writer returned nil")
	}
}
