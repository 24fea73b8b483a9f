package experiment

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameAsJSON reports how a line that decodeLineFast accepted differs from
// what encoding/json makes of it: floats compared by their bits, nil and
// empty slices told apart.
func sameAsJSON(line []byte, fast runLine) string {
	want := runLine{Run: &Run{}}
	if err := json.Unmarshal(line, &want); err != nil {
		return "the fast path accepted a line encoding/json refuses: " + err.Error()
	}
	return cmp.Diff(want, fast, cmp.AllowUnexported(Run{}),
		cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }))
}

// randomRun is a finite problem's run as Play records it, with floats
// from every range strconv formats differently (exponents, subnormals,
// −0) and, at random, empty arrays.
func randomRun(rng *rand.Rand, label string) (int, *Run) {
	T := rng.IntN(40)
	r := &Run{Algorithm: "safeopt-mc", Label: label, Realization: rng.IntN(1000),
		Violations: rng.IntN(3), ExplorationRounds: rng.IntN(T + 1)}
	float := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Float64frombits(rng.Uint64() &^ (0x7ff << 52)) // subnormal
		case 3:
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		}
		return rng.NormFloat64()
	}
	if T > 0 || rng.IntN(2) == 0 {
		r.Actions, r.Regret, r.ReachableRegret, r.SafeSetSize = []int{}, []float64{}, []float64{}, []int{}
	}
	for t := 0; t < T; t++ {
		r.Actions = append(r.Actions, rng.IntN(5000)-1)
		r.Regret = append(r.Regret, float())
		r.ReachableRegret = append(r.ReachableRegret, float())
		r.SafeSetSize = append(r.SafeSetSize, rng.IntN(1<<20))
		if rng.IntN(10) == 0 {
			r.violationRounds = append(r.violationRounds, t)
		}
	}
	return rng.IntN(12), r
}

// TestDecodeLineFast: every line appendLine writes for a finite problem
// takes the fast path and decodes to encoding/json's values bit for bit;
// lines outside its form (escapes, whitespace, duplicate or unknown keys,
// numbers an int field refuses, null) are left to encoding/json, which
// decodes some of them and refuses others.
func TestDecodeLineFast(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 14))
	labels := []string{"sgp-ucb", "safeopt-mc (plateau)", "stageopt gp", "β½σ naïve", ""}
	// Each line over the previous one's arrays, as lineDecoder decodes:
	// longer, shorter, empty and missing arrays after one another.
	var last runLine
	for k := 0; k < 300; k++ {
		a, run := randomRun(rng, labels[k%len(labels)])
		line, err := appendLine(nil, a, run)
		if err != nil {
			t.Fatal(err)
		}
		line = line[:len(line)-1]
		l := runLine{Run: &Run{}}
		if !decodeLineFast(line, &l, &last) {
			t.Fatalf("line %d (%.80s…) not taken by the fast path", k, line)
		}
		last = l
		if d := sameAsJSON(line, l); d != "" {
			t.Fatalf("line %d: fast path differs from encoding/json (-json +fast):\n%s", k, d)
		}
		if run.violationRounds == nil && l.ViolationRounds == nil {
			t.Fatalf("line %d: violation_rounds [] decoded as nil", k)
		}
	}
	const head = `{"algorithm_index":1,"realization":2,"violation_rounds":[3],"run":`
	for _, c := range []struct {
		name string
		line string
		fast bool
	}{
		{"minimal", head + `{"algorithm":"a","label":"b","realization":2,"violations":0,"exploration_rounds":0}}`, true},
		{"empty run", head + `{}}`, true},
		{"keys in another order", `{"run":{"violations":1,"algorithm":"a"},"realization":2,"algorithm_index":1,"violation_rounds":[]}`, true},
		{"numbers of every form", head + `{"regret":[-0,0.5,1e-320,2E+3,-4.25e-2,1e308],"actions":[-1,0,12]}}`, true},
		{"escape in a label", head + `{"label":"a\"b"}}`, false},
		{"unicode escape", head + `{"label":"\u00e9"}}`, false},
		{"space", `{"algorithm_index": 1}`, false},
		{"duplicate key", head + `{"violations":1,"violations":2}}`, false},
		{"duplicate top key", `{"realization":1,"realization":2}`, false},
		{"unknown key", head + `{"points":[[0.5]]}}`, false},
		{"key in another case", head + `{"Violations":1}}`, false},
		{"fraction in an int", head + `{"violations":1.0}}`, false},
		{"exponent in an int", head + `{"actions":[1e2]}}`, false},
		{"float out of range", head + `{"regret":[1e400]}}`, false},
		{"int out of range", head + `{"violations":99999999999999999999}}`, false},
		{"leading zero", head + `{"violations":01}}`, false},
		{"null run", head + `null}`, false},
		{"null array", head + `{"regret":null}}`, false},
		{"null element", head + `{"regret":[null]}}`, false},
		{"invalid UTF-8", head + "{\"label\":\"\xff\"}}", false},
		{"control character", head + "{\"label\":\"a\tb\"}}", false},
		{"trailing bytes", head + `{}} `, false},
		{"truncated", head + `{"regret":[1,2`, false},
		{"trailing comma", head + `{"regret":[1,]}}`, false},
	} {
		// Over a whole run's arrays: none of them may show through.
		l, spare := runLine{Run: &Run{}}, runLine{Run: &Run{}}
		if !decodeLineFast(mustLine(t, fullRun()), &spare, nil) {
			t.Fatal("a whole run's line not taken by the fast path")
		}
		got := decodeLineFast([]byte(c.line), &l, &spare)
		if got != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.name, got, c.fast)
			continue
		}
		if got {
			if d := sameAsJSON([]byte(c.line), l); d != "" {
				t.Errorf("%s: fast path differs from encoding/json (-json +fast):\n%s", c.name, d)
			}
		}
	}
}

