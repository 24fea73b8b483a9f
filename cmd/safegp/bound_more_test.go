package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// csv1D is a 1-D problem of ten actions on [0, 1.8] whose first five
// are seeds.
func csv1D() string {
	var b strings.Builder
	b.WriteString("x1,f,g1,seed\n")
	for i := range 10 {
		x := 0.2 * float64(i)
		seed := 0
		if i < 5 {
			seed = 1
		}
		fmt.Fprintf(&b, "%g,%g,%g,%d\n", x, x, 2-x, seed)
	}
	return b.String()
}

// TestBoundText: the table names each theorem's quantities, says when a
// feature map carries no guarantee, when the bounds are scaled because
// k > 1, and when the seed set gives no T' at all.
func TestBoundText(t *testing.T) {
	base := strings.NewReplacer(
		"horizon: 20", "horizon: 200",
		"exploration: {fixed: 5}", "exploration: {plateau: {window: 5, cap: 50}}",
	).Replace(goodConfig)
	cases := []struct {
		name, constraint string
		flags            []string
		want             []string
	}{
		{"QFF with fixed nodes", "{kernel: se, lengthscale: 1}", []string{"--features", "qff", "--nodes", "3"},
			[]string{"Theorem 4, qff features, dimension 3 (3 nodes per dimension)", "ε_0 needed ≤", "QFF lemma bound", "measured on D",
				"no guarantee", "T' (theory)", "regret bound", "not a guarantee: a feature map misses the ε_0 condition", "rule sgp-ucb plateau window 5 cap 50:"}},
		{"RFF", "{kernel: matern32, lengthscale: 1}", []string{"--features", "rff", "--size", "4"},
			[]string{"Theorem 4, rff features, dimension 4", "no guarantee"}},
		{"linear kernel of variance 4", "{kernel: linear, variance: 4}", nil,
			// λ_− = v·mean of x² over the seeds 0, 0.2 … 0.8 = 4·0.24 = 0.96;
			// max k = 4·1.8² = 12.96 on D, 4·0.8² = 2.56 on D^w.
			[]string{"Theorem 2, linear features, dimension 1", "λ_− 0.96", "scaling k_g(x,x) up to 13 on D, 2.56 on D^w"}},
		{"a constraint's own σ", "{kernel: linear, variance: 4, noise_std: 0.2}", nil,
			[]string{"model σ_f = 0.05, σ_g1 = 0.2, δ = 0.1", "λ_− 0.96"}},
		{"seed set too small", "{kernel: polynomial, degree: 9}", nil,
			[]string{"no T'", "seed set too small", "T' (theory) none"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := setup(t, strings.Replace(base, "constraints: [{kernel: se, lengthscale: 0.5}]", "constraints: ["+c.constraint+"]", 1), csv1D())
			var stdout, stderr bytes.Buffer
			if err := run(append([]string{"bound", cfg}, c.flags...), &stdout, &stderr); err != nil {
				t.Fatalf("bound: %v\n%s", err, stderr.String())
			}
			out := strings.Join(strings.Fields(stdout.String()), " ") // the table's padding aside
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}

// TestHelpAndUsage: every command's help exits 0 and describes it; bad
// arguments exit 2 with the reason on stderr.
func TestHelpAndUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in stdout or stderr
	}{
		{[]string{"help"}, "safegp — safe Gaussian-process bandit optimization"},
		{[]string{"help", "run"}, "Usage: safegp run CONFIG"},
		{[]string{"help", "bound"}, "Usage: safegp bound CONFIG"},
		{[]string{"help", "reproduce"}, "Usage: safegp reproduce"},
		{[]string{"help", "serve"}, "Usage: safegp serve --db FILE"},
		{[]string{"help", "nothing"}, "safegp — safe Gaussian-process bandit optimization"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(c.args, &stdout, &stderr); err != nil || !strings.Contains(stdout.String()+stderr.String(), c.want) {
			t.Errorf("%v: %v, want %q in the output", c.args, err, c.want)
		}
	}
	cfg, _ := setup(t, goodConfig, goodCSV)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bound"}, "want exactly one CONFIG file, got 0"},
		{[]string{"bound", cfg, "--features", "fourier"}, `--features must be qff or rff, got "fourier"`},
		{[]string{"bound", cfg, "--size", "3"}, "--size even"},
		{[]string{"bound", cfg, "--nodes", "-1"}, "--nodes must be ≥ 0"},
		{[]string{"bound", cfg, "--realization", "2"}, "--realization must be in 0…1, got 2"},
		{[]string{"reproduce", "extra"}, "unexpected arguments [extra]"},
		{[]string{"reproduce", "--workers", "0"}, "--workers must be ≥ 1, got 0"},
		{[]string{"serve"}, "--db FILE is required"},
		{[]string{"serve", "--db", "x.db", "--max-open", "0", "--addr", "127.0.0.1:0"}, "--max-open must be ≥ 1, got 0"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(c.args, &stdout, &stderr)
		if exitCode(err) != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d (%v), stderr %q; want 2 and %q", c.args, exitCode(err), err, stderr.String(), c.want)
		}
	}
}

// TestBoundFrequentist: with a frequentist β, bound prints √β before the
// first observation and the most it can reach after T, by the closed
// forms (Fiedler et al. 2021 with log det K = 0 and with Hadamard's
// bound T·log(k_max + λ); k_max = 1, λ = σ² = 0.0025, δ = 0.1, m + 1 = 2
// GPs, T = 20).
func TestBoundFrequentist(t *testing.T) {
	cfg, _ := setup(t, strings.Replace(goodConfig, "delta: 0.1", "delta: 0.1\n  beta: {rkhs_norm: 2, noise_bound: 0.1}", 1), csv1D())
	var stdout, stderr bytes.Buffer
	if err := run([]string{"bound", cfg}, &stdout, &stderr); err != nil {
		t.Fatalf("bound: %v\n%s", err, stderr.String())
	}
	lam, logG := 0.0025, math.Log(2/0.1)
	b1 := 2 + 0.1/math.Sqrt(lam)*math.Sqrt(2*logG)
	bT := 2 + 0.1/math.Sqrt(lam)*math.Sqrt(20*math.Log(1+lam)+20*math.Log(1/lam)+2*logG)
	out := strings.Join(strings.Fields(stdout.String()), " ")
	for _, want := range []string{fmt.Sprintf("frequentist √β_1 %.4g fiedler bound, B = 2, R = 0.1", b1), fmt.Sprintf("frequentist √β_T ≤ %.4g", bT)} {
		if !strings.Contains(out, want) {
			t.Errorf("bound's output lacks %q:\n%s", want, stdout.String())
		}
	}
}
