package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/safegp/safegp/internal/racetest"
	"github.com/safegp/safegp/sweep"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSweepEndToEnd runs the 2 × 2 sweep of sweep/testdata/small.yaml
// (2 realizations, T = 20) and checks the folder's layout, that each
// cell's folder is byte for byte what `safegp run` writes for the cell's
// configuration, and the table's numbers against the cells' summary.csv
// and results.json.
//
// The second sweep varies the first algorithm's plateau window and the
// seed: the second algorithm's runs are played once per seed and reused
// in the other window's cell (sweep's reuse), which must not change a
// byte either.
func TestSweepEndToEnd(t *testing.T) {
	racetest.Long(t, "a sweep with its figures takes 15 s")
	src, err := os.ReadFile("../../sweep/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("lengthscale×delta", func(t *testing.T) {
		testSweep(t, src, []string{"0-lengthscale=0.2,delta=0.01", "1-lengthscale=0.2,delta=0.1", "2-lengthscale=0.4,delta=0.01", "3-lengthscale=0.4,delta=0.1"})
	})
	window := string(src[:bytes.Index(src, []byte("axes:"))]) + "axes:\n  seed: [7, 8]\n  algorithms[0].exploration.plateau.window: [3, 6]\nfigure:\n  x: algorithms[0].exploration.plateau.window\n"
	t.Run("seed×window", func(t *testing.T) {
		testSweep(t, []byte(window), []string{"0-seed=7,window=3", "1-seed=7,window=6", "2-seed=8,window=3", "3-seed=8,window=6"})
	})
}

func testSweep(t *testing.T, src []byte, names []string) {
	dir := t.TempDir()
	file := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"sweep", file, "--out", out, "--workers", "2"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "wrote "+out+": 4 cells, 16 runs in ") || stderr.Len() != 0 {
		t.Errorf("stdout %q, stderr %q: want one final line", stdout.String(), stderr.String())
	}
	top, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range top {
		got = append(got, e.Name())
	}
	if want := []string{".safegp-output", "cells", "sweep.csv", "sweep.md", "sweep.png", "sweep.svg"}; !slices.Equal(got, want) {
		t.Errorf("%s holds %v, want %v", out, got, want)
	}
	cells, _ := os.ReadDir(filepath.Join(out, "cells"))
	got = got[:0]
	for _, e := range cells {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("cells/ holds %v, want %v", got, names)
	}

	s, err := sweep.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	table := readCSV(t, filepath.Join(out, "sweep.csv"))
	if len(table) != 1+4*2 {
		t.Fatalf("sweep.csv has %d lines, want 9", len(table))
	}
	col := map[string]int{}
	for i, h := range table[0] {
		col[h] = i
	}
	for i, c := range s.Cells {
		// `safegp run` of the cell's configuration, saved as <name>.yaml.
		cfgPath := filepath.Join(dir, c.Name+".yaml")
		if err := os.WriteFile(cfgPath, c.YAML, 0o644); err != nil {
			t.Fatal(err)
		}
		ref := filepath.Join(dir, "run-"+c.Name)
		if err := run([]string{"run", cfgPath, "--out", ref, "--quiet"}, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		a, b := tree(t, filepath.Join(out, "cells", names[i])), tree(t, ref)
		if len(a) != len(b) || len(a) < 5 {
			t.Errorf("cell %s: %d files, safegp run wrote %d", c.Name, len(a), len(b))
		}
		for name, want := range b {
			if a[name] != want { // tree (shard_process_test.go): path → content
				t.Errorf("cell %s: %s differs from safegp run's", c.Name, name)
			}
		}

		// The table against the cell's own files: the mean R_T/T and
		// violations are summary.csv's last round (the same numbers, so
		// equal as text), the standard error its std/√R (one division:
		// to 1e-15 relative); the exploration rounds from results.json's
		// runs, summed from scratch (to 1e-12).
		sum := readCSV(t, filepath.Join(ref, "summary.csv"))
		// The runs' labels and exploration lengths (results.json's
		// config echoes β as given, which decodes only from YAML).
		var res struct {
			Runs []struct {
				Label             string `json:"label"`
				ExplorationRounds int    `json:"exploration_rounds"`
			} `json:"runs"`
		}
		js, _ := os.ReadFile(filepath.Join(ref, "results.json"))
		if err := json.Unmarshal(js, &res); err != nil {
			t.Fatal(err)
		}
		R := float64(c.Config.Realizations)
		for _, row := range table[1:] {
			if row[col["cell"]] != strconv.Itoa(i) {
				continue
			}
			label := row[col["algorithm"]]
			var last []string
			for _, l := range sum[1:] {
				if l[0] == label && l[1] == strconv.Itoa(c.Config.Horizon) {
					last = l
				}
			}
			if last == nil {
				t.Fatalf("cell %d: no round T for %s in summary.csv", i, label)
			}
			if row[col["final_avg_regret_mean"]] != last[2] || row[col["violations_mean"]] != last[6] {
				t.Errorf("cell %d %s: R_T/T %s, violations %s; summary.csv's round T: %s, %s", i, label, row[col["final_avg_regret_mean"]], row[col["violations_mean"]], last[2], last[6])
			}
			std, _ := strconv.ParseFloat(last[3], 64)
			se, _ := strconv.ParseFloat(row[col["final_avg_regret_se"]], 64)
			if math.Abs(se-std/math.Sqrt(R)) > 1e-15*std {
				t.Errorf("cell %d %s: SE %v, summary.csv's std/√R %v", i, label, se, std/math.Sqrt(R))
			}
			var xs []float64
			for _, r := range res.Runs {
				if r.Label == label {
					xs = append(xs, float64(r.ExplorationRounds))
				}
			}
			mean, sd := meanStd(xs)
			em, _ := strconv.ParseFloat(row[col["exploration_rounds_mean"]], 64)
			es, _ := strconv.ParseFloat(row[col["exploration_rounds_se"]], 64)
			if math.Abs(em-mean) > 1e-12 || math.Abs(es-sd/math.Sqrt(float64(len(xs)))) > 1e-12 {
				t.Errorf("cell %d %s: exploration %v ± %v, from results.json %v ± %v", i, label, em, es, mean, sd/math.Sqrt(float64(len(xs))))
			}
			if row[col["realizations"]] != strconv.Itoa(len(xs)) {
				t.Errorf("cell %d %s: %s realizations, results.json has %d runs", i, label, row[col["realizations"]], len(xs))
			}
		}
	}

	// Written whole or not at all: without --force the folder is kept.
	if err := run([]string{"sweep", file, "--out", out}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a second sweep into %s: %v, want a refusal naming --force", out, err)
	}
	if err := run([]string{"sweep", file, "--out", out, "--force", "--quiet"}, &stdout, &stderr); err != nil {
		t.Errorf("with --force: %v", err)
	}
}

// meanStd is the mean and the sample standard deviation (n − 1), by the
// two-pass formula.
func meanStd(xs []float64) (float64, float64) {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var q float64
	for _, x := range xs {
		q += (x - m) * (x - m)
	}
	if len(xs) < 2 {
		return m, 0
	}
	return m, math.Sqrt(q / float64(len(xs)-1))
}

func TestSweepUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{
		{"sweep"},
		{"sweep", "x.yaml"},
		{"sweep", "x.yaml", "--out", "o", "--workers", "0"},
	} {
		if err := run(args, &stdout, &stderr); err != errUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	stderr.Reset()
	if err := run([]string{"help", "sweep"}, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "axes:") {
		t.Errorf("help sweep: %v, %q", err, stderr.String())
	}
}
