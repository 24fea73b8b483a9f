package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/safegp/safegp/config"
	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/study"
)

// fitCSV writes a problem file of n points in [0, 1]² with f and m
// constraint columns (smooth functions plus noise), and a noise_std column
// when known.
func fitCSV(t *testing.T, n, m int, known bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	var b strings.Builder
	b.WriteString("x1,x2,f")
	for i := range m {
		fmt.Fprintf(&b, ",g%d", i+1)
	}
	if known {
		b.WriteString(",noise_std")
	}
	b.WriteString("\n")
	for range n {
		x1, x2 := rng.Float64(), rng.Float64()
		fmt.Fprintf(&b, "%v,%v,%v", x1, x2, math.Sin(3*x1)+x2*x2+0.05*rng.NormFloat64())
		for i := range m {
			fmt.Fprintf(&b, ",%v", math.Cos(float64(i+2)*x2)-x1+0.05*rng.NormFloat64())
		}
		if known {
			fmt.Fprintf(&b, ",%v", 0.05*(1+rng.Float64()))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runFit(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(append([]string{"fit"}, args...), &o, &e)
	return o.String(), e.String(), err
}

// TestFitYAML checks that the printed block decodes strictly into the
// model section configurations and study specifications share, passes its
// check, and pastes into a study specification that resolves; with fitted
// noise each kernel carries its noise_std, with known noise none does.
func TestFitYAML(t *testing.T) {
	for _, c := range []struct {
		name       string
		m          int
		known, ard bool
		args       []string
	}{
		{"iso", 2, false, false, nil},
		{"ard matern", 1, false, true, []string{"--ard", "--kernel", "matern32", "--prior", "none", "--restarts", "2"}},
		{"known noise", 2, true, false, []string{"--kernel", "matern52"}},
		{"no constraints", 0, false, true, []string{"--ard"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := fitCSV(t, 40, c.m, c.known)
			out, _, err := runFit(t, append([]string{path}, c.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Model config.Model `yaml:"model"`
			}
			if err := strictyaml.Decode([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if err := doc.Model.Check(c.m, false); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if n := strings.Count(out, "log marginal likelihood"); n != 1+c.m {
				t.Errorf("%d log marginal likelihoods for %d GPs:\n%s", n, 1+c.m, out)
			}
			for i, k := range append(doc.Model.Constraints, *doc.Model.Objective) {
				if (k.NoiseStd == nil) != c.known {
					t.Errorf("kernel %d: noise_std %v with known=%v", i, k.NoiseStd, c.known)
				}
				if want := map[bool]int{false: 1, true: 2}[c.ard]; len(k.Lengthscale) != want {
					t.Errorf("kernel %d: %d lengthscales, want %d", i, len(k.Lengthscale), want)
				}
			}
			// Pasted into an experiment configuration on the same file,
			// which runs.
			cfg := fmt.Sprintf("seed: 1\nrealizations: 1\nhorizon: 5\nproblem:\n  file: %s\n  seed_actions: [0]\n"+
				"  thresholds: [%s]\n  epsilon: 0.01\n  noise_std: 0.05\n%salgorithms:\n  - {name: naive-sgp-ucb}\n",
				filepath.Base(path), strings.TrimSuffix(strings.Repeat("-10, ", c.m), ", "), out)
			if c.m > 0 && !c.known { // experiments do not take a noise_std column yet
				cfgPath := filepath.Join(filepath.Dir(path), "c.yaml")
				if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
				var o, e bytes.Buffer
				if err := run([]string{"run", cfgPath, "--out", filepath.Join(t.TempDir(), "out"), "--quiet"}, &o, &e); err != nil {
					t.Fatalf("safegp run: %v\n%s\n%s", err, e.String(), cfg)
				}
			}
			// Pasted into a study specification over the same inputs.
			thresholds := strings.TrimSuffix(strings.Repeat("0.0, ", c.m), ", ")
			spec := "decision_set: {grid: {bounds: [[0, 1], [0, 1]], points: [5, 5]}}\nseed_actions: [0]\n" +
				"thresholds: [" + thresholds + "]\n" + out +
				"algorithm: {name: sgp-ucb, phase1: uniform, exploration: {fixed: 3}}\nhorizon: 10\n"
			if c.m == 0 {
				return // a study needs a constraint, until objective thresholds
			}
			s, err := study.ParseSpec([]byte(spec))
			if err != nil {
				t.Fatalf("%v\n%s", err, spec)
			}
			if _, err := s.Resolve(t.TempDir()); err != nil {
				t.Fatalf("%v\n%s", err, spec)
			}
		})
	}
}

// TestFitJSON checks the --json form: one object per GP with the kernel,
// the lengthscales as a list, the variance, the noise (null when known)
// and the log marginal likelihood; and that the values are those of the
// YAML block.
func TestFitJSON(t *testing.T) {
	for _, known := range []bool{false, true} {
		path := fitCSV(t, 30, 2, known)
		out, _, err := runFit(t, path, "--json", "--ard", "--restarts", "2")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Objective   map[string]any   `json:"objective"`
			Constraints []map[string]any `json:"constraints"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(doc.Constraints) != 2 {
			t.Fatalf("%d constraints:\n%s", len(doc.Constraints), out)
		}
		for _, g := range append(doc.Constraints, doc.Objective) {
			for _, key := range []string{"kernel", "lengthscale", "variance", "noise_std", "log_marginal_likelihood"} {
				if _, ok := g[key]; !ok {
					t.Errorf("no %q in %v", key, g)
				}
			}
			if ls, _ := g["lengthscale"].([]any); len(ls) != 2 {
				t.Errorf("lengthscale %v", g["lengthscale"])
			}
			if (g["noise_std"] == nil) != known || g["noise_known"] != known {
				t.Errorf("known=%v: noise_std %v, noise_known %v", known, g["noise_std"], g["noise_known"])
			}
		}
		yml, _, err := runFit(t, path, "--ard", "--restarts", "2")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("f: log marginal likelihood %.6g", doc.Objective["log_marginal_likelihood"]); !strings.Contains(yml, want) {
			t.Errorf("YAML lacks %q:\n%s", want, yml)
		}
	}
}

// TestFitBadInput checks that bad input gets one clear error, a non-zero
// exit status and nothing on stdout.
func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := fitCSV(t, 10, 1, false)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"negative noise", []string{file("neg.csv", "x1,f,noise_std\n0,1,0.1\n1,2,-0.1\n2,1,0.1\n")}, 1, "negative"},
		{"NaN noise", []string{file("nan.csv", "x1,f,noise_std\n0,1,0.1\n1,2,NaN\n2,1,0.1\n")}, 1, `"NaN" is not a finite number`},
		{"one point", []string{file("one.csv", "x1,f\n0,1\n")}, 1, "at least 2"},
		{"not the format", []string{file("bad.csv", "a,b\n1,2\n")}, 1, "header"},
		{"not a number", []string{file("nan2.csv", "x1,f\n0,1\n1,oops\n")}, 1, `"oops" is not a decimal number`},
		{"all zero", []string{file("zero.csv", "x1,f\n0,0\n1,0\n")}, 1, "nothing to fit"},
		{"missing file", []string{filepath.Join(dir, "none.csv")}, 1, "no such file"},
		{"memory", []string{good, "--max-memory", "1KiB"}, 1, "memory"},
		{"no file", nil, 2, "exactly one"},
		{"two files", []string{good, good}, 2, "exactly one"},
		{"prior", []string{good, "--prior", "flat"}, 2, "--prior"},
		{"kernel", []string{good, "--kernel", "linear"}, 2, "--kernel"},
		{"restarts", []string{good, "--restarts", "0"}, 2, "--restarts"},
		{"flag", []string{good, "--bogus"}, 2, "bogus"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, err := runFit(t, c.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if code := exitCode(err); code != c.code {
				t.Errorf("exit %d, want %d (%v)", code, c.code, err)
			}
			if out != "" {
				t.Errorf("stdout: %q", out)
			}
			msg := errOut
			if err != errUsage {
				msg = err.Error()
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("error %q, stderr %q: want %q", err, errOut, c.want)
			}
		})
	}
}

// TestFitHelp checks that help lists the command and shows its usage.
func TestFitHelp(t *testing.T) {
	var o, e bytes.Buffer
	if err := run([]string{"help"}, &o, &e); err != nil || !strings.Contains(o.String(), "safegp fit DATA.csv") {
		t.Errorf("help: %v\n%s", err, o.String())
	}
	o.Reset()
	e.Reset()
	if err := run([]string{"help", "fit"}, &o, &e); err != nil || !strings.Contains(e.String(), "Usage: safegp fit") {
		t.Errorf("help fit: %v\n%s%s", err, o.String(), e.String())
	}
}

// TestFitWarnings checks that uncentred values get a warning on stderr
// and still a block on stdout.
func TestFitWarnings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "off.csv")
	var b strings.Builder
	b.WriteString("x1,f\n")
	for i := range 20 {
		fmt.Fprintf(&b, "%v,%v\n", float64(i)/19, 100+math.Sin(float64(i)/3))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runFit(t, path)
	if err != nil || !strings.Contains(out, "model:") || !strings.Contains(errOut, "f: warning:") || !strings.Contains(errOut, "centre") {
		t.Errorf("%v\nstdout %s\nstderr %s", err, out, errOut)
	}
}

// TestFitLipschitzEstimate: fit prints each column's Lipschitz estimate
// per coordinate (issue 43, item 4), with its caveat; on a plane g = 3·x1
// − 0.5·x2 measured without noise the fitted mean's slopes are the
// plane's, within 10 % (a GP mean reverts to 0 between and beyond the
// data, so its slopes are the plane's only where the data are).
func TestFitLipschitzEstimate(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x1,x2,f,g1\n")
	for i := range 7 {
		for j := range 7 {
			x1, x2 := float64(i)/6, float64(j)/6
			fmt.Fprintf(&b, "%v,%v,%v,%v\n", x1, x2, x1+x2, 3*x1-0.5*x2)
		}
	}
	path := filepath.Join(dir, "plane.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"fit", path, "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	var out struct {
		Constraints []struct {
			LipschitzEstimate []float64 `json:"lipschitz_estimate"`
		} `json:"constraints"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Constraints) != 1 {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	est := out.Constraints[0].LipschitzEstimate
	if len(est) != 2 || math.Abs(est[0]-3) > 0.3 || math.Abs(est[1]-0.5) > 0.05 {
		t.Errorf("estimate %v, want about [3 0.5]", est)
	}
	stdout.Reset()
	if err := run([]string{"fit", path}, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "an estimate from the data, not a bound") {
		t.Errorf("YAML: %v %s", err, stdout.String())
	}
}
