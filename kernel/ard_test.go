package kernel_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/safegp/safegp/internal/strictyaml"
	"github.com/safegp/safegp/kernel"
)

// doc is a configuration fragment holding a kernel block, decoded through
// strictyaml as experiment configs and study specs are, so that the errors
// carry their full key path.
type doc struct {
	Model struct {
		Objective kernel.Spec `yaml:"objective"`
	} `yaml:"model"`
}

// TestLengthscaleYAML: `lengthscale` reads a number or a non-empty list of
// numbers; anything else is one error naming the key (and the entry), and
// values out of range are kernel.New's to refuse, entry by entry.
func TestLengthscaleYAML(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml string
		want       kernel.Lengthscale // when decoding succeeds
		decodeErr  string             // the decoding error, or ""
		newErr     string             // kernel.New's error, or ""
	}{
		{"scalar", "0.5", kernel.Iso(0.5), "", ""},
		{"integer scalar", "2", kernel.Iso(2), "", ""},
		{"list", "[0.5, 2, 3]", kernel.Lengthscale{0.5, 2, 3}, "", ""},
		{"list of one", "[0.5]", kernel.Iso(0.5), "", ""},
		{"block list", "\n      - 1\n      - 2", kernel.Lengthscale{1, 2}, "", ""},
		{"empty list", "[]", nil, "line 4: model.objective.lengthscale: an empty list: give one lengthscale, or one per input dimension", ""},
		{"string", "long", nil, `line 4: model.objective.lengthscale: want a number, got "long"`, ""},
		{"string in list", "[0.5, fast]", nil, `line 4: model.objective.lengthscale[1]: want a number, got "fast"`, ""},
		{"null", "~", nil, "line 4: model.objective.lengthscale: no value (null); give a value or leave the key out", ""},
		{"null in list", "[0.5, ~]", nil, "line 4: model.objective.lengthscale[1]: no value (null); give a value or leave the key out", ""},
		{"mapping", "{a: 1}", nil, "line 4: model.objective.lengthscale: want a number, got a mapping", ""},
		{"list of lists", "[[1]]", nil, "line 4: model.objective.lengthscale[0]: want a number, got a list", ""},
		{"NaN", ".nan", kernel.Iso(math.NaN()), "", "lengthscale: must be a finite number > 0, got NaN"},
		{"NaN in list", "[1, .nan]", kernel.Lengthscale{1, math.NaN()}, "", "lengthscale[1]: must be a finite number > 0, got NaN"},
		{"zero in list", "[0, 1]", kernel.Lengthscale{0, 1}, "", "lengthscale[0]: must be a finite number > 0, got 0"},
		{"negative in list", "[1, 2, -3]", kernel.Lengthscale{1, 2, -3}, "", "lengthscale[2]: must be a finite number > 0, got -3"},
		{"infinite in list", "[.inf, 1]", kernel.Lengthscale{math.Inf(1), 1}, "", "lengthscale[0]: must be a finite number > 0, got +Inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d doc
			err := strictyaml.Decode([]byte("model:\n  objective:\n    kernel: se\n    lengthscale: "+c.yaml+"\n"), &d)
			if c.decodeErr != "" {
				if err == nil || err.Error() != c.decodeErr {
					t.Fatalf("decode: got %v, want %q", err, c.decodeErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			got := d.Model.Objective.Lengthscale
			if len(got) != len(c.want) {
				t.Fatalf("decoded %v, want %v", got, c.want)
			}
			for j := range got {
				if got[j] != c.want[j] && !(math.IsNaN(got[j]) && math.IsNaN(c.want[j])) {
					t.Fatalf("decoded %v, want %v", got, c.want)
				}
			}
			_, err = kernel.New(d.Model.Objective)
			switch {
			case c.newErr == "" && err != nil:
				t.Errorf("New: %v", err)
			case c.newErr != "" && (err == nil || err.Error() != c.newErr || !errors.Is(err, kernel.ErrInvalid)):
				t.Errorf("New: got %v, want ErrInvalid %q", err, c.newErr)
			}
		})
	}
}

// TestNoiseStdYAML: a kernel block's noise_std reads as a number and is
// checked by New; left out, it is nil (the model's σ applies).
func TestNoiseStdYAML(t *testing.T) {
	t.Parallel()
	var d doc
	if err := strictyaml.Decode([]byte("model:\n  objective: {kernel: linear, noise_std: 0.05}\n"), &d); err != nil {
		t.Fatal(err)
	}
	if n := d.Model.Objective.NoiseStd; n == nil || *n != 0.05 {
		t.Errorf("noise_std = %v, want 0.05", n)
	}
	d = doc{}
	if err := strictyaml.Decode([]byte("model:\n  objective: {kernel: linear}\n"), &d); err != nil || d.Model.Objective.NoiseStd != nil {
		t.Errorf("noise_std left out: %v, %v, want nil", d.Model.Objective.NoiseStd, err)
	}
	err := strictyaml.Decode([]byte("model:\n  objective: {kernel: linear, noise_std: low}\n"), &d)
	if want := `line 2: model.objective.noise_std: want a number, got "low"`; err == nil || err.Error() != want {
		t.Errorf("noise_std: low: got %v, want %q", err, want)
	}
}

// TestLengthscaleRoundTrip: one lengthscale writes as a number, so that an
// isotropic block echoed in results.json or a stored study reads as it was
// written; several write as a list. Both read back equal, in JSON and YAML.
func TestLengthscaleRoundTrip(t *testing.T) {
	t.Parallel()
	v := 0.25
	cases := []struct {
		spec     kernel.Spec
		wantJSON string
	}{
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(0.5)}, `{"kernel":"se","lengthscale":0.5}`},
		{kernel.Spec{Kernel: "matern52", Lengthscale: kernel.Lengthscale{0.5, 2}, NoiseStd: &v}, `{"kernel":"matern52","lengthscale":[0.5,2],"noise_std":0.25}`},
		{kernel.Spec{Kernel: "linear"}, `{"kernel":"linear"}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.spec)
		if err != nil || string(b) != c.wantJSON {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", c.spec, b, err, c.wantJSON)
			continue
		}
		var back kernel.Spec
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c.spec) {
			t.Errorf("json round trip of %s: %+v, %v", b, back, err)
		}
		// Stored study specs are JSON read back through strictyaml.
		var d doc
		if err := strictyaml.Decode([]byte(`{"model": {"objective": `+string(b)+`}}`), &d); err != nil || !reflect.DeepEqual(d.Model.Objective, c.spec) {
			t.Errorf("strictyaml read of %s: %+v, %v", b, d.Model.Objective, err)
		}
		y, err := yaml.Marshal(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		d = doc{}
		if err := strictyaml.Decode([]byte("model:\n  objective:\n"+indent(string(y))), &d); err != nil || !reflect.DeepEqual(d.Model.Objective, c.spec) {
			t.Errorf("yaml round trip of\n%s: %+v, %v", y, d.Model.Objective, err)
		}
	}
	y, _ := yaml.Marshal(kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(0.5)})
	if !strings.Contains(string(y), "lengthscale: 0.5\n") {
		t.Errorf("yaml of an isotropic block:\n%s\nwant lengthscale: 0.5", y)
	}
	for _, bad := range []string{`"x"`, `[]`, `{}`, `["x"]`} {
		var l kernel.Lengthscale
		if err := json.Unmarshal([]byte(bad), &l); err == nil || !strings.HasPrefix(err.Error(), "lengthscale: ") {
			t.Errorf("json %s: got %v, want an error naming lengthscale", bad, err)
		}
	}
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "")
}

// TestARDEvalClosedForm: at x = (0, 0), y = (3, 4) with ℓ = (3, 2), the
// scaled distance is r² = (3/3)² + (4/2)² = 5, so SE gives v·e^{−5/2},
// Matérn-3/2 v·(1+√15)e^{−√15} and Matérn-5/2 (√5·r = 5, 5r²/3 = 25/3)
// v·(1+5+25/3)e^{−5}. Tolerance 1e-12 relative: a handful of roundings
// (≤ 1e-15 each) in both the kernel and the closed form.
func TestARDEvalClosedForm(t *testing.T) {
	t.Parallel()
	x, y := []float64{0, 0}, []float64{3, 4}
	ard := kernel.Lengthscale{3, 2}
	s15 := math.Sqrt(15)
	cases := []struct {
		name string
		v    float64
		want float64
	}{
		{"se", 2, 2 * math.Exp(-2.5)},
		{"matern32", 1.5, 1.5 * (1 + s15) * math.Exp(-s15)},
		{"matern52", 0.7, 0.7 * (1 + 5 + 25.0/3) * math.Exp(-5)},
	}
	for _, c := range cases {
		k, err := kernel.New(kernel.Spec{Kernel: c.name, Lengthscale: ard, Variance: &c.v})
		if err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2][]float64{{x, y}, {y, x}} {
			if got := k.Eval(pair[0], pair[1]); math.Abs(got-c.want) > 1e-12*c.want {
				t.Errorf("%s: k(%v, %v) = %v, want %v", c.name, pair[0], pair[1], got, c.want)
			}
		}
		if got := k.Eval(y, y); got != c.v {
			t.Errorf("%s: k(y, y) = %v, want the variance %v", c.name, got, c.v)
		}
		if got := kernel.ARD(k); !reflect.DeepEqual(got, []float64(ard)) {
			t.Errorf("%s: ARD = %v, want %v", c.name, got, ard)
		}
	}
}

// TestARDEqualLengthscalesIsIsotropic: an ARD kernel whose ℓ_j are all ℓ
// is the isotropic kernel of lengthscale ℓ, on random points in 3-D. The
// two sum the same squares in another order and scaling (per term, or
// once), so they differ by rounding: each r² term is off by a few ulps, so
// r² by ≲ 1e-15·r² relatively, and e^{−r²/2} by that times r²/2 ≤ 20 here
// (points in [−2, 2]³, ℓ ≥ 0.5): 1e-13 relative bounds it.
func TestARDEqualLengthscalesIsIsotropic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"se", "matern32", "matern52"} {
		for _, l := range []float64{0.5, 1, 3.7} {
			iso, err := kernel.New(kernel.Spec{Kernel: name, Lengthscale: kernel.Iso(l)})
			if err != nil {
				t.Fatal(err)
			}
			ard, err := kernel.New(kernel.Spec{Kernel: name, Lengthscale: kernel.Lengthscale{l, l, l}})
			if err != nil {
				t.Fatal(err)
			}
			if kernel.ARD(iso) != nil || len(kernel.ARD(ard)) != 3 {
				t.Fatalf("%s: ARD(iso) = %v, ARD(ard) = %v", name, kernel.ARD(iso), kernel.ARD(ard))
			}
			for range 200 {
				x, y := make([]float64, 3), make([]float64, 3)
				for j := range x {
					x[j], y[j] = 4*rng.Float64()-2, 4*rng.Float64()-2
				}
				a, b := iso.Eval(x, y), ard.Eval(x, y)
				if math.Abs(a-b) > 1e-13*a {
					t.Errorf("%s ℓ = %v at %v, %v: isotropic %v, ARD %v", name, l, x, y, a, b)
				}
			}
		}
	}
}

// TestARDErrors: each entry of a lengthscale list is checked, and the error
// names the entry; a list of one is the isotropic lengthscale, named
// without an index. New copies the list: changing the spec afterwards does
// not change the kernel.
func TestARDErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec kernel.Spec
		want string
	}{
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{1, -1}}, "lengthscale[1]: must be a finite number > 0, got -1"},
		{kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Lengthscale{math.Inf(1), 1}}, "lengthscale[0]: must be a finite number > 0, got +Inf"},
		{kernel.Spec{Kernel: "matern52", Lengthscale: kernel.Lengthscale{1, 2, math.NaN()}}, "lengthscale[2]: must be a finite number > 0, got NaN"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{0}}, "lengthscale: must be a finite number > 0, got 0"},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{}}, "lengthscale: must be a finite number > 0, got 0"},
		{kernel.Spec{Kernel: "linear", Lengthscale: kernel.Lengthscale{1, 2}}, `lengthscale: not a parameter of kernel "linear"`},
		{kernel.Spec{Kernel: "polynomial", Lengthscale: kernel.Lengthscale{}}, `lengthscale: not a parameter of kernel "polynomial"`},
	}
	for _, c := range cases {
		if _, err := kernel.New(c.spec); err == nil || err.Error() != c.want || !errors.Is(err, kernel.ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid %q", c.spec, err, c.want)
		}
	}
	ls := kernel.Lengthscale{1, 2}
	k, err := kernel.New(kernel.Spec{Kernel: "se", Lengthscale: ls})
	if err != nil {
		t.Fatal(err)
	}
	ls[0] = 100
	if got := kernel.ARD(k); got[0] != 1 {
		t.Errorf("the kernel shares the spec's list: ARD = %v after the spec changed", got)
	}
}

// TestCheckDim: a list of lengthscales must have one per input dimension;
// one lengthscale, or none (a kernel without one), fits any dimension.
func TestCheckDim(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec kernel.Spec
		d    int
		want string
	}{
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Iso(1)}, 5, ""},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{1, 2}}, 2, ""},
		{kernel.Spec{Kernel: "linear"}, 3, ""},
		{kernel.Spec{Kernel: "se", Lengthscale: kernel.Lengthscale{1, 2, 3}}, 2, "lengthscale: 3 lengthscales for 2 input dimensions: give one, or one per dimension"},
		{kernel.Spec{Kernel: "matern32", Lengthscale: kernel.Lengthscale{1, 2}}, 3, "lengthscale: 2 lengthscales for 3 input dimensions: give one, or one per dimension"},
	}
	for _, c := range cases {
		err := kernel.CheckDim(c.spec, c.d)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, kernel.ErrInvalid)) {
			t.Errorf("CheckDim(%v, %d) = %v, want %q", c.spec.Lengthscale, c.d, err, c.want)
		}
	}
}

// TestNoiseStdCheck: a kernel block's noise_std is a finite number in
// 0…1e100, like the model's, for any kernel.
func TestNoiseStdCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v    float64
		want string
	}{
		{0, ""},
		{0.05, ""},
		{1e100, ""},
		{-0.1, "noise_std: must be a finite number in 0…1e100, got -0.1"},
		{math.NaN(), "noise_std: must be a finite number in 0…1e100, got NaN"},
		{math.Inf(1), "noise_std: must be a finite number in 0…1e100, got +Inf"},
		{1e101, "noise_std: must be a finite number in 0…1e100, got 1e+101"},
	}
	for _, c := range cases {
		for _, s := range []kernel.Spec{{Kernel: "se", Lengthscale: kernel.Iso(1)}, {Kernel: "polynomial"}} {
			s.NoiseStd = &c.v
			_, err := kernel.New(s)
			if c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, kernel.ErrInvalid)) {
				t.Errorf("%s noise_std %v: got %v, want %q", s.Kernel, c.v, err, c.want)
			}
		}
	}
}