// fullRun is a random run with every array at least 20 long.
func fullRun() *Run {
	rng := rand.New(rand.NewPCG(1, 1))
	for {
		if _, r := randomRun(rng, "x"); len(r.Regret) >= 20 && len(r.violationRounds) > 0 {
			return r
		}
	}
}

// mustLine is run's line without its newline.
func mustLine(t testing.TB, run *Run) []byte {
	t.Helper()
	line, err := appendLine(nil, 3, run)
	if err != nil {
		t.Fatal(err)
	}
	return line[:len(line)-1]
}

// FuzzDecodeLineFast: whatever the fast path accepts, encoding/json
// decodes to the same values.
func FuzzDecodeLineFast(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 8; k++ {
		a, run := randomRun(rng, "sgp-ucb")
		line, _ := appendLine(nil, a, run)
		f.Add(line[:len(line)-1])
	}
	f.Add([]byte(`{"run":{"regret":[1e-7,-0]},"violation_rounds":[]}`))
	full := fullRun()
	f.Fuzz(func(t *testing.T, line []byte) {
		// Over a whole run's arrays, as lineDecoder decodes.
		l, spare := runLine{Run: &Run{}}, runLine{Run: &Run{}}
		if !decodeLineFast(mustLine(t, full), &spare, nil) {
			t.Fatal("a whole run's line not taken by the fast path")
		}
		if !decodeLineFast(line, &l, &spare) {
			return
		}
		if d := sameAsJSON(line, l); d != "" {
			t.Fatalf("%q: fast path differs from encoding/json (-json +fast):\n%s", line, d)
		}
	})
}

// BenchmarkDecodeLine decodes the lines of the paper's regime as
// runs.jsonl holds them: 150 runs of T = 500 (5 algorithms × 30
// realizations), as safegp merge reads them.
func BenchmarkDecodeLine(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	var lines [][]byte
	for k := 0; k < 150; k++ {
		r := &Run{Algorithm: "sgp-ucb", Label: "sgp-ucb", Realization: k % 30, ExplorationRounds: 40}
		for t := 0; t < 500; t++ {
			r.Actions = append(r.Actions, rng.IntN(100))
			r.Regret = append(r.Regret, rng.Float64())
			r.ReachableRegret = append(r.ReachableRegret, rng.Float64())
			r.SafeSetSize = append(r.SafeSetSize, 10+t/10)
		}
		line, err := appendLine(nil, k/30, r)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line[:len(line)-1])
	}
	for b.Loop() {
		var d lineDecoder // as finishRuns reads a file
		for _, line := range lines {
			if _, _, err := d.decode(line); err != nil {
				b.Fatal(err)
			}
		}
	}
}
